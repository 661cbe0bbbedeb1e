/**
 * The live topics: every feed the server streams to browsers, declared once. A declaration names
 * the topic, the schema of its subscription parameters and of its events, the key under which an
 * unsent event may be replaced by a newer one, the least role that may subscribe, and what part
 * of a share link's scope it reaches. The hub routes `subscribe {topic, ensemble, params}` the same
 * way for all of them; the web maps each topic to a query key and a reducer.
 *
 * Adding a topic: declare it here and list it in TOPICS (topicMessageSchema maps over it), write its producer
 * on the server (server/src/topics/) and list it there, and register its binding in the feature
 * that shows it (web/src/features/<feature>/, with registerTopic).
 */
import { z } from 'zod/mini';
import { checkPath } from '../paths.js';
import type { Role } from './access.js';
import { CONNECTION_PROBLEM_KINDS, CONSOLE_SESSION_STATES } from '../consoleSession.js';
import { ensembleHealthSchema, memberHistorySchema } from '../ensemble/types.js';
import { ensembleEventSchema } from '../ensemble/events/schema.js';
import { jobSnapshotSchema } from './ops.js';
import { LOCK_LIST_PAGE_MAX, lockAnswerSchema, locksAnswerSchema } from '../locks/schemas.js';
import { lockFilterSchema } from '../locks/requests.js';
import { upgradeAnswerSchema } from '../upgrades/requests.js';
import { reconfigWorkflowSchema } from '../reconfig/workflow.js';
import { encodedDataSchema, statSchema } from './znodeSchemas.js';

/** What a subscription reaches, for a share link's scope: a znode subtree, the ensemble views, or only the ensemble itself. */
export type TopicReach = { kind: 'znode'; path: string } | { kind: 'ensembleViews' } | { kind: 'ensemble' };

export interface TopicDeclaration<Name extends string, Params extends z.ZodMiniType, Event extends z.ZodMiniType> {
  name: Name;
  params: Params;
  event: Event;
  /** Per subscription: an unsent event with the same key is replaced by the newer one; null keeps every event. */
  coalesceKey(event: z.infer<Event>): string | null;
  /** The least role that may subscribe: `admin` topics are refused to viewers and share links before their parameters are read. */
  role: Role;
  reach(params: z.infer<Params>): TopicReach;
  /** True when each event matters on its own (sent at once); false lets it wait for the next flush. */
  urgent?(event: z.infer<Event>): boolean;
}

function declareTopic<Name extends string, Params extends z.ZodMiniType, Event extends z.ZodMiniType>(
  declaration: TopicDeclaration<Name, Params, Event>,
): TopicDeclaration<Name, Params, Event> {
  return declaration;
}

const znodePath = z.string().check(
  z.minLength(1),
  z.maxLength(4096),
  z.superRefine((path, ctx) => {
    const check = checkPath(path);
    if (!check.ok) ctx.addIssue({ code: 'custom', message: `invalid path ${JSON.stringify(path)}: ${check.reason}` });
  }),
);

const noParams = z.strictObject({});

export const WATCH_EVENT_TYPES = ['created', 'deleted', 'dataChanged', 'childrenChanged'] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];

/** A znode as one subscriber sees it; `exists: false` when it is absent (and watched for creation). */
export const znodeStateSchema = z.discriminatedUnion('exists', [
  z.object({ exists: z.literal(true), stat: statSchema, data: encodedDataSchema }),
  z.object({ exists: z.literal(false) }),
]);
export type ZnodeState = z.infer<typeof znodeStateSchema>;

/**
 * A list of children: the whole list, or what changed since the last list this subscription was
 * sent. A list too big for one frame comes as pages (`offset` of the page's first name, `last` on
 * the final one): together they are the whole list, which replaces the previous one once complete.
 */
export const childrenChangeSchema = z.discriminatedUnion('mode', [
  z.object({ kind: z.literal('children'), mode: z.literal('full'), names: z.array(z.string()), total: z.number() }),
  z.object({
    kind: z.literal('children'),
    mode: z.literal('page'),
    names: z.array(z.string()),
    total: z.number(),
    offset: z.int().check(z.gte(0)),
    last: z.boolean(),
  }),
  z.object({ kind: z.literal('children'), mode: z.literal('diff'), added: z.array(z.string()), removed: z.array(z.string()), total: z.number() }),
]);
export type ChildrenChange = z.infer<typeof childrenChangeSchema>;

export const znodeEventSchema = z.union([
  z.object({ kind: z.literal('state'), node: znodeStateSchema, at: z.number() }),
  childrenChangeSchema,
  z.object({ kind: z.literal('watchEvent'), event: z.enum(WATCH_EVENT_TYPES), at: z.number() }),
  /** The server keeps retrying with back-off when `retrying`; the view is stale meanwhile. */
  z.object({ kind: z.literal('error'), message: z.string(), retrying: z.boolean() }),
]);
export type ZnodeEvent = z.infer<typeof znodeEventSchema>;

/** A znode's state, its children and the watch events on it: one watch in ZooKeeper however many browsers. */
export const znodeTopic = declareTopic({
  name: 'znode',
  params: z.strictObject({ path: znodePath }),
  event: znodeEventSchema,
  coalesceKey: (event) => (event.kind === 'state' ? 'state' : null),
  role: 'viewer',
  reach: (params) => ({ kind: 'znode', path: params.path }),
  // A watch event only announces a change; the new state follows a read later and is what matters.
  urgent: (event) => event.kind !== 'watchEvent',
});

const timelineEntrySchema = z.object({
  at: z.number(),
  state: z.enum(CONSOLE_SESSION_STATES),
  sessionId: z.nullable(z.string()),
  member: z.nullable(z.string()),
  note: z.optional(z.string()),
});

/** The console's own ZooKeeper session (one per ensemble): never a browser's sign-in session. */
export const consoleSessionSnapshotSchema = z.object({
  state: z.enum(CONSOLE_SESSION_STATES),
  sessionId: z.nullable(z.string()),
  member: z.nullable(z.string()),
  since: z.number(),
  timeoutMs: z.number(),
  sessionsOpened: z.number(),
  confirmedAt: z.nullable(z.number()),
  establishedAt: z.nullable(z.number()),
  timeline: z.array(timelineEntrySchema),
  connection: z.optional(
    z.object({
      identity: z.nullable(z.array(z.object({ scheme: z.string(), id: z.string() }))),
      identityNote: z.nullable(z.string()),
      tls: z.nullable(z.string()),
      sasl: z.nullable(z.string()),
      warning: z.nullable(z.string()),
      problem: z.nullable(z.object({ kind: z.enum(CONNECTION_PROBLEM_KINDS), message: z.string(), member: z.string(), at: z.number() })),
      readOnly: z.nullable(z.object({ member: z.nullable(z.string()), memberId: z.nullable(z.number()), lastReadWriteAt: z.nullable(z.number()) })),
    }),
  ),
});

/** The console's own ZooKeeper session with the ensemble: its state, member and timeline. */
export const consoleSessionTopic = declareTopic({
  name: 'consoleSession',
  params: noParams,
  event: z.object({ session: consoleSessionSnapshotSchema }),
  coalesceKey: () => 'session',
  role: 'viewer',
  reach: () => ({ kind: 'ensemble' }),
});

/** The member poller's result after every poll, and the kept history for the charts. */
export const ensembleHealthTopic = declareTopic({
  name: 'ensembleHealth',
  params: noParams,
  event: z.union([
    z.object({ kind: z.literal('health'), health: ensembleHealthSchema }),
    /** 'full' on subscribe (~15 min), then 'append' with each poll's new points. */
    z.object({ kind: z.literal('history'), mode: z.enum(['full', 'append']), history: memberHistorySchema }),
  ]),
  coalesceKey: (event) => (event.kind === 'health' ? 'health' : null),
  role: 'viewer',
  reach: () => ({ kind: 'ensembleViews' }),
});

/** Progress of long operations (recursive delete, import) on the ensemble: only admins start or cancel them. */
export const jobsTopic = declareTopic({
  name: 'jobs',
  params: noParams,
  event: z.object({ job: jobSnapshotSchema }),
  // Only the latest progress of a job matters.
  coalesceKey: (event) => event.job.id,
  role: 'admin',
  reach: () => ({ kind: 'ensemble' }),
});

/**
 * Every lock Keeper tracks on the ensemble (configured roots and what scans found), recomputed
 * after each change Keeper's watches see and each watch gathering: a snapshot of one page each
 * time, as GET .../locks answers (worst first, the first few contenders per lock).
 */
export const locksTopic = declareTopic({
  name: 'locks',
  /** One page of the list: the filter (over all locks, not just the page) and the page's size. */
  params: z.strictObject({ q: z.optional(lockFilterSchema), limit: z.optional(z.int().check(z.gte(1), z.lte(LOCK_LIST_PAGE_MAX))) }),
  event: z.object({ kind: z.literal('locks'), locks: locksAnswerSchema }),
  coalesceKey: () => 'locks',
  role: 'viewer',
  reach: () => ({ kind: 'ensembleViews' }),
});

/** One lock directory with its contenders in order (GET .../locks/<path>), live; `notLock` while it is absent or not a recognized lock. */
export const lockTopic = declareTopic({
  name: 'lock',
  params: z.strictObject({ path: znodePath }),
  event: z.union([
    z.object({ kind: z.literal('lock'), lock: lockAnswerSchema }),
    z.object({ kind: z.literal('notLock'), path: z.string(), message: z.string(), at: z.number() }),
  ]),
  coalesceKey: () => 'lock',
  role: 'viewer',
  reach: (params) => ({ kind: 'znode', path: params.path }),
});

/**
 * The ensemble's rolling upgrade or restart: the workflow running, paused or last finished, with
 * its progress, after every change (each poll that moves a gate, each step, each operator action).
 * Every browser sees the same one; viewers and share links read it, only admins act on it (HTTP).
 */
export const upgradeTopic = declareTopic({
  name: 'upgrade',
  params: noParams,
  event: z.object({ kind: z.literal('upgrade'), upgrade: z.nullable(upgradeAnswerSchema), at: z.number() }),
  coalesceKey: () => 'upgrade',
  role: 'viewer',
  reach: () => ({ kind: 'ensembleViews' }),
});

/** The ensemble's resize: the workflow running, paused or last finished, after every change (each step sent, verified, each action). Viewers follow it; admins act over HTTP. */
export const reconfigTopic = declareTopic({
  name: 'reconfig',
  params: noParams,
  event: z.object({ kind: z.literal('reconfig'), reconfig: z.nullable(reconfigWorkflowSchema), at: z.number() }),
  coalesceKey: () => 'reconfig',
  role: 'viewer',
  reach: () => ({ kind: 'ensembleViews' }),
});

/** The ensemble's event timeline (leaders lost and elected, members down and up, alerts, upgrade steps): the kept events on subscribe, then each new one. */
export const ensembleEventsTopic = declareTopic({
  name: 'ensembleEvents',
  params: noParams,
  event: z.object({ kind: z.literal('events'), mode: z.enum(['full', 'append']), events: z.array(ensembleEventSchema) }),
  // Every append matters on its own (the browser adds them up).
  coalesceKey: () => null,
  role: 'viewer',
  reach: () => ({ kind: 'ensembleViews' }),
});

export const TOPICS = {
  znode: znodeTopic,
  consoleSession: consoleSessionTopic,
  ensembleHealth: ensembleHealthTopic,
  jobs: jobsTopic,
  locks: locksTopic,
  lock: lockTopic,
  upgrade: upgradeTopic,
  reconfig: reconfigTopic,
  ensembleEvents: ensembleEventsTopic,
} as const;

export type TopicName = keyof typeof TOPICS;
export const TOPIC_NAMES = Object.keys(TOPICS) as TopicName[];
export type TopicParams<T extends TopicName> = z.infer<(typeof TOPICS)[T]['params']>;
export type TopicEvent<T extends TopicName> = z.infer<(typeof TOPICS)[T]['event']>;

/** The declaration of a topic by name, typed loosely enough to use whichever topic it is. */
export function topicDeclaration(name: TopicName): TopicDeclaration<TopicName, z.ZodMiniType, z.ZodMiniType> {
  return TOPICS[name] as unknown as TopicDeclaration<TopicName, z.ZodMiniType, z.ZodMiniType>;
}

function envelope<Name extends TopicName, Params extends z.ZodMiniType, Event extends z.ZodMiniType>(declaration: TopicDeclaration<Name, Params, Event>) {
  return z.object({ topic: z.literal(declaration.name), ensemble: z.string(), params: declaration.params, event: declaration.event });
}

type EnvelopeOf<T extends TopicName> = z.ZodMiniObject<{
  topic: z.ZodMiniLiteral<T>;
  ensemble: z.ZodMiniString;
  params: (typeof TOPICS)[T]['params'];
  event: (typeof TOPICS)[T]['event'];
}>;
type Envelopes = { [T in TopicName]: EnvelopeOf<T> }[TopicName];

/** One event of one subscription, as it travels inside a batch: one envelope per topic of TOPICS, none listed by hand. */
export const topicMessageSchema = z.discriminatedUnion(
  'topic',
  (Object.values(TOPICS) as TopicDeclaration<TopicName, z.ZodMiniType, z.ZodMiniType>[]).map((declaration) => envelope(declaration)) as unknown as [
    Envelopes,
    ...Envelopes[],
  ],
);
export type TopicMessage = z.infer<typeof topicMessageSchema>;
export type TopicMessageOf<T extends TopicName> = Extract<TopicMessage, { topic: T }>;

/** Sorted keys, so the same parameters always make the same key on both sides. */
function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}

/** One subscription's identity: topic, ensemble and parameters (NUL cannot occur in names or paths). */
export function subscriptionKey(topic: TopicName, ensemble: string, params: unknown): string {
  return `${topic}\u0000${ensemble}\u0000${stableJson(params)}`;
}
