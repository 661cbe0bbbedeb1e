/**
 * May Keeper reconfig? ZooKeeper checks WRITE on /zookeeper/config, which a super user always
 * passes (PrepRequestProcessor: checkACL on ZooDefs.CONFIG_NODE). Nothing says whether a session
 * is a super user before a reconfig is sent, so this says what can be seen: an ACL entry granting
 * write to one of the session's identities (whoAmI), or a digest credential for user `super`
 * (the conventional superDigest name); and, when ZooKeeper answered NO_AUTH, which right is missing.
 */
import { PERMISSION_BITS, permissionsToLetters } from '../acl.js';

/** One ACL entry as the server reads it (permissions as ZooKeeper's bits). */
export interface AclBits {
  scheme: string;
  id: string;
  permissions: number;
}

export interface ReconfigRights {
  /** 'acl': an entry grants write; 'super': Keeper signs in as digest user super (likely, not provable); 'none'. */
  basis: 'acl' | 'super' | 'none';
  sentence: string;
}

const show = (e: Pick<AclBits, 'scheme' | 'id'>) => `${e.scheme}:${e.id}`;

export function reconfigRights(acl: readonly AclBits[], identities: readonly { scheme: string; id: string }[]): ReconfigRights {
  const grants = acl.filter(
    (e) =>
      (e.permissions & PERMISSION_BITS.w) !== 0 &&
      ((e.scheme === 'world' && e.id === 'anyone') || identities.some((i) => i.scheme === e.scheme && (i.id === e.id || (e.scheme === 'ip' && e.id === i.id)))),
  );
  if (grants.length > 0) return { basis: 'acl', sentence: `/zookeeper/config's ACL grants write to ${show(grants[0]!)}, an identity Keeper's session holds` };
  const superId = identities.find((i) => i.scheme === 'digest' && i.id.startsWith('super:'));
  const aclText = acl.length > 0 ? acl.map((e) => `${show(e)}:${permissionsToLetters(e.permissions)}`).join(', ') : 'unknown';
  if (superId) {
    return {
      basis: 'super',
      sentence: `Keeper signs in as digest user super: ZooKeeper's super user when the members' zookeeper.DigestAuthenticationProvider.superDigest names it (ZooKeeper says so only when the reconfig is sent; /zookeeper/config's ACL is ${aclText})`,
    };
  }
  return { basis: 'none', sentence: missingRight(aclText, identities) };
}

/** What to say for NO_AUTH (or a preflight with no basis): neither super user nor write on /zookeeper/config. */
export function missingRight(aclText: string, identities: readonly { scheme: string; id: string }[]): string {
  const who = identities.length > 0 ? identities.map((i) => `${i.scheme}:${i.id.replace(/:.*$/, '')}`).join(', ') : 'no identity ZooKeeper reported';
  return (
    `Keeper may not reconfig: its session (${who}) is not ZooKeeper's super user and /zookeeper/config's ACL (${aclText}) gives it no write. ` +
    "Add the super user's digest credential to the ensemble's auth in Keeper's config (digest super:<password>, matching the members' " +
    'zookeeper.DigestAuthenticationProvider.superDigest), or grant write on /zookeeper/config to an identity Keeper holds'
  );
}
