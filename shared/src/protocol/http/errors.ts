/**
 * Every error code the HTTP API answers with, and the one HTTP status each is sent with. The
 * server sends statuses from this table only (server/src/http/apiErrors.ts), the OpenAPI
 * document lists them per route, and scripts can switch on the code without guessing.
 */
import { z } from 'zod/mini';
import { encodedDataSchema, statSchema } from '../schemas.js';

export const API_ERROR_STATUS = {
  // The request itself.
  BAD_REQUEST: 400,
  MALFORMED_URL: 400,
  MALFORMED_JSON: 400,
  INVALID_BODY: 400,
  INVALID_QUERY: 400,
  INVALID_PATH: 400,
  INVALID_DATA: 400,
  INVALID_ACL: 400,
  INVALID_SCOPE: 400,
  DATA_TOO_LARGE: 400,
  PROTECTED_PATH: 400,
  /** An import the dry run finds problems in (sizes, duplicate paths, ACLs): nothing written. */
  IMPORT_REFUSED: 400,
  UNKNOWN_MEMBER: 400,
  AUTH_NOT_CONFIGURED: 400,
  NO_CHILDREN_FOR_EPHEMERALS: 400,
  BAD_ARGUMENTS: 400,
  // Who is asking.
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  CSRF: 403,
  /** A share-link holder asked for something outside its link's scope. */
  OUT_OF_SCOPE: 403,
  /** ZooKeeper's ACL refuses the console. */
  NO_AUTH: 403,
  /** Signed in, but in no group `auth.grants` gives anything: the message names the groups that would. */
  NO_ACCESS: 403,
  AUTH_FAILED: 403,
  // What was named.
  NOT_FOUND: 404,
  UNKNOWN_ENSEMBLE: 404,
  NO_NODE: 404,
  UNKNOWN_JOB: 404,
  /** No lock scan of that id is kept (the last 10 per ensemble are). */
  UNKNOWN_SCAN: 404,
  UNKNOWN_SHARE_LINK: 404,
  // State that disagrees.
  /** The body carries `current` (the value as it is now) when the console may read it. */
  BAD_VERSION: 409,
  NODE_EXISTS: 409,
  NOT_EMPTY: 409,
  JOB_FINISHED: 409,
  /** The new ACL would take read or admin from the console: send `confirm` equal to the path. */
  ACL_LOCKS_OUT: 409,
  /** A walk stopped because its caller went away (rarely seen: nobody is left to read it). */
  CANCELLED: 409,
  /** A lock contender changed since the caller saw it (another node, owner or version): nothing deleted. */
  LOCK_CHANGED: 409,
  /** The contender holds the lock now: deleting it lets the next waiter in while its owner still believes it holds. Send `confirmHolder` equal to its name. */
  LOCK_HOLDER: 409,
  /** The directory is not (or no longer) a lock Keeper recognizes. */
  NOT_A_LOCK: 404,
  /** A lock scan is already running on this ensemble (one at a time, shared). */
  SCAN_IN_PROGRESS: 409,
  /** Keeper tracks as many lock directories as it may (locks.maxTracked). */
  TOO_MANY_LOCKS: 409,
  /** Keeper keeps as many share links as it may (MAX_SHARE_LINKS, ended ones included until forgotten). */
  TOO_MANY_SHARE_LINKS: 409,
  /** An upgrade of this ensemble is planned, running or paused already (one per ensemble, across Keeper processes). */
  UPGRADE_IN_PROGRESS: 409,
  /** The workflow or step cannot take this action now (the message says why: state, gates, a missing confirmation). */
  UPGRADE_REFUSED: 409,
  UNKNOWN_UPGRADE: 404,
  /** A resize the planner refuses, or an action its workflow cannot take now (the message says why). */
  RECONFIG_REFUSED: 409,
  UNKNOWN_RECONFIG: 404,
  TOO_MANY_NODES: 413,
  BODY_TOO_LARGE: 413,
  HOST_NOT_ALLOWED: 421,
  // Slow down (with Retry-After).
  RATE_LIMITED: 429,
  WALK_IN_PROGRESS: 429,
  WALKS_BUSY: 429,
  WALK_BUDGET_SPENT: 429,
  // Keeper or ZooKeeper.
  INTERNAL: 500,
  /** A write whose reply was lost and whose outcome could not be read back. */
  OUTCOME_UNKNOWN: 502,
  /** Any other ZooKeeper failure; the message names ZooKeeper's own code. */
  ZOOKEEPER_ERROR: 502,
  SYSTEM_ERROR: 502,
  RUNTIME_INCONSISTENCY: 502,
  DATA_INCONSISTENCY: 502,
  MARSHALLING_ERROR: 502,
  UNIMPLEMENTED: 502,
  API_ERROR: 502,
  INVALID_CALLBACK: 502,
  NEW_CONFIG_NO_QUORUM: 502,
  RECONFIG_IN_PROGRESS: 502,
  RECONFIG_DISABLED: 502,
  NOT_READ_ONLY: 502,
  EPHEMERAL_ON_LOCAL_SESSION: 502,
  NO_WATCHER: 502,
  SESSION_CLOSED_REQUIRE_SASL_AUTH: 502,
  QUOTA_EXCEEDED: 502,
  NOT_READY: 503,
  GATHER_FAILED: 503,
  NOT_CONNECTED: 503,
  CONNECTION_LOSS: 503,
  SESSION_EXPIRED: 503,
  SESSION_MOVED: 503,
  UNKNOWN_SESSION: 503,
  OVERLOADED: 503,
  THROTTLED_OP: 503,
  CLOSED: 503,
  OPERATION_TIMEOUT: 504,
  REQUEST_TIMEOUT: 504,
  DEADLINE_EXCEEDED: 504,
} as const satisfies Record<string, number>;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;
export const API_ERROR_CODES = Object.keys(API_ERROR_STATUS) as [ApiErrorCode, ...ApiErrorCode[]];
export const apiErrorCodeSchema = z.enum(API_ERROR_CODES);

export function isApiErrorCode(code: string): code is ApiErrorCode {
  return Object.hasOwn(API_ERROR_STATUS, code);
}

export function statusOfCode(code: ApiErrorCode): number {
  return API_ERROR_STATUS[code];
}

/** Every error answer: `{error:{code,message}}`; a 409 BAD_VERSION adds the value as it is now. */
export function errorAnswerSchemaOf(codes: readonly [ApiErrorCode, ...ApiErrorCode[]]) {
  const error = z.object({ code: z.enum(codes), message: z.string() });
  if (!codes.includes('BAD_VERSION')) return z.object({ error });
  return z.object({
    error,
    /** BAD_VERSION: what won, so the caller can show the conflict (absent when the console may not read it). */
    current: z.optional(z.object({ stat: statSchema, data: encodedDataSchema })),
  });
}

export const errorAnswerSchema = errorAnswerSchemaOf(API_ERROR_CODES);
export type ErrorAnswer = z.infer<typeof errorAnswerSchema>;
