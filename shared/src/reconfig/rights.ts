/**
 * May Keeper reconfig? ZooKeeper checks WRITE on /zookeeper/config, which a super user always
 * passes (PrepRequestProcessor: checkACL on ZooDefs.CONFIG_NODE). whoAmI (3.7+) tells both: a
 * super user's session holds the identity `super`, and the ACL's entries are matched against the
 * session's identities. When ZooKeeper answered NO_AUTH, this says which right is missing.
 */
import { PERMISSION_BITS, permissionsToLetters } from '../acl.js';

/** One ACL entry as the server reads it (permissions as ZooKeeper's bits). */
export interface AclBits {
  scheme: string;
  id: string;
  permissions: number;
}

export interface ReconfigRights {
  /** 'super': ZooKeeper's super user (whoAmI says `super`); 'acl': an entry grants write; 'none'. */
  basis: 'acl' | 'super' | 'none';
  sentence: string;
}

const show = (e: Pick<AclBits, 'scheme' | 'id'>) => `${e.scheme}:${e.id}`;

export function reconfigRights(acl: readonly AclBits[], identities: readonly { scheme: string; id: string }[]): ReconfigRights {
  // A session whose digest matches the members' superDigest holds the identity `super` (seen on 3.8.0: whoAmI answers
  // "super:", "digest:super", "ip:127.0.0.1"); ZooKeeper lets it do anything, reconfig included.
  if (identities.some((i) => i.scheme === 'super')) return { basis: 'super', sentence: "ZooKeeper reports Keeper's session as its super user (whoAmI: super)" };
  const grants = acl.filter(
    (e) =>
      (e.permissions & PERMISSION_BITS.w) !== 0 &&
      ((e.scheme === 'world' && e.id === 'anyone') ||
        // whoAmI gives a digest identity by its user name; the ACL holds user:hash.
        identities.some((i) => i.scheme === e.scheme && (i.id === e.id || (e.scheme === 'digest' && e.id.startsWith(`${i.id}:`))))),
  );
  if (grants.length > 0) return { basis: 'acl', sentence: `/zookeeper/config's ACL grants write to ${show(grants[0]!)}, an identity Keeper's session holds` };
  const aclText = acl.length > 0 ? acl.map((e) => `${show(e)}:${permissionsToLetters(e.permissions)}`).join(', ') : 'unknown';
  const digestSuper = identities.some((i) => i.scheme === 'digest' && i.id === 'super');
  const sentence = missingRight(aclText, identities);
  return {
    basis: 'none',
    sentence: digestSuper
      ? `${sentence} (Keeper signs in as digest user super, but its password does not match the members' superDigest: ZooKeeper did not make it the super user)`
      : sentence,
  };
}

/** What to say for NO_AUTH (or a preflight with no basis): neither super user nor write on /zookeeper/config. */
export function missingRight(aclText: string, identities: readonly { scheme: string; id: string }[]): string {
  const who = identities.length > 0 ? identities.map((i) => `${i.scheme}:${i.id}`).join(', ') : 'no identity ZooKeeper reported';
  return (
    `Keeper may not reconfig: its session (${who}) is not ZooKeeper's super user and /zookeeper/config's ACL (${aclText}) gives it no write. ` +
    "Add the super user's digest credential to the ensemble's auth in Keeper's config (digest super:<password>, matching the members' " +
    'zookeeper.DigestAuthenticationProvider.superDigest), or grant write on /zookeeper/config to an identity Keeper holds'
  );
}
