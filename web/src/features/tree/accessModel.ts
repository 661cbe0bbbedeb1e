/**
 * What a node the console may not read needs: which ACL entries grant READ, in an operator's
 * words, and how to give Keeper that access. ZooKeeper 3.8 answers getACL only to a client
 * with READ or ADMIN on the node (checked on the sandbox), so without either the entries are
 * unknown and the view says what is known instead.
 */
import type { AclEntryView } from '@keeper/shared';

export interface AccessNeed {
  scheme: string;
  /** The id as ZooKeeper stores it (a digest id is `user:base64(sha1)`). */
  id: string;
  /** What the operator does to get it. */
  how: string;
}

const CONFIG_HINT = 'in the ensemble’s "auth" list of Keeper’s config file (README, Configuration), then restart Keeper';

export function describeNeed(entry: AclEntryView): AccessNeed {
  switch (entry.scheme) {
    case 'digest': {
      const user = entry.id.split(':')[0] ?? entry.id;
      return { scheme: 'digest', id: entry.id, how: `add { "scheme": "digest", "credential": "${user}:<password>" } ${CONFIG_HINT}` };
    }
    case 'ip':
      return { scheme: 'ip', id: entry.id, how: `run Keeper from an address in ${entry.id}` };
    case 'auth':
      return { scheme: 'auth', id: entry.id, how: `any credential ZooKeeper accepts: add a digest credential ${CONFIG_HINT}` };
    case 'world':
      return { scheme: 'world', id: entry.id, how: 'open to everyone: reading should work; try again' };
    default:
      return {
        scheme: entry.scheme,
        id: entry.id,
        how: `Keeper can only present digest credentials; the ${entry.scheme} scheme needs a client configured for it`,
      };
  }
}

/** The entries that would let the console read (READ bit), described. */
export function readersOf(acl: readonly AclEntryView[]): AccessNeed[] {
  return acl.filter((e) => e.perms.includes('r')).map(describeNeed);
}
