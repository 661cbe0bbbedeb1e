/**
 * The WebSocket protocol between browser and server: one source for both sides.
 * Every message is a zod schema in a discriminated union on `type`; both ends safeParse.
 */
import { z } from 'zod/mini';
import { TOPIC_NAMES, consoleSessionSnapshotSchema, topicMessageSchema, type TopicMessage, type TopicName } from './topics.js';

export { statSchema, encodedDataSchema, type ZnodeStat } from './znodeSchemas.js';
export * from './topics.js';

/**
 * Bumped on any incompatible change; checked in the hello handshake. 3: every feed is a topic
 * (subscribe {topic, ensemble, params}); the socket carries no writes (they go over HTTP).
 * 4: big child lists come in pages; `resync` after events were dropped for a browser that fell
 * behind; errors may name the subscription they concern and when to retry.
 */
export const PROTOCOL_VERSION = 4;

/** WebSocket close code for a protocol version the server does not speak (4000-4999 is for applications). */
export const CLOSE_PROTOCOL_MISMATCH = 4001;
export const CLOSE_NO_HELLO = 4002;
/** The identity behind the socket ended: share link revoked or expired, signed out, session expired. */
export const CLOSE_ACCESS_ENDED = 4003;
/** Too many sockets for this identity or for the server: the reason says which; retry much later, not at once. */
export const CLOSE_TOO_MANY_SOCKETS = 4004;

/** Largest client frame the server accepts; anything bigger is refused unread. */
export const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

/** The sentence an out-of-date page (or server) gets: the page must reload to speak the new protocol. */
export function protocolMismatchMessage(serverVersion: number, pageVersion: number): string {
  return `Keeper was updated: reload this page (the server speaks protocol ${serverVersion}, this page ${pageVersion})`;
}

const ensembleName = z.string().check(z.minLength(1), z.maxLength(100));
const requestId = z.optional(z.string().check(z.maxLength(100)));

export const clientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), protocolVersion: z.int(), id: requestId }),
  /**
   * Parameters are checked against the topic's own schema by the hub, after the role: a viewer
   * asking for an admin topic is refused before anything it sent is read further.
   */
  z.object({
    type: z.literal('subscribe'),
    topic: z.enum(TOPIC_NAMES as [TopicName, ...TopicName[]]),
    ensemble: ensembleName,
    params: z.unknown(),
    id: requestId,
  }),
  z.object({
    type: z.literal('unsubscribe'),
    topic: z.enum(TOPIC_NAMES as [TopicName, ...TopicName[]]),
    ensemble: ensembleName,
    params: z.unknown(),
    id: requestId,
  }),
  z.object({ type: z.literal('ping'), id: requestId }),
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

export const ensembleSummarySchema = z.object({
  name: z.string(),
  /** Connection string without credentials. */
  connectionString: z.string(),
  session: consoleSessionSnapshotSchema,
});
export type EnsembleSummary = z.infer<typeof ensembleSummarySchema>;

export const ERROR_CODES = [
  'malformed',
  'unknownType',
  'protocolMismatch',
  'notHello',
  /** The topic's parameters do not match its schema (an invalid path, say). */
  'invalidParams',
  'unknownEnsemble',
  'tooManySubscriptions',
  'zookeeper',
  /** The socket's identity may not subscribe to this topic (a viewer asking for an admin topic). */
  'forbidden',
  /** Outside what the socket's share link reaches (its subtree, or the ensemble views it does not allow). */
  'outOfScope',
  /** Subscribing too fast: retry after `retryAfterMs`. */
  'rateLimited',
  /** An event bigger than a socket may carry: the subscription gets this instead of it. */
  'tooLarge',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const serverMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('welcome'),
    protocolVersion: z.number(),
    serverVersion: z.string(),
    ensembles: z.array(ensembleSummarySchema),
  }),
  z.object({ type: z.literal('batch'), events: z.array(topicMessageSchema) }),
  z.object({
    type: z.literal('error'),
    code: z.enum(ERROR_CODES),
    message: z.string(),
    id: z.optional(z.string()),
    /** The subscription the error concerns, when it is not an answer to a request (an event refused as too large). */
    subscription: z.optional(z.object({ topic: z.enum(TOPIC_NAMES as [TopicName, ...TopicName[]]), ensemble: z.string(), params: z.unknown() })),
    /** `rateLimited`: the request may be sent again after this long. */
    retryAfterMs: z.optional(z.number()),
  }),
  z.object({ type: z.literal('ack'), id: z.string() }),
  z.object({ type: z.literal('pong'), id: z.optional(z.string()), at: z.number() }),
  /**
   * The server dropped events it could not send this socket in time (it fell behind): every
   * subscription is still held, but what the page shows may have missed changes. Subscribe again
   * to each (each answers with its current state).
   */
  z.object({
    type: z.literal('resync'),
    reason: z.string(),
    /** Server time of the first event dropped: what the page shows is complete only up to then. */
    since: z.number(),
  }),
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;
/** What a batch carries: events of subscriptions, each tagged with its topic, ensemble and parameters. */
export type ServerEvent = TopicMessage;

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
  const known = clientMessageSchema.def.options.some((o) => o.shape.type.def.values[0] === type);
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
