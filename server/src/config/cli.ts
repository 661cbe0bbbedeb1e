/**
 * `npm start` arguments and environment -> what to start. Precedence: command line, then
 * environment, then the config file, then defaults. With no ensemble given anywhere,
 * the plan asks for the local sandbox ensemble (started by scripts/start.ts).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseConnectionString } from './connectionString.js';
import { ConfigError } from './errors.js';
import { ENSEMBLE_NAME, ENSEMBLE_NAME_RULE, loadFileConfig, REPLICAS_DEFAULTS, type FileConfig } from './fileConfig.js';
import type { AuthOptions, KeeperOptions, MetricsAccess, TrustProxy } from './types.js';
import { MIN_CLUSTER_SECRET_LENGTH, type ReplicasOptions } from './replicasConfig.js';

export { ConfigError } from './errors.js';

export type Env = Record<string, string | undefined>;

export interface SandboxPlan {
  portOffset: number;
  /** Absolute. Outside the repository: ${XDG_STATE_HOME:-$HOME/.local/state}/keeper/sandbox. */
  stateDir: string;
  ensembleName: string;
  /** --from-older-build: members start on an older ZooKeeper build, so an upgrade is a real build change. */
  fromOlderBuild?: true;
  /** --secure: a production-like sandbox (TLS only, SASL DIGEST-MD5 required, read-only members). */
  secure?: true;
}

export type StartPlan =
  | { kind: 'help'; text: string }
  /** keeper.ensembles is empty exactly when sandbox is set: the launcher adds it once started. */
  | { kind: 'run'; keeper: KeeperOptions; sandbox: SandboxPlan | null };

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_ENSEMBLE_NAME = 'default';

export const START_USAGE = `Usage: keeper [options]            (from a checkout: npm start -- [options])

Starts Keeper. Without --zk or --config it launches a local 3-member ZooKeeper
sandbox (ports 2191-2193 + offset) and connects to it.

Options:
  --zk <host:port,...[/chroot]>  an existing ensemble          (env KEEPER_ZK)
  --name <name>                  its name in Keeper             (default "${DEFAULT_ENSEMBLE_NAME}")
  --config <file.json>           ensembles, auth, host, port    (env KEEPER_CONFIG)
  --port <n>                     HTTP port, 0 = any free one    (env PORT, default ${DEFAULT_PORT})
  --host <addr>                  HTTP bind address              (env HOST, default ${DEFAULT_HOST})
  --sandbox-port-offset <n>      move the sandbox's ports       (default 0)
  --state-dir <dir>              sandbox data and logs
                                 (default \${XDG_STATE_HOME:-~/.local/state}/keeper/sandbox)
  --from-older-build             start the sandbox on Debian's older ZooKeeper build
                                 (libzookeeper-java 3.8.0-11+deb12u1, fetched once with
                                 apt-get download into \${XDG_CACHE_HOME:-~/.cache}/keeper),
                                 so an upgrade in the Upgrades view is a real build
                                 change; if it cannot be fetched, the sandbox runs the
                                 installed build and says so
  --secure                       a production-like sandbox: TLS only (a CA of its own,
                                 certificates in <state dir>/tls), SASL DIGEST-MD5
                                 required, read-only members; Keeper configured for it
  --data-dir <dir>               Keeper's own state: sign-in token, share links,
                                 audit trail                   (env KEEPER_STATE_DIR,
                                 default \${XDG_STATE_HOME:-~/.local/state}/keeper/server)
  --help                         this text

Access (admins write, viewers read):
  KEEPER_ADMIN_TOKEN, KEEPER_VIEWER_TOKEN   tokens (16+ characters) for the API
                                 (Authorization: Bearer ...) and sign-in (/?token=...)
  config "auth": { "users": [ { "name", "passwordHash", "role": "admin"|"viewer",
                                 "groups": [...] } ],
                   "allowedOrigins": [...], "stateDir", "sessionTtlMinutes",
                   "oidc": { "issuer", "clientId", "clientSecretEnv", "scopes",
                             "groupsClaim", "usernameClaim", "name" },
                   "grants": [ { "group", "role": "admin"|"viewer" },
                               { "group", "role": "writer", "ensemble", "paths": [...] } ] }
                                 (make a hash with \`npm run hash-password\`)
  KEEPER_OIDC_SECRET             the OIDC client secret (or the variable clientSecretEnv names)
  KEEPER_PUBLIC_URL              https://keeper.example.com: the OIDC callback is
                                 <public URL>/auth/oidc/callback (config "publicUrl";
                                 default: each request's own, X-Forwarded-* with trustProxy)
  With none of these, Keeper generates an admin token (kept in the data dir), prints the
  sign-in URL, and listens on loopback only.

Behind a proxy, and bounds:
  KEEPER_TRUST_PROXY             true | <hops> | <addr,cidr,...>: client address from
                                 X-Forwarded-For, https from X-Forwarded-Proto
                                 (config "trustProxy"; default off)
  KEEPER_ALLOWED_HOSTS           host names this console answers to besides the bound
                                 address and loopback (config "allowedHosts")
  KEEPER_AUDIT_MAX_FILE_MIB      rotate the audit trail at this size (default 10;
                                 config "audit": { "maxFileMiB", "keepFiles" })
  KEEPER_AUDIT_KEEP_FILES        rotated audit files kept (default 4)
  KEEPER_AUDIT_STDOUT            true: each audit entry also as a JSON line on stdout
                                 ({"kind":"audit",...}; config "audit": { "stdout": true })
  config "rateLimits": { "apiPerMinute": 1200, "signInFailuresPerName": 10,
                         "signInFailuresPerAddress": 100 }
  config "limits" (every field optional; defaults in docs/operating/limits.md):
    "socketsPerPerson", "socketsPerIdentity", "socketsForShareLinks",
    "socketsReservedForAdmins", "sockets", "subscriptionsPerSocket", "subscriptionsPerPerson",
    "subscriptionsPerIdentity", "subscriptionsForShareLinks", "subscriptionsReservedForAdmins",
    "subscriptions", "subscribesPerSecond", "subscribesPerSecondPerPerson", "watchedPaths",
    "socketBufferKiB", "socketBuffersTotalMiB", "socketStallSeconds", "walks",
    "walksReservedForAdmins", "walksPerIdentity", "walkReadsPerMinutePerIdentity",
    "walkReadsPerMinuteForViewers"

Prometheus metrics (GET /metrics, text format):
  KEEPER_METRICS                 off | loopback | token   (default loopback: a scraper on
                                 this machine, never through a proxy; config "metrics":
                                 { "access": ..., "tokenEnv": "KEEPER_METRICS_TOKEN" })
  KEEPER_METRICS_TOKEN           the bearer token when access is token (16+ characters)

Several replicas behind a load balancer (docs/operating/replicas.md):
  config "replicas": { "stateEnsemble": "<a configured ensemble>", "root": "/keeper/replicas",
                       "secretEnv": "KEEPER_CLUSTER_SECRET", "sharedPolling": false,
                       "maxSessions": 10000, "auditWindow": 10000,
                       "identities": ["x509:CN=keeper,OU=ops", "sasl:keeper@EXAMPLE.COM"] }
                                 shared state under root in that ensemble, readable by the
                                 replicas' identity only (the digest from the secret, plus up
                                 to 8 x509/sasl identities of the home ensemble's TLS or SASL
                                 session); each replica registers there
  KEEPER_CLUSTER_SECRET          the cluster secret (32+ characters, the same on every
                                 replica), or the variable "secretEnv" names

Tuning and development:
  KEEPER_LOG_LEVEL               pino log level (default info); logs are JSON on stdout
  KEEPER_MEMBER_BACKOFF_MAX_MS   longest wait between retries of a member that does not
                                 answer (1,000-60,000; default 5,000)
  KEEPER_SESSIONS_CADENCE_MS     a sessions gathering (cons + dump) older than this is
                                 renewed when someone looks (10,000-600,000; default 60,000)
  KEEPER_HERD_LATENCY_MS         a request herd's latency gate (0-10,000; default 2; 0
                                 names any herd of similar high rates)
  KEEPER_WEB_DIST                serve the web app from this directory instead of the
                                 built-in one (config "webDist")
  KEEPER_TEST_HOLD_DELETE        tests only: <path>:<n> holds the first recursive delete
                                 of <path> after n deletes until it is cancelled

Config file (--config keeper.json):
  { "ensembles": [ {
      "name": "prod", "connectionString": "zk1:2181,zk2:2181/app",
      "auth": [ { "scheme": "digest", "credential": "user:pass" } ],
      "members": [ { "host": "zk1", "clientPort": 2181, "adminPort": 8080 } ],
      "sessionTimeoutMs": 30000, "juteMaxBuffer": 1048575,
      "restartCommand": ["ssh", "{host}", "sudo", "systemctl", "restart", "zookeeper"],
                        (an argv, run with no shell; a string is split into one;
                         a shell only when asked: { "shell": true, "line": "..." })
      "restartCommandTimeoutSeconds": 120,       (the Upgrades view's restart)
      "reconfigAuth": { "scheme": "digest", "credential": "super:pass" },
                        (resizing: a session with it only while a resize runs)
      "startCommand": "ssh {host} sudo systemctl start zookeeper",
                        (resizing: how a member to add is started, shown filled to admins)
      "upgradeSettleSeconds": 10,      (after each member is back and synced, 0-3,600)
      "tls": { "ca": "ca.pem", "cert": "keeper.pem", "key": "keeper.key",
               "servername": "zk.internal", "rejectUnauthorized": true,
               "adminServer": "http" | "https" },  (files re-read when they change)
      "sasl": { "mechanism": "DIGEST-MD5", "username": "keeper",
                "passwordFile": "keeper.password" | "passwordEnv": "ZK_PASSWORD" }
            | { "mechanism": "GSSAPI", "principal": "keeper@REALM", "keytab": "keeper.keytab",
                "serviceName": "zookeeper", "serviceHost": "zk1" },
      "canBeReadOnly": true,     (served by a member that lost quorum, read-only; default true)
      "locks": { "roots": ["/app/locks"], "maxTracked": 1000, "herdMinWatchers": 10,
                 "heldLongMs": 600000, "gatherIntervalMs": 15000,
                 "scanMaxRequests": 200000, "scanDeadlineMs": 600000,
                 "scanMaxChildrenDescended": 10000, "maxOpened": 100, "openedIdleMs": 300000,
                 "permits": { "/app/sem/leases": 3 },
                 "patterns": [ { "name": "jobs", "glob": "job-*" | "regex": "...",
                                 "kind": "exclusive" | "readWrite" | ...,
                                 "readerMarker", "writerMarker", "under": "/app",
                                 "waitersWatchPredecessor": true } ] } } ],
    "host": "127.0.0.1", "port": 8080, "webDist": "...", "auth": {...}, "limits": {...},
    "trustProxy": ..., "allowedHosts": [...], "audit": {...}, "rateLimits": {...},
    "metrics": {...}, "replicas": {...} }
`;

export const START_OPTIONS = {
  zk: { type: 'string' },
  name: { type: 'string' },
  config: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'sandbox-port-offset': { type: 'string' },
  'state-dir': { type: 'string' },
  'from-older-build': { type: 'boolean' },
  secure: { type: 'boolean' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function intOption(label: string, text: string, min: number, max: number): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(n >= min && n <= max)) throw new ConfigError(`${label} must be an integer from ${min} to ${max}, got "${text}"`);
  return n;
}

function nonEmpty(label: string, text: string): string {
  if (text.trim() === '') throw new ConfigError(`${label} must not be empty`);
  return text.trim();
}

function parseArgv(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: START_OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    // node:util's messages are good ("Unknown option '--prot'"); add where to look.
    throw new ConfigError(`${(err as Error).message.replace(/\.?$/, '.')} See --help.`);
  }
}

export function defaultStateDir(env: Env): string {
  const stateHome = env.XDG_STATE_HOME || path.join(env.HOME || '/tmp', '.local', 'state');
  return path.join(stateHome, 'keeper', 'sandbox');
}

export function defaultDataDir(env: Env): string {
  const stateHome = env.XDG_STATE_HOME || path.join(env.HOME || '/tmp', '.local', 'state');
  return path.join(stateHome, 'keeper', 'server');
}

const MIN_TOKEN_LENGTH = 16;

function token(label: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.trim().length < MIN_TOKEN_LENGTH) throw new ConfigError(`${label} must be at least ${MIN_TOKEN_LENGTH} characters (try: openssl rand -base64 32)`);
  return value.trim();
}

/** Who may sign in; the admin token is generated later (scripts/start.ts) when nothing is configured. */
function authOptions(values: ReturnType<typeof parseArgv>, env: Env, file: FileConfig | null, cwd: string): AuthOptions {
  const stateDir =
    values['data-dir'] !== undefined
      ? path.resolve(cwd, nonEmpty('--data-dir', values['data-dir']))
      : env.KEEPER_STATE_DIR
        ? path.resolve(cwd, env.KEEPER_STATE_DIR)
        : (file?.auth?.stateDir ?? defaultDataDir(env));
  const auth: AuthOptions = { stateDir };
  const adminToken = token('KEEPER_ADMIN_TOKEN', env.KEEPER_ADMIN_TOKEN);
  const viewerToken = token('KEEPER_VIEWER_TOKEN', env.KEEPER_VIEWER_TOKEN);
  if (adminToken !== undefined && adminToken === viewerToken) throw new ConfigError('KEEPER_ADMIN_TOKEN and KEEPER_VIEWER_TOKEN must differ');
  if (adminToken !== undefined) auth.adminToken = adminToken;
  if (viewerToken !== undefined) auth.viewerToken = viewerToken;
  if (file?.auth?.users?.length) auth.users = file.auth.users;
  if (file?.auth?.allowedOrigins?.length) auth.allowedOrigins = file.auth.allowedOrigins;
  if (file?.auth?.sessionTtlMinutes !== undefined) auth.sessionTtlMs = file.auth.sessionTtlMinutes * 60_000;
  if (file?.auth?.grants?.length) auth.grants = file.auth.grants;
  const oidc = file?.auth?.oidc;
  if (oidc) {
    const secretEnv = oidc.clientSecretEnv ?? 'KEEPER_OIDC_SECRET';
    const secret = env[secretEnv];
    if (oidc.clientSecretEnv !== undefined && !secret) throw new ConfigError(`auth.oidc.clientSecretEnv names ${secretEnv}, which is not set`);
    auth.oidc = {
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      ...(secret ? { clientSecret: secret } : {}),
      scopes: oidc.scopes ?? ['openid', 'profile', 'email', 'groups'],
      groupsClaim: oidc.groupsClaim ?? 'groups',
      ...(oidc.usernameClaim ? { usernameClaim: oidc.usernameClaim } : {}),
      name: oidc.name ?? new URL(oidc.issuer).host,
    };
  }
  return auth;
}

/** KEEPER_TRUST_PROXY: "true"/"false", a hop count, or a comma-separated list of addresses/CIDRs. */
function trustProxyOption(text: string): TrustProxy {
  const value = text.trim();
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return intOption('KEEPER_TRUST_PROXY', value, 0, 32);
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function publicUrlOption(text: string): string {
  const value = text.trim();
  if (!/^https?:\/\/[^/?#\s]+\/?$/.test(value)) throw new ConfigError(`KEEPER_PUBLIC_URL must be scheme://host[:port], no path, got "${text}"`);
  return value;
}

function booleanOption(label: string, text: string): boolean {
  const value = text.trim().toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0' || value === '') return false;
  throw new ConfigError(`${label} must be true or false, got "${text}"`);
}

function listOption(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Who may scrape /metrics: KEEPER_METRICS (off | loopback | token) over the config's
 * "metrics"; a token comes from KEEPER_METRICS_TOKEN or the variable the config names.
 */
function metricsAccess(env: Env, file: FileConfig | null): MetricsAccess | undefined {
  const chosen = env.KEEPER_METRICS?.trim() || file?.metrics?.access;
  if (chosen === undefined) return undefined; // startKeeper's default: loopback
  if (chosen === 'off' || chosen === 'loopback') return { access: chosen };
  if (chosen !== 'token') throw new ConfigError(`KEEPER_METRICS must be off, loopback or token, got "${chosen}"`);
  const variable = env.KEEPER_METRICS?.trim() === 'token' ? 'KEEPER_METRICS_TOKEN' : (file?.metrics?.tokenEnv ?? 'KEEPER_METRICS_TOKEN');
  const secret = token(variable, env[variable]);
  if (secret === undefined)
    throw new ConfigError(`metrics access "token" needs the token in ${variable} (at least ${MIN_TOKEN_LENGTH} characters; try: openssl rand -base64 32)`);
  return { access: 'token', token: secret };
}

/** The config's "replicas", with the cluster secret from the variable it names (never from the file). */
function replicasOptions(env: Env, file: FileConfig | null): ReplicasOptions | undefined {
  const r = file?.replicas;
  if (!r) return undefined;
  const variable = r.secretEnv ?? REPLICAS_DEFAULTS.secretEnv;
  const secret = env[variable]?.trim() ?? '';
  if (secret.length < MIN_CLUSTER_SECRET_LENGTH)
    throw new ConfigError(
      `"replicas" needs the cluster secret in ${variable}, the same on every replica (at least ${MIN_CLUSTER_SECRET_LENGTH} characters; try: openssl rand -base64 48)`,
    );
  return {
    stateEnsemble: r.stateEnsemble,
    root: r.root ?? REPLICAS_DEFAULTS.root,
    secret,
    sharedPolling: r.sharedPolling ?? false,
    ...(r.maxSessions !== undefined ? { maxSessions: r.maxSessions } : {}),
    ...(r.auditWindow !== undefined ? { auditWindow: r.auditWindow } : {}),
    ...(r.identities?.length ? { identities: r.identities } : {}),
  };
}

/** trustProxy, allowedHosts, audit rotation and rate limits: environment over the config file. */
function serving(env: Env, file: FileConfig | null): Pick<KeeperOptions, 'trustProxy' | 'allowedHosts' | 'audit' | 'rateLimits' | 'publicUrl'> {
  const out: Pick<KeeperOptions, 'trustProxy' | 'allowedHosts' | 'audit' | 'rateLimits' | 'publicUrl'> = {};
  const publicUrl = env.KEEPER_PUBLIC_URL ? publicUrlOption(env.KEEPER_PUBLIC_URL) : file?.publicUrl;
  if (publicUrl !== undefined) out.publicUrl = publicUrl.replace(/\/$/, '');
  const trust = env.KEEPER_TRUST_PROXY !== undefined ? trustProxyOption(env.KEEPER_TRUST_PROXY) : file?.trustProxy;
  if (trust !== undefined) out.trustProxy = trust;
  const hosts = env.KEEPER_ALLOWED_HOSTS ? listOption(env.KEEPER_ALLOWED_HOSTS) : file?.allowedHosts;
  if (hosts?.length) out.allowedHosts = hosts;
  const maxFileMiB = env.KEEPER_AUDIT_MAX_FILE_MIB ? intOption('KEEPER_AUDIT_MAX_FILE_MIB', env.KEEPER_AUDIT_MAX_FILE_MIB, 1, 10_240) : file?.audit?.maxFileMiB;
  const keepFiles = env.KEEPER_AUDIT_KEEP_FILES ? intOption('KEEPER_AUDIT_KEEP_FILES', env.KEEPER_AUDIT_KEEP_FILES, 0, 1_000) : file?.audit?.keepFiles;
  const stdout = env.KEEPER_AUDIT_STDOUT !== undefined ? booleanOption('KEEPER_AUDIT_STDOUT', env.KEEPER_AUDIT_STDOUT) : file?.audit?.stdout;
  if (maxFileMiB !== undefined || keepFiles !== undefined || stdout !== undefined) {
    out.audit = {
      ...(maxFileMiB !== undefined ? { maxFileBytes: maxFileMiB * 1024 * 1024 } : {}),
      ...(keepFiles !== undefined ? { keepFiles } : {}),
      ...(stdout !== undefined ? { stdout } : {}),
    };
  }
  const r = file?.rateLimits;
  if (r) {
    out.rateLimits = {
      ...(r.apiPerMinute !== undefined ? { api: r.apiPerMinute } : {}),
      ...(r.signInFailuresPerName !== undefined ? { loginFailures: r.signInFailuresPerName } : {}),
      ...(r.signInFailuresPerAddress !== undefined ? { loginFailuresPerAddress: r.signInFailuresPerAddress } : {}),
    };
  }
  return out;
}

/** The ensemble source: one of --zk / --config, else one of KEEPER_ZK / KEEPER_CONFIG. */
function pickSource(values: ReturnType<typeof parseArgv>, env: Env) {
  if (values.zk !== undefined && values.config !== undefined) throw new ConfigError('give either --zk or --config, not both');
  if (values.zk !== undefined) return { zk: values.zk, label: '--zk' };
  if (values.config !== undefined) return { config: values.config, label: '--config' };
  if (env.KEEPER_ZK && env.KEEPER_CONFIG) throw new ConfigError('set either KEEPER_ZK or KEEPER_CONFIG, not both');
  if (env.KEEPER_ZK) return { zk: env.KEEPER_ZK, label: 'KEEPER_ZK' };
  if (env.KEEPER_CONFIG) return { config: env.KEEPER_CONFIG, label: 'KEEPER_CONFIG' };
  return null;
}

export function parseStartArgs(argv: string[], env: Env, cwd: string = process.cwd()): StartPlan {
  const values = parseArgv(argv);
  if (values.help) return { kind: 'help', text: START_USAGE };

  const name = values.name === undefined ? DEFAULT_ENSEMBLE_NAME : values.name;
  if (!ENSEMBLE_NAME.test(name)) throw new ConfigError(`--name must be ${ENSEMBLE_NAME_RULE}, got "${name}"`);

  const source = pickSource(values, env);
  let file: FileConfig | null = null;
  let sandbox: SandboxPlan | null = null;
  const ensembles: KeeperOptions['ensembles'] = [];

  if (source?.zk !== undefined) {
    const parsed = parseConnectionString(source.zk);
    if (!parsed.ok) throw new ConfigError(`${source.label}: ${parsed.reason}`);
    ensembles.push({ name, connectionString: parsed.value.normalized });
  } else if (source?.config !== undefined) {
    if (values.name !== undefined) throw new ConfigError('--name names the --zk or sandbox ensemble; name ensembles in the config file');
    file = loadFileConfig(path.resolve(cwd, nonEmpty(source.label, source.config)));
    ensembles.push(...file.ensembles);
  }

  const sandboxFlag =
    values['sandbox-port-offset'] !== undefined
      ? '--sandbox-port-offset'
      : values['state-dir'] !== undefined
        ? '--state-dir'
        : values['from-older-build']
          ? '--from-older-build'
          : values.secure
            ? '--secure'
            : null;
  if (source === null) {
    sandbox = {
      portOffset: values['sandbox-port-offset'] === undefined ? 0 : intOption('--sandbox-port-offset', values['sandbox-port-offset'], 0, 57000),
      stateDir: path.resolve(cwd, values['state-dir'] === undefined ? defaultStateDir(env) : nonEmpty('--state-dir', values['state-dir'])),
      ensembleName: name,
      ...(values['from-older-build'] ? { fromOlderBuild: true as const } : {}),
      ...(values.secure ? { secure: true as const } : {}),
    };
  } else if (sandboxFlag !== null) {
    throw new ConfigError(`${sandboxFlag} is for the local sandbox; it has no effect with ${source.label}`);
  }

  const port =
    values.port !== undefined ? intOption('--port', values.port, 0, 65535) : env.PORT ? intOption('PORT', env.PORT, 0, 65535) : (file?.port ?? DEFAULT_PORT);
  const host = values.host !== undefined ? nonEmpty('--host', values.host) : env.HOST ? env.HOST.trim() : (file?.host ?? DEFAULT_HOST);

  const keeper: KeeperOptions = { host, port, ensembles, auth: authOptions(values, env, file, cwd), ...serving(env, file) };
  const metrics = metricsAccess(env, file);
  if (metrics) keeper.metrics = metrics;
  const replicas = replicasOptions(env, file);
  if (replicas) keeper.replicas = replicas;
  if (file?.webDist !== undefined) keeper.webDist = file.webDist;
  if (file?.limits !== undefined) keeper.limits = file.limits;
  return { kind: 'run', keeper, sandbox };
}
