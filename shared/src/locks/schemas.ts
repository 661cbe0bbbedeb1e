/**
 * The Locks view's answer (issue 12, item 10), shared by the server's routes and the web:
 * `GET /api/ensembles/<name>/locks?path=<root>` and `.../locks/<path>`. The words in
 * CONTENDER_STATUSES and CONTENDER_FLAGS are part of the API: scripts match on them.
 */
import { z } from 'zod/mini';

/**
 * Exactly one per contender:
 *  - `holder`: in a holding position (the leader, for an election);
 *  - `waiting`: not holding, and not proven leaked (`watching` says what the evidence is);
 *  - `leaked`: not holding, its owner alive and connected, and no watch of that owner in the
 *    lock directory in every gathering across a window of at least the owner's session timeout
 *    (never under 10 s and two gatherings; see leakEvidence.ts);
 *  - `persistent`: ephemeralOwner is 0x0, so no session's end removes it.
 */
export const CONTENDER_STATUSES = ['holder', 'waiting', 'leaked', 'persistent'] as const;
export const contenderStatusSchema = z.enum(CONTENDER_STATUSES);
export type ContenderStatus = z.infer<typeof contenderStatusSchema>;

export const CONTENDER_FLAGS = ['leaked-holder', 'long-timeout', 'silent', 'no-connection', 'held-long'] as const;
export const contenderFlagKindSchema = z.enum(CONTENDER_FLAGS);
export type ContenderFlagKind = z.infer<typeof contenderFlagKindSchema>;

/** What the recipe is for; in-house patterns declare one of the first five. */
export const RECIPE_KINDS = ['exclusive', 'readWrite', 'semaphore', 'election', 'queue', 'group'] as const;
export const recipeKindSchema = z.enum(RECIPE_KINDS);
export type RecipeKind = z.infer<typeof recipeKindSchema>;

/**
 * Who holds, given the contenders in order:
 *  - `lowest`: the first one (a lock, a leader);
 *  - `readersBeforeWriter`: every reader before the first writer; a writer only when first;
 *  - `firstN`: the first N (a semaphore's leases; N from the recipe or the config);
 *  - `all`: every node present holds (kazoo Semaphore leases, a Party's members, a LockingQueue's taken entries);
 *  - `none`: nobody holds (a queue's items, in the order they will be taken).
 */
export const HOLDING_RULES = ['lowest', 'readersBeforeWriter', 'firstN', 'all', 'none'] as const;
export const holdingRuleSchema = z.enum(HOLDING_RULES);
export type HoldingRule = z.infer<typeof holdingRuleSchema>;

export const RECIPE_LIBRARIES = ['kazoo', 'curator', 'zookeeper', 'config'] as const;
export const recipeLibrarySchema = z.enum(RECIPE_LIBRARIES);
export type RecipeLibrary = z.infer<typeof recipeLibrarySchema>;

export const CONTENDER_ROLES = ['contender', 'reader', 'writer', 'lease', 'member', 'item'] as const;
export const contenderRoleSchema = z.enum(CONTENDER_ROLES);
export type ContenderRole = z.infer<typeof contenderRoleSchema>;

/**
 * What the owner's watches say about a contender that is not holding:
 *  - `blocker`: it watches what it waits for (its predecessor, or for a reader a writer before it);
 *  - `elsewhere`: it watches another node of the lock directory (not leaked, but not the usual watch);
 *  - `nothing`: the latest complete gathering saw no watch of its owner in the directory (a leak candidate until a second gathering confirms it);
 *  - `unknown`: no usable gathering (none yet, a member did not answer, the owner was not connected, or the recipe's waiters use child watches, which wchp does not list).
 */
export const WATCHING_STATES = ['blocker', 'elsewhere', 'nothing', 'unknown'] as const;
export const watchingStateSchema = z.enum(WATCHING_STATES);
export type WatchingState = z.infer<typeof watchingStateSchema>;

export const DATA_KINDS = ['identifier', 'participant-id', 'client-ip', 'text', 'binary', 'empty'] as const;
export const contenderDataSchema = z.object({
  /** kazoo's identifier, Curator's participant id or client IP (its default data), other text, binary or nothing. */
  kind: z.enum(DATA_KINDS),
  /** The text; for binary, its size ("12 bytes"); null when empty. */
  text: z.nullable(z.string()),
});
export type ContenderData = z.infer<typeof contenderDataSchema>;

export const recipeSchema = z.object({
  /** Stable: "kazoo.Lock", "curator.InterProcessMutex", "zookeeper.WriteLock", "config:<name>". */
  id: z.string(),
  /** For people: "Curator InterProcessMutex (or LeaderSelector)". */
  label: z.string(),
  library: recipeLibrarySchema,
  kind: recipeKindSchema,
  holding: holdingRuleSchema,
});
export type RecipeInfo = z.infer<typeof recipeSchema>;

export const contenderFlagSchema = z.object({ kind: contenderFlagKindSchema, message: z.string() });
export type ContenderFlag = z.infer<typeof contenderFlagSchema>;

/** The owner's session as the ensemble's sessions data knows it (null fields where it does not). */
export const contenderOwnerSchema = z.object({
  /** Hex as ZooKeeper prints it ("0x100002f75570004"); null when hidden from a share link without the ensemble views. */
  sessionId: z.nullable(z.string()),
  /** false: the sessions data does not list it (not gathered yet, or the session just ended). */
  known: z.boolean(),
  /** ip:port of the client (null when unknown, or hidden from a share link without the ensemble views). */
  client: z.nullable(z.string()),
  /** host:clientPort of the member it is connected to (null likewise). */
  member: z.nullable(z.string()),
  timeoutMs: z.nullable(z.number()),
  /**
   * The client's last response by its member's `lresp` (cons), as of `lastResponseAsOf`: a
   * lower bound of its silence then, not a reading of now.
   */
  lastResponseAt: z.nullable(z.number()),
  /** Keeper's clock at the sessions gathering that read `lastResponseAt`. */
  lastResponseAsOf: z.nullable(z.number()),
  /** false: on no member's connection list; null: unknown. */
  connected: z.nullable(z.boolean()),
});
export type ContenderOwner = z.infer<typeof contenderOwnerSchema>;

export const waitsForSchema = z.object({
  /** The node it waits for directly (its predecessor, the writer before a reader, or a holder of a semaphore). */
  next: z.string(),
  /** The holder at the end of the chain. */
  holder: z.string(),
  /** Links from this contender to the holder (1 = it waits for the holder itself). */
  links: z.int().check(z.gte(1)),
  /** "c waits for b waits for a (holder)", long chains shortened in the middle. */
  text: z.string(),
});
export type WaitsFor = z.infer<typeof waitsForSchema>;

/**
 * Since when a holder holds, and how Keeper knows:
 *  - `created`: since its creation (`at` is its ctime): nothing was deleted from the directory
 *    since it was created (the directory's cversion counts every child created and deleted), so
 *    it has held from the start;
 *  - `seen`: Keeper saw it start holding (the node before it went) at `at`, Keeper's clock,
 *    within a watch event's delay; kept across Keeper's restarts in its state directory;
 *  - `atLeast`: it already held when Keeper began watching at `at`: its hold began between its
 *    creation (`createdAt`) and `at`, so it has held at least since `at`.
 */
export const HOLD_SINCE_KINDS = ['created', 'seen', 'atLeast'] as const;
export const holdSinceSchema = z.object({ at: z.number(), kind: z.enum(HOLD_SINCE_KINDS) });
export type HoldSince = z.infer<typeof holdSinceSchema>;

export const contenderSchema = z.object({
  path: z.string(),
  name: z.string(),
  /** The 10-digit suffix as a number; null for recipes whose nodes have none (kazoo Semaphore leases, Party members). */
  sequence: z.nullable(z.int()),
  /** 1 = first in the recipe's order. */
  position: z.int().check(z.gte(1)),
  role: contenderRoleSchema,
  /** In a holding position by the recipe's rule (a persistent node can hold too). */
  holding: z.boolean(),
  status: contenderStatusSchema,
  flags: z.array(contenderFlagSchema),
  /** null for a persistent node. */
  owner: z.nullable(contenderOwnerSchema),
  data: contenderDataSchema,
  /** ctime (the ensemble's clock), epoch ms. */
  createdAt: z.nullable(z.number()),
  /** Its data version: an admin's delete sends it back, and is refused if the node changed meanwhile. */
  version: z.nullable(z.int()),
  /** Holding for this long at `computedAt` (at least this long when `heldSince.kind` is `atLeast`); null when not holding or not known. */
  heldForMs: z.nullable(z.number()),
  /** Since when it holds, and how that is known; null when not holding or its facts are not read. */
  heldSince: z.nullable(holdSinceSchema),
  /** Not holding: time since it was created (its ctime), at `computedAt`. */
  waitingForMs: z.nullable(z.number()),
  /** Not holding: its ctime (the ensemble's clock), when its wait began. */
  waitingSince: z.nullable(z.number()),
  waitsFor: z.nullable(waitsForSchema),
  /** null for holders, persistent nodes and queue items. */
  watching: z.nullable(watchingStateSchema),
  /** What this means for the lock, in words; null when nothing is wrong. */
  consequence: z.nullable(z.string()),
});
export type Contender = z.infer<typeof contenderSchema>;

export const lockSchema = z.object({
  /** The lock directory. */
  path: z.string(),
  recipe: recipeSchema,
  /** Context from the surroundings: "the lock kazoo's Semaphore /jobs/pool takes to hand out leases". */
  note: z.nullable(z.string()),
  /** Every contender in the directory, listed or not. */
  total: z.int(),
  holders: z.int(),
  waiters: z.int(),
  /** A semaphore's N; null when unknown or not a semaphore. */
  permits: z.nullable(z.int()),
  /** Where N came from: the recipe's own record (kazoo Semaphore data) or the config. */
  permitsSource: z.nullable(z.enum(['recorded', 'configured'])),
  /** In order; the first ones only when the directory is large (`total` counts them all). */
  contenders: z.array(contenderSchema),
  /** The worst status among the listed contenders (leaked, persistent, waiting, holder), for "worst first"; a holder proven leaked while it waited counts as leaked. */
  worstStatus: z.nullable(contenderStatusSchema),
  /** The longest hold among the listed holders, when known. */
  oldestHoldMs: z.nullable(z.number()),
  /** That hold is a lower bound (it already held when Keeper began watching). */
  oldestHoldAtLeast: z.boolean(),
  /** Sentences about the lock as a whole ("Curator does not record a semaphore's N: ..."). */
  notes: z.array(z.string()),
  /** Keeper's clock when this report was computed: durations are as of then. */
  computedAt: z.number(),
});
export type LockReport = z.infer<typeof lockSchema>;

export const lockHerdSchema = z.object({
  path: z.string(),
  watchers: z.int(),
  sessions: z.array(z.string()),
  /** The lock directory the path belongs to, when it is one or is in one. */
  lock: z.nullable(z.string()),
  /** "It is the holder of Curator InterProcessMutex /app/locks/job." */
  context: z.nullable(z.string()),
  /** "20 sessions watch /queue/holder: each change wakes all of them; ..." */
  message: z.string(),
});
export type LockHerd = z.infer<typeof lockHerdSchema>;

/** How far the leak check can go with the watch gatherings at hand. */
export const leakCheckSchema = z.object({
  gatherings: z.int(),
  /** From the earliest to the latest complete gathering, ms; null with fewer than two. */
  spanMs: z.nullable(z.number()),
  /** Two complete gatherings at least LEAK_MIN_GAP_MS apart: `leaked` can be said. */
  ready: z.boolean(),
  sentence: z.string(),
});
export type LeakCheck = z.infer<typeof leakCheckSchema>;

/** Where a scan did not look, and why (budget, deadline, a directory too large to descend). */
export const scanSkipSchema = z.object({ path: z.string(), reason: z.string() });
export type ScanSkip = z.infer<typeof scanSkipSchema>;

/** The last scan of this ensemble, when there was one. */
export const lastScanSchema = z.object({
  path: z.string(),
  jobId: z.string(),
  state: z.enum(['running', 'done', 'cancelled', 'failed']),
  startedAt: z.number(),
  finishedAt: z.nullable(z.number()),
  /** Znodes whose children were listed. */
  visited: z.int(),
  /** Lock directories found (and now tracked). */
  found: z.int(),
  /** ZooKeeper requests the scan sent. */
  requests: z.int(),
  skipped: z.array(scanSkipSchema),
  /** How many were skipped in all (the list is capped). */
  skippedTotal: z.int(),
  /** With replicas (docs/operating/replicas.md): the replica running it, since ZooKeeper's time of its owner znode. */
  runBy: z.optional(z.object({ replica: z.string(), name: z.string(), since: z.number() })),
  /** With replicas: when the running replica last stored its progress (its clock), about once a second while it runs. */
  updatedAt: z.optional(z.number()),
  /** With replicas: each replica that took the scan over after the previous one's session ended, said in a sentence. */
  handovers: z.optional(z.array(z.object({ at: z.number(), sentence: z.string() }))),
  /** A cancel asked for (on any replica): who asked, on which replica (its name), when (that replica's clock). */
  cancelRequest: z.optional(z.object({ by: z.string(), replica: z.string(), at: z.number() })),
});
export type LastScan = z.infer<typeof lastScanSchema>;

/** How many locks of each worst status (and without contenders listed: `empty`) the whole list holds, beyond the page. */
export const lockCountsSchema = z.object({
  leaked: z.int(),
  persistent: z.int(),
  waiting: z.int(),
  holder: z.int(),
  empty: z.int(),
});
export type LockCounts = z.infer<typeof lockCountsSchema>;

/** GET /api/ensembles/<name>/locks?path=<root>&offset=&limit=&q= (and the `locks` topic's snapshot) */
export const locksAnswerSchema = z.object({
  ensemble: z.string(),
  /** Only locks at or under this path are listed ('/' for all). */
  root: z.string(),
  /** The filter applied (path, recipe, status or flag contains it), '' for none. */
  q: z.string(),
  /** Worst status first, one page of them; each lock lists its first LOCK_LIST_CONTENDERS contenders (counts cover all). */
  locks: z.array(lockSchema),
  /** Where this page starts in the whole list, its size limit, and how many locks match in all. */
  offset: z.int(),
  limit: z.int(),
  total: z.int(),
  counts: lockCountsSchema,
  /** Owner sessions, client and member addresses are hidden (a share link without the ensemble views). */
  ownersHidden: z.boolean(),
  herds: z.array(lockHerdSchema),
  leakCheck: leakCheckSchema,
  /** The configured roots, watched from the start. */
  roots: z.array(z.string()),
  /** Lock directories Keeper watches now (from roots and scans), and how many it may. */
  tracked: z.int(),
  trackLimit: z.int(),
  /** Directories watched because someone opened them (they expire when nobody looks), and their own quota. */
  opened: z.int(),
  openedLimit: z.int(),
  lastScan: z.nullable(lastScanSchema),
  /** As of: the oldest report on this page was computed then (Keeper's clock). */
  at: z.number(),
});
export type LocksAnswer = z.infer<typeof locksAnswerSchema>;

/** GET /api/ensembles/<name>/locks/<path> (and the `lock` topic's snapshot): up to LOCK_DETAIL_CONTENDERS contenders. */
export const lockAnswerSchema = z.object({
  ensemble: z.string(),
  lock: lockSchema,
  /** Herds on this lock's directory or its nodes only. */
  herds: z.array(lockHerdSchema),
  leakCheck: leakCheckSchema,
  ownersHidden: z.boolean(),
  at: z.number(),
});

/** The list shows each lock's first few contenders; the detail many more; a 100,000-node directory is counted, not listed. */
export const LOCK_LIST_CONTENDERS = 5;
/** Locks per page of the list (HTTP and the `locks` topic), by default and at most. */
export const LOCK_LIST_PAGE = 100;
export const LOCK_LIST_PAGE_MAX = 500;
export const LOCK_DETAIL_CONTENDERS = 200;
export type LockAnswer = z.infer<typeof lockAnswerSchema>;
