/**
 * The `"replicas"` config (docs/operating/replicas.md): which configured ensemble holds the shared state,
 * under which root, and the secret every replica proves itself with. Pure: checked at config
 * parse time and again by startKeeper (tests call it without the CLI). The ACL the replicas put on
 * that root is theirs (replicas/replicaAcl.ts): config/ is below every folder that reads it.
 */
import { checkPath } from '@keeper/shared';

export const DEFAULT_REPLICAS_ROOT = '/keeper/replicas';
export const DEFAULT_REPLICAS_SECRET_ENV = 'KEEPER_CLUSTER_SECRET';
export const MIN_CLUSTER_SECRET_LENGTH = 32;
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
  /** `x509:<DN>` / `sasl:<principal>` identities given every permission beside the digest one (at most MAX_REPLICA_IDENTITIES). */
  identities?: string[];
}

/** The bound on `replicas.identities`: every znode under the root carries one ACL entry per identity. */
export const MAX_REPLICA_IDENTITIES = 8;
const MAX_IDENTITY_LENGTH = 512;
/** An RFC 2253 attribute (`CN=...`) as ZooKeeper's X509AuthenticationProvider writes the subject: X500Principal.getName(). */
const DN_START = /^[A-Za-z][A-Za-z0-9.-]*=/;
/** What SASLAuthenticationProvider.isValid accepts: a Kerberos name `primary[/instance][@REALM]` (a DIGEST-MD5 user is a bare primary). */
const SASL_PRINCIPAL = /^[^\s/@]+(\/[^\s/@]+)?(@[^\s/@]+)?$/;

/** Why an identity cannot go into the root's ACL, or null. `x509:<DN>` or `sasl:<principal>`, as ZooKeeper's whoami names them. */
export function replicaIdentityProblem(identity: string): string | null {
  if (identity.length > MAX_IDENTITY_LENGTH) return `is longer than ${MAX_IDENTITY_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(identity)) return 'holds a control character';
  const colon = identity.indexOf(':');
  const scheme = colon < 0 ? '' : identity.slice(0, colon);
  const id = identity.slice(colon + 1);
  if (scheme === 'x509') {
    if (id !== id.trim() || !DN_START.test(id)) return 'must be x509:<subject DN>, e.g. x509:CN=keeper,OU=ops';
    // ZooKeeper compares the DN as a string, written with no space after a comma (RFC 2253): "CN=a, OU=b" would never match.
    if (/(^|[^\\]),\s/.test(id)) return 'must be written as ZooKeeper writes the DN (RFC 2253), with no space after a comma: CN=keeper,OU=ops';
    return null;
  }
  if (scheme === 'sasl') return SASL_PRINCIPAL.test(id) ? null : 'must be sasl:<principal>, e.g. sasl:keeper or sasl:keeper@EXAMPLE.COM';
  return 'must be x509:<subject DN> or sasl:<principal> (the digest identity from the secret is always there)';
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

/** Refuses what cannot run, in a sentence; names only configured ensembles. */
export function checkReplicasOptions(options: ReplicasOptions, ensembleNames: readonly string[]): void {
  if (!ensembleNames.includes(options.stateEnsemble))
    throw new Error(`replicas.stateEnsemble "${options.stateEnsemble}" is not a configured ensemble (configured: ${ensembleNames.join(', ')})`);
  const problem = replicaRootProblem(options.root);
  if (problem) throw new Error(`replicas.root ${JSON.stringify(options.root)} ${problem}`);
  if (options.secret.length < MIN_CLUSTER_SECRET_LENGTH)
    throw new Error(`the replicas' cluster secret must be at least ${MIN_CLUSTER_SECRET_LENGTH} characters (try: openssl rand -base64 48)`);
  const identities = options.identities ?? [];
  if (identities.length > MAX_REPLICA_IDENTITIES)
    throw new Error(
      `replicas.identities lists ${identities.length} identities; at most ${MAX_REPLICA_IDENTITIES} (each is an ACL entry on every znode under the root)`,
    );
  for (const identity of identities) {
    const problem = replicaIdentityProblem(identity);
    if (problem) throw new Error(`replicas.identities: ${JSON.stringify(identity)} ${problem}`);
  }
  if (new Set(identities).size !== identities.length) throw new Error('replicas.identities lists an identity twice');
}
