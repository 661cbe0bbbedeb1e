/**
 * The JSON config file (--config / KEEPER_CONFIG), validated with zod so a mistake is
 * reported with the path of the bad field ("ensembles[1].auth[0].credential: ...").
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { grantSchema, locksConfigSchema, restartCommandSchema, startCommandErrors } from '@keeper/shared';
import { parseConnectionString } from './connectionString.js';
import { ConfigError } from './errors.js';
import type { AuthUserConfig, EnsembleConfig, LimitsConfig } from './types.js';
import type { Grant } from '@keeper/shared';
import { DEFAULT_REPLICAS_ROOT, DEFAULT_REPLICAS_SECRET_ENV, MAX_REPLICA_IDENTITIES, replicaIdentityProblem, replicaRootProblem } from './replicasConfig.js';

export const ENSEMBLE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
export const ENSEMBLE_NAME_RULE = '1-63 letters, digits, ".", "_" or "-", starting with a letter or digit';

const port = z.number().int().min(1).max(65535);

const connectionString = z.string().transform((value, ctx) => {
  const parsed = parseConnectionString(value);
  if (parsed.ok) return parsed.value.normalized;
  ctx.addIssue({ code: 'custom', message: parsed.reason });
  return z.NEVER;
});

const filePath = z.string().min(1).max(4096);

/** TLS to the client port: the CA that signs the members' certificates, and a client certificate for mutual TLS. */
const tlsSchema = z
  .strictObject({
    ca: filePath,
    cert: filePath.optional(),
    key: filePath.optional(),
    servername: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,253}$|^[0-9A-Fa-f:.]+$/, 'must be a host name or address')
      .optional(),
    rejectUnauthorized: z.boolean().optional(),
    adminServer: z.enum(['http', 'https']).optional(),
  })
  .refine((t) => (t.cert === undefined) === (t.key === undefined), {
    message: '"cert" and "key" go together (a client certificate and its key): give both or neither',
  });

const saslSchema = z.discriminatedUnion('mechanism', [
  z
    .strictObject({
      mechanism: z.literal('DIGEST-MD5'),
      username: z.string().min(1).max(256),
      passwordFile: filePath.optional(),
      passwordEnv: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name')
        .optional(),
    })
    .refine((s) => (s.passwordFile === undefined) !== (s.passwordEnv === undefined), {
      message: 'give the password in exactly one of "passwordFile" or "passwordEnv" (never in the config itself)',
    }),
  z.strictObject({
    mechanism: z.literal('GSSAPI'),
    principal: z.string().min(1).max(512),
    keytab: filePath,
    serviceName: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/)
      .optional(),
    serviceHost: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,253}$/)
      .optional(),
  }),
]);

const ensemble = z.strictObject({
  name: z.string().regex(ENSEMBLE_NAME, `must be ${ENSEMBLE_NAME_RULE}`),
  connectionString,
  auth: z
    .array(
      z.strictObject({
        scheme: z.literal('digest'),
        credential: z.string().regex(/^[^:]+:.*$/, 'must be "user:password"'),
      }),
    )
    .optional(),
  tls: tlsSchema.optional(),
  sasl: saslSchema.optional(),
  canBeReadOnly: z.boolean().optional(),
  members: z
    .array(z.strictObject({ host: z.string().min(1), clientPort: port, adminPort: port.optional() }))
    .min(1)
    .optional(),
  // ZooKeeper clamps it to 2..20 ticks; this only refuses what cannot be meant.
  sessionTimeoutMs: z.number().int().min(100).max(3_600_000).optional(),
  // The members' jute.maxbuffer; below 64 KiB nothing sensible fits, and a Java array holds at most 2^31-1.
  juteMaxBuffer: z.number().int().min(65_536).max(2_147_483_647).optional(),
  /** The Locks view: roots watched at once, in-house recipes, thresholds (shared/src/locks/config.ts). */
  locks: z.optional(locksConfigSchema),
  /** The Upgrades view's restart command (placeholders checked here, not at the first restart). */
  restartCommand: z.optional(restartCommandSchema),
  restartCommandTimeoutSeconds: z.number().int().positive().max(3600).optional(),
  /** Resizing: the super user's (or a /zookeeper/config writer's) digest credential, for the resize's own session only. */
  reconfigAuth: z.strictObject({ scheme: z.literal('digest'), credential: z.string().regex(/^[^:]+:.*$/, 'must be "user:password"') }).optional(),
  /** Resizing: how a member to add is started, shown to admins with its placeholders filled (Keeper never runs it). */
  startCommand: z
    .string()
    .max(2000)
    .superRefine((template, ctx) => {
      for (const message of startCommandErrors(template)) ctx.addIssue({ code: 'custom', message });
    })
    .optional(),
  upgradeSettleSeconds: z.number().int().min(0).max(3600).optional(),
});

const count = (max: number) => z.number().int().min(1).max(max);

/** Config "limits" (types.ts LimitsConfig): each bound must be a positive whole number. */
const limitsSchema = z.strictObject({
  socketsPerPerson: count(100_000).optional(),
  socketsPerIdentity: count(100_000).optional(),
  socketsForShareLinks: count(100_000).optional(),
  socketsReservedForAdmins: z.number().int().min(0).max(100_000).optional(),
  sockets: count(100_000).optional(),
  subscriptionsPerSocket: count(1_000_000).optional(),
  subscriptionsPerPerson: count(10_000_000).optional(),
  subscriptionsPerIdentity: count(10_000_000).optional(),
  subscriptionsForShareLinks: count(10_000_000).optional(),
  subscriptionsReservedForAdmins: z.number().int().min(0).max(10_000_000).optional(),
  subscriptions: count(10_000_000).optional(),
  subscribesPerSecond: count(1_000_000).optional(),
  subscribesPerSecondPerPerson: count(1_000_000).optional(),
  watchedPaths: count(10_000_000).optional(),
  socketBufferKiB: count(1_048_576).optional(),
  socketBuffersTotalMiB: count(1_048_576).optional(),
  socketStallSeconds: count(3_600).optional(),
  walks: count(1_000).optional(),
  walksReservedForAdmins: z.number().int().min(0).max(1_000).optional(),
  walksPerIdentity: count(1_000).optional(),
  walkReadsPerMinutePerIdentity: count(1_000_000_000).optional(),
  walkReadsPerMinuteForViewers: count(1_000_000_000).optional(),
});

export const fileConfigSchema = z.strictObject({
  limits: limitsSchema.optional(),
  ensembles: z
    .array(ensemble)
    .min(1, 'must list at least one ensemble')
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((e, i) => {
        if (seen.has(e.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate name "${e.name}"` });
        seen.add(e.name);
      });
    }),
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  webDist: z.string().min(1).optional(),
  trustProxy: z.union([z.boolean(), z.number().int().min(0).max(32), z.array(z.string().min(1).max(64)).max(100)]).optional(),
  allowedHosts: z
    .array(z.string().regex(/^[A-Za-z0-9.-]{1,253}$|^\[[0-9A-Fa-f:.]+\]$/, 'must be a host name (no scheme, no port)'))
    .max(100)
    .optional(),
  audit: z
    .strictObject({
      maxFileMiB: z.number().int().min(1).max(10_240).optional(),
      keepFiles: z.number().int().min(0).max(1_000).optional(),
      /** Each entry also as a JSON line on stdout ({"kind":"audit", ...}), for a log shipper. */
      stdout: z.boolean().optional(),
    })
    .optional(),
  metrics: z
    .strictObject({
      access: z.enum(['off', 'loopback', 'token']),
      tokenEnv: z
        .string()
        .regex(/^[A-Z_][A-Z0-9_]{0,63}$/, 'must name an environment variable, such as KEEPER_METRICS_TOKEN')
        .optional(),
    })
    .refine((m) => m.access !== 'token' || m.tokenEnv !== undefined, {
      message: 'access "token" needs "tokenEnv": the environment variable holding the token',
    })
    .optional(),
  rateLimits: z
    .strictObject({
      apiPerMinute: z.number().int().min(1).max(1_000_000).optional(),
      signInFailuresPerName: z.number().int().min(1).max(100_000).optional(),
      signInFailuresPerAddress: z.number().int().min(1).max(1_000_000).optional(),
    })
    .optional(),
  auth: z
    .strictObject({
      users: z
        .array(
          z
            .strictObject({
              name: z.string().regex(/^[A-Za-z0-9._@-]{1,64}$/, 'must be 1-64 letters, digits, ".", "_", "@" or "-"'),
              passwordHash: z
                .string()
                .regex(/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/, 'must be a bcrypt hash (make one with `npm run hash-password`), never the password'),
              role: z.enum(['admin', 'viewer']).optional(),
              /** Groups for `auth.grants`, instead of (or besides) a role. */
              groups: z.array(z.string().min(1).max(256)).max(200).optional(),
            })
            .refine((u) => u.role !== undefined || (u.groups?.length ?? 0) > 0, 'needs a "role" or "groups" (matched by "auth.grants")'),
        )
        .superRefine((list, ctx) => {
          const seen = new Set<string>();
          list.forEach((u, i) => {
            if (seen.has(u.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate user "${u.name}"` });
            seen.add(u.name);
          });
        })
        .optional(),
      allowedOrigins: z.array(z.url().regex(/^https?:\/\/[^/]+$/, 'must be an origin: scheme://host[:port], no path')).optional(),
      stateDir: z.string().min(1).optional(),
      sessionTtlMinutes: z
        .number()
        .int()
        .min(1)
        .max(60 * 24 * 30)
        .optional(),
      oidc: z
        .strictObject({
          issuer: z.url().regex(/^https?:\/\//, 'must be an http(s) URL'),
          clientId: z.string().min(1).max(256),
          /** The environment variable holding the client secret (never the secret itself); default KEEPER_OIDC_SECRET. */
          clientSecretEnv: z
            .string()
            .regex(/^[A-Z_][A-Z0-9_]{0,127}$/, 'must name an environment variable')
            .optional(),
          scopes: z
            .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, 'must be a scope token'))
            .min(1)
            .max(30)
            .optional(),
          groupsClaim: z.string().min(1).max(128).optional(),
          usernameClaim: z.string().min(1).max(128).optional(),
          /** "Sign in with <name>". */
          name: z.string().min(1).max(60).optional(),
        })
        .optional(),
      grants: z.array(grantSchema).max(1_000).optional(),
    })
    .optional(),
  publicUrl: z
    .url()
    .regex(/^https?:\/\/[^/?#]+\/?$/, 'must be scheme://host[:port], no path')
    .optional(),
  /** Several Keepers sharing their state in a home ensemble (docs/operating/replicas.md). */
  replicas: z
    .strictObject({
      stateEnsemble: z.string().regex(ENSEMBLE_NAME, `must be ${ENSEMBLE_NAME_RULE}`),
      root: z
        .string()
        .max(200)
        .superRefine((root, ctx) => {
          const problem = replicaRootProblem(root);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
      /** The environment variable holding the cluster secret (never the secret itself); default KEEPER_CLUSTER_SECRET. */
      secretEnv: z
        .string()
        .regex(/^[A-Z_][A-Z0-9_]{0,127}$/, 'must name an environment variable')
        .optional(),
      sharedPolling: z.boolean().optional(),
      /** Sign-in sessions kept in the home ensemble (256 buckets of at most maxSessions / 256 each). */
      maxSessions: z.number().int().min(256).max(100_000).optional(),
      /** Audit entries of every replica kept in the home ensemble (the shared recent window). */
      auditWindow: z.number().int().min(100).max(100_000).optional(),
      /** `x509:<DN>` / `sasl:<principal>` given every permission on the root and every znode under it, beside the digest entry. */
      identities: z
        .array(
          z.string().superRefine((identity, ctx) => {
            const problem = replicaIdentityProblem(identity);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          }),
        )
        .max(MAX_REPLICA_IDENTITIES)
        .refine((list) => new Set(list).size === list.length, 'lists an identity twice')
        .optional(),
    })
    .optional(),
});

export const REPLICAS_DEFAULTS = { root: DEFAULT_REPLICAS_ROOT, secretEnv: DEFAULT_REPLICAS_SECRET_ENV } as const;

export interface FileAuthConfig {
  users?: AuthUserConfig[];
  allowedOrigins?: string[];
  stateDir?: string;
  sessionTtlMinutes?: number;
  oidc?: { issuer: string; clientId: string; clientSecretEnv?: string; scopes?: string[]; groupsClaim?: string; usernameClaim?: string; name?: string };
  grants?: Grant[];
}

export interface FileConfig {
  limits?: LimitsConfig;
  ensembles: EnsembleConfig[];
  host?: string;
  port?: number;
  webDist?: string;
  auth?: FileAuthConfig;
  trustProxy?: boolean | number | string[];
  allowedHosts?: string[];
  audit?: { maxFileMiB?: number; keepFiles?: number; stdout?: boolean };
  publicUrl?: string;
  rateLimits?: { apiPerMinute?: number; signInFailuresPerName?: number; signInFailuresPerAddress?: number };
  metrics?: { access: 'off' | 'loopback' | 'token'; tokenEnv?: string | undefined };
  replicas?: {
    stateEnsemble: string;
    root?: string | undefined;
    secretEnv?: string | undefined;
    sharedPolling?: boolean | undefined;
    maxSessions?: number | undefined;
    auditWindow?: number | undefined;
    identities?: string[] | undefined;
  };
}

/** ensembles[1].auth[0].credential */
function issuePath(p: readonly PropertyKey[]): string {
  return p.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), '');
}

export function parseFileConfig(json: unknown, source: string): FileConfig {
  const result = fileConfigSchema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  ${issuePath(i.path) || '(top level)'}: ${i.message}`);
    throw new ConfigError(`invalid config ${source}:\n${problems.join('\n')}`);
  }
  const home = result.data.replicas?.stateEnsemble;
  if (home !== undefined && !result.data.ensembles.some((e) => e.name === home))
    throw new ConfigError(`invalid config ${source}:\n  replicas.stateEnsemble: "${home}" is not one of the configured ensembles`);
  const { webDist, auth, ...rest } = result.data;
  // Relative paths are relative to the config file, not to wherever Keeper was started.
  const relative = (p: string) => path.resolve(path.dirname(source), p);
  const config: FileConfig = webDist === undefined ? rest : { ...rest, webDist: relative(webDist) };
  config.ensembles = config.ensembles.map((e) => withAbsoluteFiles(e, relative));
  if (auth !== undefined) config.auth = auth.stateDir === undefined ? auth : { ...auth, stateDir: relative(auth.stateDir) };
  return config;
}

/** TLS and SASL files named relative to the config file. */
function withAbsoluteFiles(e: EnsembleConfig, relative: (p: string) => string): EnsembleConfig {
  const out = { ...e };
  if (e.tls) {
    out.tls = { ...e.tls, ca: relative(e.tls.ca), ...(e.tls.cert ? { cert: relative(e.tls.cert) } : {}), ...(e.tls.key ? { key: relative(e.tls.key) } : {}) };
  }
  if (e.sasl?.mechanism === 'DIGEST-MD5' && e.sasl.passwordFile) out.sasl = { ...e.sasl, passwordFile: relative(e.sasl.passwordFile) };
  if (e.sasl?.mechanism === 'GSSAPI') out.sasl = { ...e.sasl, keytab: relative(e.sasl.keytab) };
  return out;
}

export function loadFileConfig(file: string): FileConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config ${file} is not valid JSON: ${(err as Error).message}`);
  }
  return parseFileConfig(json, file);
}
