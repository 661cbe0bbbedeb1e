/**
 * The `"replicas"` config (docs/replicas.md): which configured ensemble holds the shared state,
 * under which root, and the secret every replica proves itself with. Pure: checked at config
 * parse time and again by startKeeper (tests call it without the CLI).
 */
import { checkPath } from '@keeper/shared';
import { digestIdOf } from '../ops/consoleIdentity.js';
import type { AclEntry } from '../zk/mutations.js';

export const DEFAULT_REPLICAS_ROOT = '/keeper/replicas';
export const DEFAULT_REPLICAS_SECRET_ENV = 'KEEPER_CLUSTER_SECRET';
export const MIN_CLUSTER_SECRET_LENGTH = 32;
/** The digest user every replica authenticates as on its state session. */
export const REPLICA_DIGEST_USER = 'keeper';
/** ZooKeeper's Perms.ALL: create, delete, read, write, admin. */
const ALL = 31;

export interface ReplicasOptions {
  stateEnsemble: string;
  root: string;
  /** The cluster secret itself (read from the environment variable the config names). */
  secret: string;
  sharedPolling: boolean;
  /** Sign-in sessions kept in the home ensemble; default DEFAULT_SHARED_SESSIONS. */
  maxSessions?: number;
  /** Audit entries kept in the home ensemble's shared window; default DEFAULT_AUDIT_WINDOW. */
  auditWindow?: number;
}

export const DEFAULT_AUDIT_WINDOW = 10_000;

export const DEFAULT_SHARED_SESSIONS = 10_000;

/** Why a root cannot hold the shared state, or null. `/keeper` holds every Keeper's identity marker and upgrade lock. */
export function replicaRootProblem(root: string): string | null {
  const check = checkPath(root);
  if (!check.ok) return check.reason;
  if (root === '/') return 'must not be "/": the ACL would shut everyone out of the whole tree';
  if (root === '/zookeeper' || root.startsWith('/zookeeper/')) return "must not be under /zookeeper (ZooKeeper's own)";
  if (root === '/keeper') return 'must not be /keeper: it holds the ensemble identity and the upgrade lock that every Keeper must reach; use /keeper/replicas';
  return null;
}

/** The ACL of the root and of every znode under it: the replicas' digest identity only, every permission. */
export function replicaAcl(secret: string): AclEntry[] {
  return [{ scheme: 'digest', id: digestIdOf(`${REPLICA_DIGEST_USER}:${secret}`), permissions: ALL }];
}

/** The credential the state session adds (addAuthInfo digest). */
export function replicaCredential(secret: string): { scheme: 'digest'; credential: string } {
  return { scheme: 'digest', credential: `${REPLICA_DIGEST_USER}:${secret}` };
}

/** Refuses what cannot run, in a sentence; names only configured ensembles. */
export function checkReplicasOptions(options: ReplicasOptions, ensembleNames: readonly string[]): void {
  if (!ensembleNames.includes(options.stateEnsemble))
    throw new Error(`replicas.stateEnsemble "${options.stateEnsemble}" is not a configured ensemble (configured: ${ensembleNames.join(', ')})`);
  const problem = replicaRootProblem(options.root);
  if (problem) throw new Error(`replicas.root ${JSON.stringify(options.root)} ${problem}`);
  if (options.secret.length < MIN_CLUSTER_SECRET_LENGTH)
    throw new Error(`the replicas' cluster secret must be at least ${MIN_CLUSTER_SECRET_LENGTH} characters (try: openssl rand -base64 48)`);
}
