/**
 * What a node the console may not read needs: which ACL entries grant READ, in an operator's
 * words, and how to give Keeper that access. ZooKeeper 3.8 answers getACL only to a client
 * with READ or ADMIN on the node (checked on the sandbox), so without either the entries are
 * unknown and the view says what is known instead.
 */
import type { AclEntryView, ConsoleIdentityEntry } from '@keeper/shared';
import { seenAs } from '../../app/consoleSession/connectionWords';

export interface AccessNeed {
  scheme: string;
  /** The id as ZooKeeper stores it (a digest id is `user:base64(sha1)`). */
  id: string;
  /** What the operator does to get it. */
  how: string;
}

const CONFIG_HINT = 'in the ensemble’s "auth" list of Keeper’s config file (docs/operating/configuration.md), then restart Keeper';
const SECURED_HINT = 'in the ensemble’s entry of Keeper’s config file (docs/operating/secured-ensembles.md)';

export function describeNeed(entry: AclEntryView): AccessNeed {
  switch (entry.scheme) {
    case 'digest': {
      const user = entry.id.split(':')[0] ?? entry.id;
      return { scheme: 'digest', id: entry.id, how: `add { "scheme": "digest", "credential": "${user}:<password>" } ${CONFIG_HINT}` };
    }
    case 'ip':
      return { scheme: 'ip', id: entry.id, how: `run Keeper from an address in ${entry.id}` };
    case 'auth':
      return { scheme: 'auth', id: entry.id, how: `any credential ZooKeeper accepts: add a digest credential ${CONFIG_HINT}, or SASL or a client certificate` };
    case 'sasl':
      return {
        scheme: 'sasl',
        id: entry.id,
        how: `authenticate Keeper as ${entry.id}: "sasl" with that DIGEST-MD5 username or Kerberos principal ${SECURED_HINT}`,
      };
    case 'x509':
      return { scheme: 'x509', id: entry.id, how: `present a client certificate whose subject is ${entry.id}: "tls" "cert" and "key" ${SECURED_HINT}` };
    case 'world':
      return { scheme: 'world', id: entry.id, how: 'open to everyone: reading should work; try again' };
    default:
      return {
        scheme: entry.scheme,
        id: entry.id,
        how: `Keeper presents digest credentials, SASL and a client certificate; the ${entry.scheme} scheme (a custom provider) needs a client configured for it`,
      };
  }
}

/** The entries that would let the console read (READ bit), described. */
export function readersOf(acl: readonly AclEntryView[]): AccessNeed[] {
  return acl.filter((e) => e.perms.includes('r')).map(describeNeed);
}

/**
 * The NO_AUTH explanation's sentence: who ZooKeeper sees Keeper as (whoAmI) against whom the ACL
 * grants the permission. "ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1; this node’s ACL grants
 * read only to sasl:billing". `granted` is null when ZooKeeper did not reveal the ACL; the whole
 * sentence is null when the identity is not known (the other words of the view still stand).
 */
export function noAuthSentence(identity: readonly ConsoleIdentityEntry[] | null, permission: string, granted: readonly AclEntryView[] | null): string | null {
  if (identity === null) return null;
  const who = seenAs(identity);
  if (granted === null) return `${who}, and this node’s ACL grants it no ${permission}`;
  if (granted.length === 0) return `${who}; this node’s ACL grants ${permission} to no one`;
  return `${who}; this node’s ACL grants ${permission} only to ${granted.map((e) => `${e.scheme}:${e.id}`).join(', ')}`;
}
