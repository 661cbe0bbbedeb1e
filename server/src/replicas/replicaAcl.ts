/**
 * The ACL every replica puts on the shared state's root and on every znode under it, and the
 * credential its state session adds: the digest identity from the cluster secret, then each
 * configured x509/sasl identity (config/replicasConfig.ts checks them).
 */
import { digestIdOf } from '../ops/consoleIdentity.js';
import type { AclEntry } from '../zk/mutations.js';

/** The digest user every replica authenticates as on its state session. */
export const REPLICA_DIGEST_USER = 'keeper';
/** ZooKeeper's Perms.ALL: create, delete, read, write, admin. */
const ALL = 31;

/** The identities' entries of the ACL, as ZooKeeper holds them (scheme, id). */
function identityEntries(identities: readonly string[]): AclEntry[] {
  return identities.map((identity) => {
    const colon = identity.indexOf(':');
    return { scheme: identity.slice(0, colon), id: identity.slice(colon + 1), permissions: ALL };
  });
}

/** The ACL of the root and of every znode under it: the replicas' digest identity, then each configured x509/sasl identity, every permission. */
export function replicaAcl(secret: string, identities: readonly string[] = []): AclEntry[] {
  return [{ scheme: 'digest', id: digestIdOf(`${REPLICA_DIGEST_USER}:${secret}`), permissions: ALL }, ...identityEntries(identities)];
}

/** The credential the state session adds (addAuthInfo digest). */
export function replicaCredential(secret: string): { scheme: 'digest'; credential: string } {
  return { scheme: 'digest', credential: `${REPLICA_DIGEST_USER}:${secret}` };
}
