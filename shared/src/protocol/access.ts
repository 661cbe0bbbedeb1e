/**
 * Who is asking, and what the server remembers about it: sign-in, share links and the audit
 * trail (HTTP shapes, shared so the web app and scripts agree with the server).
 */
import { z } from 'zod/mini';
import { shareScopeChoiceSchema, shareScopeSchema } from '../shareScope.js';
import { rightsSchema } from '../grants.js';

/** admin: everything; viewer: read only; writer: read, and change znodes in its granted subtrees (grants.ts). */
export const ROLES = ['admin', 'viewer', 'writer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * How a request was identified. `open` is the development mode with no identity configured
 * (loopback only): every caller is an admin.
 */
export const IDENTITY_VIAS = ['cookie', 'bearer', 'share', 'open'] as const;
export type IdentityVia = (typeof IDENTITY_VIAS)[number];

/** The header a cookie-authenticated write must carry, with the value from GET /api/me. */
export const CSRF_HEADER = 'X-CSRF-Token';
export const SESSION_COOKIE = 'keeper_session';

export const loginBodySchema = z.union([
  z.strictObject({ username: z.string().check(z.minLength(1), z.maxLength(200)), password: z.string().check(z.minLength(1), z.maxLength(1024)) }),
  z.strictObject({ token: z.string().check(z.minLength(1), z.maxLength(1024)) }),
]);
export type LoginBody = z.infer<typeof loginBodySchema>;

export const meAnswerSchema = z.object({
  name: z.string(),
  role: z.enum(ROLES),
  via: z.enum(IDENTITY_VIAS),
  /** For cookie (and share) sessions: send it as X-CSRF-Token on every POST/PUT/DELETE. */
  csrfToken: z.optional(z.string()),
  /** For a share-link session: the link it is bound to. */
  shareLink: z.optional(z.object({ id: z.string(), path: z.string(), expiresAt: z.number(), scope: z.optional(shareScopeSchema) })),
  /** What this identity may do (the "who am I" panel; the UI offers only that). */
  rights: z.optional(rightsSchema),
  /** The groups the identity provider (or the config) gave this person. */
  groups: z.optional(z.array(z.string())),
  /** How this person signed in, in words: "password", "token", "Dex" (the provider's name). */
  signedInWith: z.optional(z.string()),
  /** When this sign-in ends (cookie sessions). */
  expiresAt: z.optional(z.number()),
});
export type MeAnswer = z.infer<typeof meAnswerSchema>;

/** GET /api/sign-in-methods (no identity needed): which tabs the sign-in page offers. */
export const signInMethodsSchema = z.object({
  password: z.boolean(),
  token: z.boolean(),
  /** The browser's previous session, when it ended and the server still remembers why. */
  ended: z.optional(z.object({ reason: z.string(), at: z.number() })),
  /** Single sign-on: the button "Sign in with <name>" goes to `url`. */
  oidc: z.optional(z.object({ name: z.string(), url: z.string() })),
});
export type SignInMethods = z.infer<typeof signInMethodsSchema>;

export const MAX_SHARE_LINK_MINUTES = 60 * 24 * 30;

export const createShareLinkBodySchema = z.strictObject({
  /** A page of the console: /ensembles/<name>/znodes/<path>, /ensembles/<name>/members, ... */
  path: z.string().check(z.minLength(1), z.maxLength(2048), z.regex(/^\/(?!\/)[^\s\\]*$/, 'must be a path on this console, starting with a single /')),
  expiresInMinutes: z.int().check(z.gte(1), z.lte(MAX_SHARE_LINK_MINUTES)),
  note: z.optional(z.string().check(z.maxLength(200))),
  /** What the holder may reach; by default the opened znode's subtree, no ensemble views (shareScope.ts). */
  scope: z.optional(shareScopeChoiceSchema),
});
export type CreateShareLinkBody = z.infer<typeof createShareLinkBodySchema>;

export const shareLinkSchema = z.object({
  id: z.string(),
  path: z.string(),
  createdBy: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
  revokedAt: z.optional(z.number()),
  note: z.optional(z.string()),
  /** What the holder may reach (links stored without one get legacyScope of their path). */
  scope: shareScopeSchema,
  /** Open sockets bound to this link right now. */
  activeSockets: z.optional(z.number()),
});
export type ShareLinkView = z.infer<typeof shareLinkSchema>;

/** Only in the answer to POST: the token is shown once and stored hashed. */
export const createdShareLinkSchema = z.extend(shareLinkSchema, { url: z.string() });

/** Size and hash of a value: enough to tell what changed without keeping the data. */
export const dataFingerprintSchema = z.object({ version: z.number(), size: z.number(), sha256: z.string() });
export type DataFingerprint = z.infer<typeof dataFingerprintSchema>;

export const AUDIT_OUTCOMES = ['ok', 'refused', 'failed'] as const;

/** Everything the audit trail records; a new kind of change adds its word here first. */
export const AUDIT_ACTIONS = [
  'login',
  'logout',
  'create',
  'setData',
  'delete',
  'deleteRecursive',
  'setAcl',
  'import',
  'cancelJob',
  'lock.delete',
  'lock.clean',
  'lock.scan',
  'upgrade.create',
  'upgrade.action',
  'upgrade.step',
  'reconfig.create',
  'reconfig.action',
  'reconfig.step',
  'shareLink.create',
  'shareLink.use',
  'shareLink.revoke',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const auditEntrySchema = z.object({
  /** Increasing; `GET /api/audit?before=<seq>` pages backwards. */
  seq: z.number(),
  at: z.number(),
  actor: z.object({ name: z.string(), role: z.nullable(z.enum(ROLES)), via: z.string() }),
  action: z.enum(AUDIT_ACTIONS),
  outcome: z.enum(AUDIT_OUTCOMES),
  ensemble: z.optional(z.string()),
  path: z.optional(z.string()),
  before: z.optional(z.nullable(dataFingerprintSchema)),
  after: z.optional(z.nullable(dataFingerprintSchema)),
  error: z.optional(z.object({ code: z.string(), message: z.string() })),
  note: z.optional(z.string()),
  remoteAddress: z.optional(z.string()),
  details: z.optional(z.record(z.string(), z.unknown())),
  /** Fields cut to their bound before recording (e.g. a refused request's 15 KB path). */
  truncated: z.optional(z.array(z.string())),
  /**
   * With replicas (docs/operating/replicas.md), in the shared window: the replica that recorded it, and its
   * `seq` in that replica's own file (`seq` above is then its place in the shared window).
   */
  replica: z.optional(z.object({ id: z.string(), name: z.string(), seq: z.number() })),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;
