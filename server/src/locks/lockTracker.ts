/**
 * Every lock Keeper watches on one ensemble, and the Locks view's answers built from them:
 *  - configured roots are watched from the start: the root itself and each of its children is a
 *    candidate directory (kazoo and Curator make one directory per lock under a common parent);
 *  - a scan adds what it finds, and opening a lock's detail adds that directory;
 *  - at most `maxTracked` directories (each costs one ZooKeeper watch, shared with any browser
 *    that opens the same node in the tree); past it, new ones are refused with TOO_MANY_LOCKS.
 * Reports are recomputed (pure: analyzeLock) after each change a watch brings and after each
 * watch gathering, and pushed to subscribers: the detail at once (a release shows within a
 * second), the list at most every LIST_PUSH_MS.
 */
import type { Logger } from 'pino';
import {
  compareLocksWorstFirst,
  compileLockPattern,
  findLockHerds,
  joinPath,
  LOCK_DEFAULTS,
  LOCK_DETAIL_CONTENDERS,
  LOCK_LIST_CONTENDERS,
  leakCheckSummary,
  analyzeLock,
  planHolding,
  recognizeLock,
  resolvePermits,
  sessionsById,
  type LastScan,
  type LockHerd,
  type LockReport,
  type LockResponse,
  type LocksConfig,
  type LocksResponse,
  type RecipeDefinition,
} from '@keeper/shared';
import { Semaphore } from '../ops/pool.js';
import type { ZkGateway } from '../zk/gateway.js';
import { toZkError } from '../zk/errors.js';
import type { WatchListener } from '../zk/watchRegistry.js';
import { LockDirectory } from './lockDirectory.js';
import type { WatchGatherer } from './watchGatherings.js';

/** How a directory came to be tracked: roots' ones follow their root; the others stay until Keeper restarts or they stop being locks. */
export type TrackOrigin = 'root' | 'scan' | 'opened';

interface Tracked {
  dir: LockDirectory;
  origins: Set<TrackOrigin>;
}

export type LockAnswer = { kind: 'lock'; lock: LockResponse } | { kind: 'notLock'; path: string; message: string; at: number };

const LIST_PUSH_MS = 250;
/**
 * A list push may take at most this share of the time between pushes: 1,000 directories of 200
 * contenders took about 1 s to analyse, and every browser shares that one answer.
 */
const LIST_PUSH_CPU_SHARE = 0.2;
const DETAIL_PUSH_MS = 20;
/** Fact reads (getData of contenders) in flight at once, all directories together. */
const FACT_READS_IN_FLIGHT = 4;
const READ_DEADLINE_MS = 5_000;
/** How long a first answer waits for a directory's first listing. */
const FIRST_READ_WAIT_MS = 5_000;

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

export class LockTracker {
  private readonly tracked = new Map<string, Tracked>();
  private readonly rootWatches = new Map<string, { unwatch: () => void; children: readonly string[] | null }>();
  private readonly listListeners = new Set<(answer: LocksResponse) => void>();
  private readonly lockListeners = new Map<string, Set<(answer: LockAnswer) => void>>();
  /** When the list may be pushed again: its cost spaces the pushes (see pushList). */
  private listNotBefore = 0;
  private readonly patterns: RecipeDefinition[];
  private readonly reads = new Semaphore(FACT_READS_IN_FLIGHT);
  private readonly now: () => number;
  private listTimer: NodeJS.Timeout | null = null;
  private readonly detailTimers = new Map<string, NodeJS.Timeout>();
  private stopGatherListener: () => void = () => {};
  lastScan: LastScan | null = null;
  readonly maxTracked: number;

  constructor(private readonly options: LockTrackerOptions) {
    this.now = options.now ?? Date.now;
    this.patterns = (options.config?.patterns ?? []).map(compileLockPattern);
    this.maxTracked = options.config?.maxTracked ?? LOCK_DEFAULTS.maxTracked;
  }

  get roots(): readonly string[] {
    return this.options.config?.roots ?? [];
  }

  get gatherer(): WatchGatherer {
    return this.options.gatherer;
  }

  start(): void {
    this.stopGatherListener = this.options.gatherer.onGathering(() => this.changedAll());
    for (const root of this.roots) this.watchRoot(root);
  }

  close(): void {
    this.stopGatherListener();
    for (const { unwatch } of this.rootWatches.values()) unwatch();
    this.rootWatches.clear();
    for (const { dir } of this.tracked.values()) dir.close();
    this.tracked.clear();
    if (this.listTimer) clearTimeout(this.listTimer);
    for (const t of this.detailTimers.values()) clearTimeout(t);
    this.detailTimers.clear();
    this.options.gatherer.close();
  }

  /** Directories watched now. */
  get trackedCount(): number {
    return this.tracked.size;
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

  /** Watch `path` as a lock directory (no-op when it already is); throws TooManyLocksError past the bound. */
  track(path: string, origin: TrackOrigin, siblings: readonly string[] | null = null): LockDirectory {
    const existing = this.tracked.get(path);
    if (existing) {
      existing.origins.add(origin);
      return existing.dir;
    }
    if (this.tracked.size >= this.maxTracked) {
      throw new TooManyLocksError(
        `Keeper already watches ${this.tracked.size} lock directories, its limit (locks.maxTracked in the config): ${path} is not watched`,
      );
    }
    const fixedSiblings = siblings;
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
      onChange: (d) => this.changed(d.path),
      now: this.now,
      log: this.options.log,
    });
    this.tracked.set(path, { dir, origins: new Set([origin]) });
    dir.start();
    return dir;
  }

  private untrack(path: string, origin: TrackOrigin): void {
    const t = this.tracked.get(path);
    if (!t) return;
    t.origins.delete(origin);
    if (t.origins.size > 0) return;
    t.dir.close();
    this.tracked.delete(path);
    this.changed(path);
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

  /** Full reports (up to LOCK_DETAIL_CONTENDERS contenders each) of the locks at or under `root`. */
  reportsUnder(root: string): LockReport[] {
    const out: LockReport[] = [];
    for (const { dir } of this.tracked.values()) {
      if (root !== '/' && dir.path !== root && !dir.path.startsWith(`${root}/`)) continue;
      const report = this.reportOf(dir, LOCK_DETAIL_CONTENDERS);
      if (report) out.push(report);
    }
    return out;
  }

  /** One directory's report with up to `limit` contenders, or why it is not a lock now. */
  private reportOf(dir: LockDirectory, limit: number): LockReport | null {
    if (dir.state.kind !== 'lock') return null;
    const sessions = this.options.gatherer.sessions;
    const report = analyzeLock({
      lock: dir.state.lock,
      facts: dir.factsForAnalysis(),
      sessions: sessions ? sessionsById(sessions) : null,
      gatherings: this.options.gatherer.gatherings,
      now: this.now(),
      directoryData: dir.directoryData,
      configuredPermits: this.options.config?.permits?.[dir.path] ?? null,
      heldLongMs: this.options.config?.heldLongMs ?? LOCK_DEFAULTS.heldLongMs,
    });
    dir.markLeaked(
      report.contenders.filter((c) => c.status === 'leaked').map((c) => c.name),
      this.now(),
    );
    return report.contenders.length > limit ? { ...report, contenders: report.contenders.slice(0, limit) } : report;
  }

  private herds(locks: readonly LockReport[]): LockHerd[] {
    const latest = this.options.gatherer.gatherings.at(-1);
    if (!latest) return [];
    const watches = [...latest.watches].map(([path, sessions]) => ({ path, sessions: [...sessions], watchers: sessions.length }));
    return findLockHerds(watches, locks, this.options.config?.herdMinWatchers ?? LOCK_DEFAULTS.herdMinWatchers);
  }

  /** GET .../locks?path=<root>: every tracked lock at or under `root`, worst first. */
  list(root: string): LocksResponse {
    this.options.gatherer.touch();
    const under = (p: string) => root === '/' || p === root || p.startsWith(`${root}/`);
    const full = this.reportsUnder(root);
    full.sort(compareLocksWorstFirst);
    const herds = this.herds(full).filter((h) => under(h.path));
    return {
      ensemble: this.options.ensemble,
      root,
      locks: full.map((r) => (r.contenders.length > LOCK_LIST_CONTENDERS ? { ...r, contenders: r.contenders.slice(0, LOCK_LIST_CONTENDERS) } : r)),
      herds,
      leakCheck: leakCheckSummary(this.options.gatherer.gatherings),
      roots: [...this.roots],
      tracked: this.tracked.size,
      trackLimit: this.maxTracked,
      lastScan: this.lastScan,
      at: this.now(),
    };
  }

  /** The current answer for one directory it already tracks. */
  answerFor(path: string): LockAnswer {
    const t = this.tracked.get(path);
    const at = this.now();
    if (!t) return { kind: 'notLock', path, message: `${path} is not watched as a lock`, at };
    const state = t.dir.state;
    if (state.kind === 'loading') return { kind: 'notLock', path, message: `reading ${path}…`, at };
    if (state.kind !== 'lock') return { kind: 'notLock', path, message: state.message, at };
    const report = this.reportOf(t.dir, LOCK_DETAIL_CONTENDERS)!;
    return {
      kind: 'lock',
      lock: { ensemble: this.options.ensemble, lock: report, herds: this.herds([report]), leakCheck: leakCheckSummary(this.options.gatherer.gatherings), at },
    };
  }

  /**
   * GET .../locks/<path>: tracks the directory (from then on, live) and answers once its first
   * listing arrived. A directory that turns out not to be a lock is let go again, unless a root
   * or a scan tracks it.
   */
  async open(path: string): Promise<LockAnswer> {
    this.options.gatherer.touch();
    const dir = this.track(path, 'opened');
    await dir.ready(FIRST_READ_WAIT_MS);
    const answer = this.answerFor(path);
    if (answer.kind === 'notLock' && dir.state.kind !== 'loading' && dir.state.kind !== 'lock') this.untrack(path, 'opened');
    return answer;
  }

  /** The last subscriber of a directory left: let it go unless it is a lock or something else tracks it. */
  releaseOpened(path: string): void {
    const t = this.tracked.get(path);
    if (!t || this.lockListeners.has(path)) return;
    if (t.dir.state.kind !== 'lock' || t.origins.size > 1) this.untrack(path, 'opened');
  }

  /** Subscribers of the list (the `locks` topic): each push is computed once and handed to all; returns how to stop. */
  onList(listener: (answer: LocksResponse) => void): () => void {
    this.listListeners.add(listener);
    this.options.gatherer.touch();
    return () => this.listListeners.delete(listener);
  }

  /** Subscribers of one lock (the `lock` topic): tracked while watched, each push computed once for all; returns how to stop. */
  onLock(path: string, listener: (answer: LockAnswer) => void): () => void {
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

  private changed(path: string): void {
    if (this.lockListeners.has(path) && !this.detailTimers.has(path)) {
      this.detailTimers.set(
        path,
        setTimeout(() => {
          this.detailTimers.delete(path);
          const listeners = this.lockListeners.get(path);
          if (!listeners || listeners.size === 0) return;
          const answer = this.answerFor(path);
          for (const listener of listeners) listener(answer);
        }, DETAIL_PUSH_MS),
      );
    }
    if (this.listListeners.size > 0 && this.listTimer === null) {
      this.listTimer = setTimeout(() => this.pushList(), Math.max(LIST_PUSH_MS, this.listNotBefore - Date.now()));
    }
  }

  /** One list for every subscriber; the next push waits long enough that pushing stays a small share of the CPU. */
  private pushList(): void {
    this.listTimer = null;
    if (this.listListeners.size === 0) return;
    const began = performance.now();
    const answer = this.list('/');
    const took = performance.now() - began;
    this.listNotBefore = Date.now() + took / LIST_PUSH_CPU_SHARE;
    for (const listener of this.listListeners) listener(answer);
  }

  /** After a watch gathering every status may change. */
  private changedAll(): void {
    this.keepGathering();
    for (const path of this.lockListeners.keys()) this.changed(path);
    if (this.lockListeners.size === 0) this.changed('');
  }
}
