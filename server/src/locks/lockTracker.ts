/**
 * Every lock Keeper watches on one ensemble, and the Locks view's answers built from them:
 *  - configured roots are watched from the start: the root itself and each of its children is a
 *    candidate directory (kazoo and Curator make one directory per lock under a common parent);
 *  - a scan adds what it finds (remembered across restarts in the state directory: lockMemory.ts);
 *  - roots' and scans' directories are bounded by `maxTracked` (each costs one ZooKeeper watch,
 *    shared with any browser that opens the same node in the tree); past it, new ones are refused
 *    with TOO_MANY_LOCKS;
 *  - opening a lock's page (or GET of one lock) adds that directory under a quota of its own
 *    (`maxOpened`), and it expires when nobody has looked for `openedIdleMs`: a full quota first
 *    lets go of the opened directory looked at least recently that nobody subscribes to, so
 *    viewers can neither fill the tracked set nor keep what they opened forever.
 *
 * Reports are computed once per change, never per request (issue 25, item 1): a change a watch
 * brings marks its directory, a watch gathering marks them all, and a pump analyses the marked
 * ones a slice at a time (LockReports), giving the event loop back between slices. Every GET and
 * every subscriber is answered from those cached reports: a list is a sorted page of them, a lock
 * is its report. Pushes go to subscribers the moment a lock's report changes (the list at most
 * every LIST_PUSH_MS), each computed once for every browser that shares its page and scope.
 */
import type { Logger } from 'pino';
import {
  compileLockPattern,
  findLockHerds,
  herdsOfLock,
  joinPath,
  LOCK_DEFAULTS,
  LOCK_DETAIL_CONTENDERS,
  LOCK_LIST_CONTENDERS,
  leakCheckSummary,
  pageOfLocks,
  isValidPath,
  planHolding,
  recognizeLock,
  resolvePermits,
  scopeLockResponse,
  scopeLocksResponse,
  type LastScan,
  type LockCounts,
  type LockHerd,
  type LockReport,
  type LockAnswer,
  type LockScope,
  type LocksConfig,
  type LocksAnswer,
  type RecipeDefinition,
} from '@keeper/shared';
import { Semaphore } from '../lib/pool.js';
import type { ZkGateway } from '../zk/gateway.js';
import { toZkError } from '../zk/errors.js';
import type { WatchListener } from '../zk/watchRegistry.js';
import { LockDirectory, type RememberedHold } from './lockDirectory.js';
import type { LockMemory } from './lockMemory.js';
import { LockReports } from './lockReports.js';
import type { WatchGatherer } from './watchGatherings.js';

/** How a directory came to be tracked: roots' ones follow their root; scans' stay (and are remembered) while they exist; opened ones expire. */
export type TrackOrigin = 'root' | 'scan' | 'opened';

interface Tracked {
  dir: LockDirectory;
  origins: Set<TrackOrigin>;
  /** Keeper's clock when someone last asked for it or stopped subscribing (opened directories expire from it). */
  lookedAt: number;
}

export type LockLookup = { kind: 'lock'; lock: LockAnswer } | { kind: 'notLock'; path: string; message: string; at: number };

/** One page of the list: what GET .../locks and a `locks` subscriber ask for. */
export interface LocksQuery {
  path: string;
  q: string;
  offset: number;
  limit: number;
}

const LIST_PUSH_MS = 250;
/** Fact reads (getData of contenders) in flight at once, all directories together. */
const FACT_READS_IN_FLIGHT = 4;
const READ_DEADLINE_MS = 5_000;
/** How long a first answer waits for a directory's first listing. */
const FIRST_READ_WAIT_MS = 5_000;
/** `path` is `root` or below it; both valid znode paths already (a tracked directory, a checked query or scope). */
function isAtOrUnder(root: string, path: string): boolean {
  return root === '/' || path === root || (path.startsWith(root) && path.charCodeAt(root.length) === 47);
}

/** Distinct pages (query and scope) kept per version of the list. */
const LIST_MEMO_ENTRIES = 64;
/** How often opened directories are checked for expiry. */
const EXPIRY_SWEEP_MS = 30_000;

export class TooManyLocksError extends Error {
  readonly code = 'TOO_MANY_LOCKS';
}

export interface LockTrackerOptions {
  ensemble: string;
  gateway: Pick<ZkGateway, 'getData'> & { watches: { watch(path: string, listener: WatchListener): () => void } };
  gatherer: WatchGatherer;
  config?: LocksConfig;
  log: Logger;
  now?: () => number;
}

/** How long the Locks view waits for the ensemble's identity (which names its memory file) before starting without it. */
const MEMORY_WAIT_MS = 15_000;

export class LockTracker {
  private readonly tracked = new Map<string, Tracked>();
  private readonly rootWatches = new Map<string, { unwatch: () => void; children: readonly string[] | null }>();
  private readonly listListeners = new Set<() => void>();
  private readonly lockListeners = new Map<string, Set<(answer: LockLookup) => void>>();
  private readonly patterns: RecipeDefinition[];
  private readonly reads = new Semaphore(FACT_READS_IN_FLIGHT);
  private readonly now: () => number;
  private readonly reports: LockReports;
  private listTimer: NodeJS.Timeout | null = null;
  private lastListPush = 0;
  private expiryTimer: NodeJS.Timeout | null = null;
  private stopGatherListener: () => void = () => {};
  private memory: LockMemory | null = null;
  private pendingMemory: Promise<LockMemory> | null = null;
  private closed = false;
  private remembered = new Map<string, RememberedHold[]>();
  private herdCache: { epoch: number; herds: LockHerd[] } | null = null;
  /** Pages of the list already built for this version of it: N browsers on the same page cost one. */
  private readonly listMemo = new Map<string, { answer: LocksAnswer; text: string | null }>();
  private listMemoVersion = '';
  private lastScanValue: LastScan | null = null;
  readonly maxTracked: number;
  readonly maxOpened: number;
  readonly openedIdleMs: number;

  constructor(private readonly options: LockTrackerOptions) {
    this.now = options.now ?? Date.now;
    this.patterns = (options.config?.patterns ?? []).map(compileLockPattern);
    this.maxTracked = options.config?.maxTracked ?? LOCK_DEFAULTS.maxTracked;
    this.maxOpened = options.config?.maxOpened ?? LOCK_DEFAULTS.maxOpened;
    this.openedIdleMs = options.config?.openedIdleMs ?? LOCK_DEFAULTS.openedIdleMs;
    this.reports = new LockReports({
      gatherer: options.gatherer,
      directory: (path) => this.tracked.get(path)?.dir ?? null,
      configuredPermits: (path) => options.config?.permits?.[path] ?? null,
      heldLongMs: options.config?.heldLongMs ?? LOCK_DEFAULTS.heldLongMs,
      now: this.now,
      onReport: (path) => this.pushLock(path),
      onPassDone: (changed) => {
        if (changed) this.scheduleListPush();
      },
    });
  }

  get roots(): readonly string[] {
    return this.options.config?.roots ?? [];
  }

  get gatherer(): WatchGatherer {
    return this.options.gatherer;
  }

  get lastScan(): LastScan | null {
    return this.lastScanValue;
  }

  set lastScan(scan: LastScan | null) {
    this.lastScanValue = scan;
    this.reports.touchList();
    this.scheduleListPush();
  }

  /** Remember scans' finds and seen holds in the state directory; call before start(). */
  /**
   * What to remember across restarts. Given as a promise (the file is named by the ensemble's
   * identity, read from ZooKeeper after connecting), start() waits for it, at most
   * MEMORY_WAIT_MS: past that the view starts from nothing rather than not at all.
   */
  useMemory(memory: LockMemory | Promise<LockMemory>): void {
    if (memory instanceof Promise) this.pendingMemory = memory;
    else this.memory = memory;
  }

  start(): void {
    const pending = this.pendingMemory;
    if (!pending) return this.begin();
    this.pendingMemory = null;
    let begun = false;
    const go = (memory: LockMemory | null) => {
      if (begun || this.closed) return;
      begun = true;
      clearTimeout(timer);
      this.memory = memory;
      this.begin();
    };
    const timer = setTimeout(() => go(null), MEMORY_WAIT_MS);
    timer.unref();
    pending.then(go, () => go(null));
  }

  private begin(): void {
    this.stopGatherListener = this.options.gatherer.onGathering(() => this.changedAll());
    const memory = this.memory?.load();
    if (memory) this.remembered = memory.holds;
    for (const root of this.roots) this.watchRoot(root);
    for (const path of memory?.scanned ?? []) this.tryTrack(path, 'scan');
    this.expiryTimer = setInterval(() => this.expireOpened(), Math.min(EXPIRY_SWEEP_MS, Math.max(1_000, this.openedIdleMs / 2)));
    this.expiryTimer.unref();
  }

  close(): void {
    this.closed = true;
    this.stopGatherListener();
    this.memory?.flush();
    for (const { unwatch } of this.rootWatches.values()) unwatch();
    this.rootWatches.clear();
    for (const { dir } of this.tracked.values()) dir.close();
    this.tracked.clear();
    this.reports.close();
    if (this.listTimer) clearTimeout(this.listTimer);
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    this.options.gatherer.close();
  }

  /** Directories watched from roots and scans (bounded by maxTracked). */
  get trackedCount(): number {
    let n = 0;
    for (const t of this.tracked.values()) if (!this.onlyOpened(t)) n++;
    return n;
  }

  /** Directories watched only because someone opened them (bounded by maxOpened). */
  get openedCount(): number {
    let n = 0;
    for (const t of this.tracked.values()) if (this.onlyOpened(t)) n++;
    return n;
  }

  isTracked(path: string): boolean {
    return this.tracked.has(path);
  }

  /** A watch on a tracked lock directory or one of its nodes: evidence the Locks view reads. */
  coversWatch(path: string): boolean {
    if (this.tracked.has(path)) return true;
    const slash = path.lastIndexOf('/');
    return slash > 0 && this.tracked.has(path.slice(0, slash));
  }

  private onlyOpened(t: Tracked): boolean {
    return t.origins.size === 1 && t.origins.has('opened');
  }

  /** Watch `path` as a lock directory (no-op when it already is); throws TooManyLocksError past its origin's bound. */
  track(path: string, origin: TrackOrigin, siblings: readonly string[] | null = null): LockDirectory {
    const existing = this.tracked.get(path);
    if (existing) {
      if (origin !== 'opened' && this.onlyOpened(existing) && this.trackedCount >= this.maxTracked) throw this.tooMany(path);
      existing.origins.add(origin);
      existing.lookedAt = this.now();
      if (origin === 'scan') this.remember();
      return existing.dir;
    }
    if (origin === 'opened') {
      if (this.openedCount >= this.maxOpened && !this.evictOpened()) {
        throw new TooManyLocksError(
          `Keeper already watches ${this.maxOpened} lock directories that people opened and are still looking at (locks.maxOpened in the config): ${path} is not watched; try again when some are closed`,
        );
      }
    } else if (this.trackedCount >= this.maxTracked) throw this.tooMany(path);
    const fixedSiblings = siblings;
    const remembered = this.remembered.get(path);
    this.remembered.delete(path);
    const dir = new LockDirectory(path, {
      watch: (p, listener) => this.options.gateway.watches.watch(p, listener),
      readNode: async (p) => {
        try {
          return await this.options.gateway.getData(p, { deadlineMs: READ_DEADLINE_MS });
        } catch (error) {
          if (toZkError(error).code === 'NO_NODE') return null;
          throw error;
        }
      },
      reads: this.reads,
      patterns: this.patterns,
      configuredPermits: (p) => this.options.config?.permits?.[p] ?? null,
      factsLimit: LOCK_DETAIL_CONTENDERS,
      siblings: () => this.siblingsOf(path) ?? fixedSiblings,
      onChange: (d) => this.reports.mark(d.path),
      ...(remembered ? { remembered } : {}),
      onHoldsChanged: () => this.remember(),
      // A directory a scan found that is gone is let go and forgotten: a scan finds it again if it comes back.
      onGone: (d) => {
        if (this.tracked.get(d.path)?.origins.has('scan')) queueMicrotask(() => this.untrack(d.path, 'scan'));
      },
      now: this.now,
      log: this.options.log,
    });
    this.tracked.set(path, { dir, origins: new Set([origin]), lookedAt: this.now() });
    dir.start();
    if (origin === 'scan') this.remember();
    return dir;
  }

  private tooMany(path: string): TooManyLocksError {
    return new TooManyLocksError(
      `Keeper already watches ${this.trackedCount} lock directories, its limit (locks.maxTracked in the config): ${path} is not watched`,
    );
  }

  /** Lets go of the opened-only directory looked at least recently that nobody subscribes to; false when every one has subscribers. */
  private evictOpened(): boolean {
    let oldest: [string, Tracked] | null = null;
    for (const entry of this.tracked) {
      const [path, t] = entry;
      if (!this.onlyOpened(t) || this.lockListeners.has(path)) continue;
      if (oldest === null || t.lookedAt < oldest[1].lookedAt) oldest = entry;
    }
    if (oldest === null) return false;
    this.untrack(oldest[0], 'opened');
    return true;
  }

  /** Opened directories nobody looked at for openedIdleMs. */
  private expireOpened(): void {
    const cutoff = this.now() - this.openedIdleMs;
    for (const [path, t] of [...this.tracked]) {
      if (t.origins.has('opened') && !this.lockListeners.has(path) && t.lookedAt <= cutoff) this.untrack(path, 'opened');
    }
  }

  private untrack(path: string, origin: TrackOrigin): void {
    const t = this.tracked.get(path);
    if (!t) return;
    t.origins.delete(origin);
    if (t.origins.size > 0) return;
    t.dir.close();
    this.tracked.delete(path);
    this.reports.forget(path);
    if (origin === 'scan') this.remember();
    this.pushLock(path);
  }

  /** Saves scans' finds and the holds Keeper saw begin (batched). */
  private remember(): void {
    this.memory?.saveSoon(() => {
      const scanned: string[] = [];
      const holds = new Map<string, RememberedHold[]>();
      for (const [path, t] of this.tracked) {
        if (t.origins.has('scan')) scanned.push(path);
        const seen = t.dir.seenHolds();
        if (seen.length > 0) holds.set(path, seen);
      }
      return { scanned, holds };
    });
  }

  /** The parent's children, when a root watch holds them. */
  private siblingsOf(path: string): readonly string[] | null {
    const parent = path.slice(0, path.lastIndexOf('/')) || '/';
    return this.rootWatches.get(parent)?.children ?? null;
  }

  private watchRoot(root: string): void {
    const entry: { unwatch: () => void; children: readonly string[] | null } = { unwatch: () => {}, children: null };
    this.rootWatches.set(root, entry);
    this.tryTrack(root, 'root');
    entry.unwatch = this.options.gateway.watches.watch(root, {
      onNode: () => {},
      onWatchEvent: () => {},
      onError: () => {},
      onChildren: ({ names }) => {
        const before = new Set(entry.children ?? []);
        entry.children = names;
        const now = new Set(names);
        for (const name of names) if (!before.has(name)) this.tryTrack(joinPath(root, name), 'root');
        for (const name of before) if (!now.has(name)) this.untrack(joinPath(root, name), 'root');
        // kazoo's Semaphore and LockingQueue are recognized by a sibling: look again.
        for (const name of names) this.tracked.get(joinPath(root, name))?.dir.siblingsChanged();
      },
    });
  }

  private tryTrack(path: string, origin: TrackOrigin): void {
    try {
      this.track(path, origin);
    } catch (error) {
      if (!(error instanceof TooManyLocksError)) throw error;
      this.options.log.warn({ path }, error.message);
    }
  }

  /** A directory's children as they are now, read by the same recipes and holding rules (an admin's re-check before a delete). */
  recognizeNow(path: string, children: readonly string[], directoryData: Uint8Array | null) {
    const lock = recognizeLock({ path, children, siblings: this.siblingsOf(path), patterns: this.patterns });
    if (!lock) return null;
    const { permits } = resolvePermits(lock.recipe, directoryData, this.options.config?.permits?.[path] ?? null);
    return { lock, plan: planHolding(lock.recipe.holding, lock.contenders, lock.recipe.holding === 'firstN' ? permits : null) };
  }

  /** Whether these children make `path` a lock directory (the scan's test), with the configured in-house recipes. */
  recognizeWith(path: string, children: readonly string[], siblings: readonly string[] | null): boolean {
    return recognizeLock({ path, children, siblings, patterns: this.patterns }) !== null;
  }

  /** The cached full reports (up to LOCK_DETAIL_CONTENDERS contenders each) of the locks at or under `root`. */
  reportsUnder(root: string): LockReport[] {
    return this.reports.sorted().filter((r) => isAtOrUnder(root, r.path));
  }

  /** Herds of the latest gathering, said in lock terms: computed once per gathering. */
  private herds(): LockHerd[] {
    const epoch = this.options.gatherer.epoch;
    if (this.herdCache?.epoch === epoch) return this.herdCache.herds;
    const latest = this.options.gatherer.gatherings.at(-1);
    const min = this.options.config?.herdMinWatchers ?? LOCK_DEFAULTS.herdMinWatchers;
    const herds = latest
      ? findLockHerds(
          [...latest.watches]
            .filter(([, sessions]) => sessions.length >= min)
            .map(([path, sessions]) => ({ path, sessions: [...sessions], watchers: sessions.length })),
          this.reports.sorted(),
          min,
        )
      : [];
    this.herdCache = { epoch, herds };
    return herds;
  }

  /**
   * Watched lock directories by their worst contender's status, from the cached reports: for
   * keeper_locks. Unlike list(), it is no sign that someone looks: it starts no watch gathering.
   */
  statusCounts(): LockCounts {
    return pageOfLocks(this.reports.sorted(), { q: '', offset: 0, limit: 0 }).counts;
  }

  /**
   * GET .../locks and the `locks` topic: one page of the tracked locks at or under `query.path`,
   * worst first, from the cached reports. A share link's list covers only its subtree.
   */
  list(query: LocksQuery, scope: LockScope | null = null): LocksAnswer {
    return this.memoList(query, scope).answer;
  }

  /** The same page as JSON text, serialized once for every caller of this version of it (a page of 100 locks is about half a megabyte). */
  listJson(query: LocksQuery, scope: LockScope | null = null): string {
    const memo = this.memoList(query, scope);
    memo.text ??= JSON.stringify(memo.answer);
    return memo.text;
  }

  private memoList(query: LocksQuery, scope: LockScope | null): { answer: LocksAnswer; text: string | null } {
    this.options.gatherer.touch();
    const version = `${this.reports.listVersion} ${this.options.gatherer.epoch} ${this.tracked.size}`;
    if (version !== this.listMemoVersion) {
      this.listMemo.clear();
      this.listMemoVersion = version;
    }
    const key = JSON.stringify([query.path, query.q, query.offset, query.limit, scope?.root ?? null, scope?.ensembleViews ?? null]);
    const memo = this.listMemo.get(key);
    if (memo) return memo;
    const built = { answer: this.buildList(query, scope), text: null };
    if (this.listMemo.size < LIST_MEMO_ENTRIES) this.listMemo.set(key, built);
    return built;
  }

  private buildList(query: LocksQuery, scope: LockScope | null): LocksAnswer {
    // Roots that take everything are not tested lock by lock: a list of 1,000 is read on every push.
    const roots = [query.path, ...(scope ? [scope.root] : [])].filter((r) => r !== '/');
    if (!roots.every(isValidPath)) throw new Error('invalid list root');
    const inside = (p: string) => roots.every((r) => isAtOrUnder(r, p));
    const all = roots.length === 0 ? this.reports.sorted() : this.reports.sorted().filter((r) => inside(r.path));
    const page = pageOfLocks(all, query);
    const herds = this.herds().filter((h) => inside(h.path));
    const answer: LocksAnswer = {
      ensemble: this.options.ensemble,
      root: query.path,
      q: query.q,
      locks: page.locks.map((r) => (r.contenders.length > LOCK_LIST_CONTENDERS ? { ...r, contenders: r.contenders.slice(0, LOCK_LIST_CONTENDERS) } : r)),
      offset: query.offset,
      limit: query.limit,
      total: page.total,
      counts: page.counts,
      ownersHidden: false,
      herds,
      leakCheck: leakCheckSummary(this.options.gatherer.gatherings),
      roots: [...this.roots],
      tracked: this.trackedCount,
      trackLimit: this.maxTracked,
      opened: this.openedCount,
      openedLimit: this.maxOpened,
      lastScan: this.lastScan,
      at: page.locks.reduce((oldest, r) => Math.min(oldest, r.computedAt), this.now()),
    };
    return scope === null ? answer : scopeLocksResponse(answer, scope);
  }

  /** The current answer for one directory it already tracks, from its cached report. */
  answerFor(path: string, scope: LockScope | null = null): LockLookup {
    const t = this.tracked.get(path);
    const at = this.now();
    if (!t) return { kind: 'notLock', path, message: `${path} is not watched as a lock`, at };
    const state = t.dir.state;
    if (state.kind === 'loading') return { kind: 'notLock', path, message: `reading ${path}…`, at };
    if (state.kind !== 'lock') return { kind: 'notLock', path, message: state.message, at };
    const report = this.reports.current(path);
    if (!report) return { kind: 'notLock', path, message: `reading ${path}…`, at };
    const lock: LockAnswer = {
      ensemble: this.options.ensemble,
      lock: report,
      herds: herdsOfLock(this.herds(), path),
      leakCheck: leakCheckSummary(this.options.gatherer.gatherings),
      ownersHidden: false,
      at: report.computedAt,
    };
    if (scope === null) return { kind: 'lock', lock };
    const scoped = scopeLockResponse(lock, scope);
    return scoped ? { kind: 'lock', lock: scoped } : { kind: 'notLock', path, message: `${path} is outside this link's scope`, at };
  }

  /**
   * GET .../locks/<path>: tracks the directory (from then on, live, until nobody has looked for
   * openedIdleMs) and answers once its first listing arrived. A directory that turns out not to
   * be a lock is let go again, unless a root or a scan tracks it.
   */
  async open(path: string, scope: LockScope | null = null): Promise<LockLookup> {
    this.options.gatherer.touch();
    const dir = this.track(path, 'opened');
    await dir.ready(FIRST_READ_WAIT_MS);
    const answer = this.answerFor(path, scope);
    if (answer.kind === 'notLock' && dir.state.kind !== 'loading' && dir.state.kind !== 'lock') this.untrack(path, 'opened');
    return answer;
  }

  /** The last subscriber of a directory left: let it go now unless it is a lock (which then expires) or something else tracks it. */
  releaseOpened(path: string): void {
    const t = this.tracked.get(path);
    if (!t || this.lockListeners.has(path)) return;
    t.lookedAt = this.now();
    if (t.dir.state.kind !== 'lock') this.untrack(path, 'opened');
  }

  /** Subscribers of the list (the `locks` topic): told when a new list is ready, each then asks for its own page; returns how to stop. */
  onList(listener: () => void): () => void {
    this.listListeners.add(listener);
    this.options.gatherer.touch();
    return () => this.listListeners.delete(listener);
  }

  /** Subscribers of one lock (the `lock` topic): tracked while watched, each push computed once; returns how to stop. */
  onLock(path: string, listener: (answer: LockLookup) => void): () => void {
    let set = this.lockListeners.get(path);
    if (!set) this.lockListeners.set(path, (set = new Set()));
    set.add(listener);
    this.options.gatherer.touch();
    return () => {
      set.delete(listener);
      if (set.size === 0) this.lockListeners.delete(path);
    };
  }

  /** Subscribers keep the gatherer going: it stops a minute after the last one looked. */
  keepGathering(): void {
    if (this.listListeners.size > 0 || this.lockListeners.size > 0) this.options.gatherer.touch();
  }

  /** Analyses run so far (each once per change, never per request). */
  get analyses(): number {
    return this.reports.analyses;
  }

  /** The time they took in all, ms. */
  get analysisMs(): number {
    return this.reports.analysisMs;
  }

  private pushLock(path: string): void {
    const listeners = this.lockListeners.get(path);
    if (!listeners || listeners.size === 0) return;
    const answer = this.answerFor(path);
    for (const listener of listeners) listener(answer);
  }

  private scheduleListPush(): void {
    if (this.listListeners.size === 0 || this.listTimer !== null) return;
    this.listTimer = setTimeout(
      () => {
        this.listTimer = null;
        this.lastListPush = Date.now();
        // A push carries every change made so far.
        this.reports.publishNow();
        for (const listener of this.listListeners) listener();
      },
      Math.max(0, this.lastListPush + LIST_PUSH_MS - Date.now()),
    );
  }

  /** After a watch gathering every status may change. */
  private changedAll(): void {
    this.keepGathering();
    this.reports.markAll(this.tracked.keys());
  }
}
