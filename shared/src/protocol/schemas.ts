/**
 * The WebSocket protocol between browser and server: one source for both sides.
 * Every message is a zod schema in a discriminated union on `type`; both ends safeParse.
 */
import { z } from 'zod';
import { CONSOLE_SESSION_STATES } from '../consoleSession.js';
import { ensembleHealthSchema, memberHistorySchema } from '../ensemble/types.js';
import { CREATE_MODES, INPUT_ENCODINGS, aclEntryInputSchema, jobSnapshotSchema } from './ops.js';

/** Bumped on any incompatible change; checked in the hello handshake. */
export const PROTOCOL_VERSION = 2;

/** WebSocket close code for a protocol version the server does not speak (4000-4999 is for applications). */
export const CLOSE_PROTOCOL_MISMATCH = 4001;
export const CLOSE_NO_HELLO = 4002;
/** The identity behind the socket ended: share link revoked or expired, signed out, session expired. */
export const CLOSE_ACCESS_ENDED = 4003;
/** Too many sockets for this identity or for the server: the reason says which; retry much later, not at once. */
export const CLOSE_TOO_MANY_SOCKETS = 4004;

/** Largest client frame the server accepts; anything bigger is refused unread. */
export const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

const ensembleName = z.string().min(1).max(100);
const znodePath = z.string().min(1).max(4096);
const requestId = z.string().max(100).optional();

export const clientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), protocolVersion: z.number().int(), id: requestId }),
  z.object({ type: z.literal('subscribe'), ensemble: ensembleName, path: znodePath, id: requestId }),
  z.object({ type: z.literal('unsubscribe'), ensemble: ensembleName, path: znodePath, id: requestId }),
  /** Member health for the ensemble view: the poller's result, pushed after every poll. */
  z.object({ type: z.literal('watchEnsemble'), ensemble: ensembleName, id: requestId }),
  z.object({ type: z.literal('unwatchEnsemble'), ensemble: ensembleName, id: requestId }),
  z.object({ type: z.literal('ping'), id: requestId }),
  // Admin operations (the same as the HTTP API's; a viewer gets an error with code `forbidden`).
  // Each is answered by a `result` with the same id. Data travels in one frame, so over the
  // socket it is limited by MAX_CLIENT_FRAME_BYTES; larger values go through the HTTP API.
  z.object({
    type: z.literal('create'),
    ensemble: ensembleName,
    path: znodePath,
    data: z.string().max(MAX_CLIENT_FRAME_BYTES).optional(),
    encoding: z.enum(INPUT_ENCODINGS).optional(),
    mode: z.enum(CREATE_MODES).optional(),
    id: requestId,
  }),
  z.object({
    type: z.literal('setData'),
    ensemble: ensembleName,
    path: znodePath,
    data: z.string().max(MAX_CLIENT_FRAME_BYTES),
    encoding: z.enum(INPUT_ENCODINGS).optional(),
    version: z.number().int().min(0).max(2_147_483_647),
    id: requestId,
  }),
  /** `recursive: true` starts a job; the result carries its id and `job` events follow. */
  z.object({
    type: z.literal('delete'),
    ensemble: ensembleName,
    path: znodePath,
    version: z.number().int().min(0).max(2_147_483_647),
    recursive: z.boolean().optional(),
    id: requestId,
  }),
  z.object({
    type: z.literal('setAcl'),
    ensemble: ensembleName,
    path: znodePath,
    acl: z.array(aclEntryInputSchema).min(1).max(100),
    version: z.number().int().min(0).max(2_147_483_647),
    /** The path, typed by the operator, when the ACL would lock the console out (as the HTTP API's `confirm`). */
    confirm: z.string().max(4096).optional(),
    id: requestId,
  }),
  z.object({ type: z.literal('cancelJob'), jobId: z.string().min(1).max(100), id: requestId }),
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

/** Client messages that change something: refused (`forbidden`) unless the socket's identity is an admin. */
export const MUTATION_MESSAGE_TYPES = ['create', 'setData', 'delete', 'setAcl', 'cancelJob'] as const;
export type MutationMessage = Extract<ClientMessage, { type: (typeof MUTATION_MESSAGE_TYPES)[number] }>;

export const statSchema = z.object({
  czxid: z.string(),
  mzxid: z.string(),
  pzxid: z.string(),
  ctime: z.number(),
  mtime: z.number(),
  version: z.number(),
  cversion: z.number(),
  aversion: z.number(),
  /** '0x0' for persistent nodes, else the owning session id. */
  ephemeralOwner: z.string(),
  dataLength: z.number(),
  numChildren: z.number(),
});
export type ZnodeStat = z.infer<typeof statSchema>;

export const encodedDataSchema = z.object({
  encoding: z.enum(['utf8', 'json', 'base64']),
  value: z.string(),
  size: z.number(),
  truncated: z.boolean(),
});

const timelineEntrySchema = z.object({
  at: z.number(),
  state: z.enum(CONSOLE_SESSION_STATES),
  sessionId: z.string().nullable(),
  member: z.string().nullable(),
  note: z.string().optional(),
});

export const sessionSnapshotSchema = z.object({
  state: z.enum(CONSOLE_SESSION_STATES),
  sessionId: z.string().nullable(),
  member: z.string().nullable(),
  since: z.number(),
  timeoutMs: z.number(),
  sessionsOpened: z.number(),
  confirmedAt: z.number().nullable(),
  establishedAt: z.number().nullable(),
  timeline: z.array(timelineEntrySchema),
});

export const ensembleSummarySchema = z.object({
  name: z.string(),
  /** Connection string without credentials. */
  connectionString: z.string(),
  session: sessionSnapshotSchema,
});
export type EnsembleSummary = z.infer<typeof ensembleSummarySchema>;

export const WATCH_EVENT_TYPES = ['created', 'deleted', 'dataChanged', 'childrenChanged'] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];

export const ERROR_CODES = [
  'malformed',
  'unknownType',
  'protocolMismatch',
  'notHello',
  'invalidPath',
  'unknownEnsemble',
  'tooManySubscriptions',
  'zookeeper',
  /** The socket's identity may not do this (a viewer or share-link holder asking for a mutation). */
  'forbidden',
  /** Too many mutation messages from this address (the API's rate limit, applied to the socket). */
  'rateLimited',
  /** Outside what the socket's share link reaches (its subtree, or the ensemble views it does not allow). */
  'outOfScope',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** A znode as one subscriber sees it; `exists: false` when it is absent (and watched for creation). */
export const znodeStateSchema = z.discriminatedUnion('exists', [
  z.object({ exists: z.literal(true), stat: statSchema, data: encodedDataSchema }),
  z.object({ exists: z.literal(false) }),
]);
export type ZnodeState = z.infer<typeof znodeStateSchema>;

/** Everything inside a batch: the events the server streams. */
export const serverEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session'), ensemble: z.string(), session: sessionSnapshotSchema }),
  z.object({ type: z.literal('znode'), ensemble: z.string(), path: z.string(), node: znodeStateSchema, at: z.number() }),
  z.object({
    type: z.literal('children'),
    ensemble: z.string(),
    path: z.string(),
    /** 'full' replaces the list; 'diff' applies added/removed to the last list. */
    mode: z.enum(['full', 'diff']),
    names: z.array(z.string()).optional(),
    added: z.array(z.string()).optional(),
    removed: z.array(z.string()).optional(),
    total: z.number(),
  }),
  z.object({
    type: z.literal('watchEvent'),
    ensemble: z.string(),
    path: z.string(),
    event: z.enum(WATCH_EVENT_TYPES),
    at: z.number(),
  }),
  z.object({ type: z.literal('ensembleHealth'), ensemble: z.string(), health: ensembleHealthSchema }),
  z.object({
    type: z.literal('memberHistory'),
    ensemble: z.string(),
    /** 'full' on watchEnsemble (~15 min), then 'append' with each poll's new points. */
    mode: z.enum(['full', 'append']),
    history: memberHistorySchema,
  }),
  z.object({
    type: z.literal('subscriptionError'),
    ensemble: z.string(),
    path: z.string(),
    message: z.string(),
    /** The server keeps retrying with back-off; this says the view is stale meanwhile. */
    retrying: z.boolean(),
  }),
  /** Progress of a long operation (recursive delete, import); sent to admins' sockets. */
  z.object({ type: z.literal('job'), job: jobSnapshotSchema }),
]);
export type ServerEvent = z.infer<typeof serverEventSchema>;

export const serverMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('welcome'),
    protocolVersion: z.number(),
    serverVersion: z.string(),
    ensembles: z.array(ensembleSummarySchema),
  }),
  z.object({ type: z.literal('batch'), events: z.array(serverEventSchema) }),
  z.object({ type: z.literal('error'), code: z.enum(ERROR_CODES), message: z.string(), id: z.string().optional() }),
  z.object({ type: z.literal('ack'), id: z.string() }),
  z.object({ type: z.literal('pong'), id: z.string().optional(), at: z.number() }),
  /**
   * The answer to an admin operation. `ok: false` carries the same error the HTTP API gives
   * (`BAD_VERSION`, `NO_NODE`, `DATA_TOO_LARGE`, ...) and, on a stale version, the current value.
   */
  z.object({
    type: z.literal('result'),
    id: z.string().optional(),
    op: z.enum(MUTATION_MESSAGE_TYPES),
    ok: z.boolean(),
    ensemble: z.string().optional(),
    path: z.string().optional(),
    stat: statSchema.optional(),
    /** create: the path created (differs from `path` for sequential modes). */
    created: z.string().optional(),
    /** delete with recursive: the job that does it. */
    jobId: z.string().optional(),
    /** Something the operator should know (an ephemeral node belongs to the console's session). */
    warning: z.string().optional(),
    /** What happened when the first reply was lost ("reply lost; read back: applied"). */
    note: z.string().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    current: z.object({ stat: statSchema, data: encodedDataSchema }).optional(),
  }),
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;

/** A short description of any JSON value for an error message: never recursive, never long. */
function describeValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/** Parses a raw frame into a client message, or says precisely why it is not one. */
export function parseClientMessage(raw: string): { ok: true; message: ClientMessage } | { ok: false; code: ErrorCode; message: string; id?: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, code: 'malformed', message: 'frame is not valid JSON' };
  }
  const rawId = typeof json === 'object' && json !== null ? (json as { id?: unknown }).id : undefined;
  // An id longer than the schema allows is not echoed: replies stay small whatever was sent.
  const id = typeof rawId === 'string' && rawId.length <= 100 ? rawId : undefined;
  const type = typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined;
  const known = clientMessageSchema.options.some((o) => o.shape.type.value === type);
  if (!known) {
    return { ok: false, code: 'unknownType', message: `unknown message type ${describeValue(type)}`, ...(id !== undefined ? { id } : {}) };
  }
  const parsed = clientMessageSchema.safeParse(json);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { ok: false, code: 'malformed', message: `invalid ${String(type)} message: ${detail}`, ...(id !== undefined ? { id } : {}) };
  }
  return { ok: true, message: parsed.data };
}
