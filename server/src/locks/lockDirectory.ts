/**
 * One directory Keeper watches for a lock: its children through the watch registry (one
 * ZooKeeper watch however many browsers look), recognized by recipe on every change, and the
 * facts of the contenders that matter (owner, ctime, data, version: the first `factsLimit` in
 * the recipe's order, so a 100,000-node directory costs its child list plus a few hundred
 * reads, never 100,000). Facts are read once per node: a contender's owner and ctime never
 * change, and its data rarely does (the recipes write it at create).
 *
 * Keeper's own clock marks when a node was first listed (`firstSeenAt`: the leak proof only
 * counts gatherings asked after it) and when a holder's hold began, as far as Keeper can know
 * (issue 22, item 7):
 *  - `created`: nothing was deleted from the directory since the holder was created, so it has
 *    held since its ctime. The directory's cversion counts every child created and deleted, and a
 *    sequential node's suffix is the cversion at its creation: when cversion - (suffix + 1)
 *    equals the number of nodes after it that are still there, every change since its creation
 *    was one of those creations;
 *  - `seen`: Keeper saw it start holding (it was listed waiting, or was created, since the last
 *    listing): at Keeper's clock, within a watch event's delay;
 *  - `atLeast`: it already held when Keeper began watching.
 * `seen` holds are kept in the state directory (lockMemory.ts), so a restart does not reset them.
 */
import type { Logger } from 'pino';
import {
  joinPath,
  planHolding,
  recognizeLock,
  resolvePermits,
  type ContenderFacts,
  type HoldSince,
  type LeakEvidence,
  type RecipeDefinition,
  type RecognizedLock,
  type ZnodeStat,
  type ZnodeState,
} from '@keeper/shared';
import type { Semaphore } from '../lib/pool.js';
import type { WatchListener } from '../zk/watchRegistry.js';
import type { ZkError } from '../zk/errors.js';

/**
 * A directory this large is recognized again at most every BIG_RECOMPUTE_MS, however fast its
 * children change, and spaced so that recognizing it takes at most BIG_RECOMPUTE_SHARE of the time.
 */
const BIG_DIRECTORY = 5_000;
const BIG_RECOMPUTE_MS = 200;
const BIG_RECOMPUTE_SHARE = 0.1;

/** A hold Keeper saw begin, kept across restarts: valid while the same node (same name and ctime) still holds. */
export interface RememberedHold {
  name: string;
  ctime: number;
  at: number;
}

interface Hold {
  at: number;
  kind: HoldSince['kind'];
  /** A hold remembered from before a restart: true only while the node's ctime matches. */
  ctime?: number;
}

export interface LockDirectoryDeps {
  /** The watch registry's subscribe: one ZooKeeper watch per path. */
  watch(path: string, listener: WatchListener): () => void;
  /** getData with a deadline; null when the node is gone (NO_NODE). */
  readNode(path: string): Promise<{ data: Buffer; stat: ZnodeStat } | null>;
  /** Shared by every directory of the ensemble: fact reads in flight stay under the cap. */
  reads: Semaphore;
  patterns: readonly RecipeDefinition[];
  configuredPermits: (dir: string) => number | null;
  factsLimit: number;
  /** The parent's children when known (kazoo Semaphore and LockingQueue are told apart by a sibling). */
  siblings: () => readonly string[] | null;
  onChange(dir: LockDirectory): void;
  /** Holds Keeper saw begin before it restarted (lockMemory.ts). */
  remembered?: readonly RememberedHold[];
  /** A hold was seen to begin or ended: what the memory keeps changed. */
  onHoldsChanged?(dir: LockDirectory): void;
  /** The directory does not exist (any more). */
  onGone?(dir: LockDirectory): void;
  now: () => number;
  log: Logger;
}

export type DirectoryState =
  { kind: 'loading' } | { kind: 'lock'; lock: RecognizedLock } | { kind: 'notLock'; message: string } | { kind: 'error'; message: string };

export class LockDirectory {
  state: DirectoryState = { kind: 'loading' };
  readonly facts = new Map<string, ContenderFacts>();
  /** The directory's own data, as bytes: kazoo's Semaphore records N there. */
  directoryData: Uint8Array | null = null;
  private readonly firstSeen = new Map<string, number>();
  private readonly holds = new Map<string, Hold>();
  /** Each waiter's run of unwatched gatherings, carried from one analysis to the next. */
  private readonly evidence = new Map<string, LeakEvidence>();
  /** Names a report called `leaked`: once such a node reaches the front, no watch can prove it again (a holder sets none). */
  private readonly provenLeaked = new Map<string, number>();
  private readonly reading = new Set<string>();
  private unwatch: (() => void) | null = null;
  private children: readonly string[] | null = null;
  private cversion: number | null = null;
  /** Whether a listing arrived before this one (nodes new in a later listing were created while Keeper watched). */
  private listedBefore = false;
  private remembered: Map<string, RememberedHold>;
  private readyWaiters: (() => void)[] = [];
  private closed = false;
  private recomputeTimer: NodeJS.Timeout | null = null;
  private recomputeNotBefore = 0;
  /** Keeper's clock at the last change seen (children, data or facts). */
  changedAt: number;
  /** Counts changes: a cached report of an older version is out of date. */
  version = 0;
  private factsCache: { version: number; facts: ReadonlyMap<string, ContenderFacts> } | null = null;

  constructor(
    readonly path: string,
    private readonly deps: LockDirectoryDeps,
  ) {
    this.changedAt = deps.now();
    this.remembered = new Map((deps.remembered ?? []).map((h) => [h.name, h]));
  }

  start(): void {
    this.unwatch = this.deps.watch(this.path, {
      onNode: (node) => this.onNode(node),
      onChildren: ({ names, cversion }) => this.onChildren(names, cversion),
      onWatchEvent: () => {},
      onError: (error: ZkError, retrying: boolean) => {
        // The registry keeps retrying; until it reads again, what we hold is as of the last read.
        if (!retrying) this.setState({ kind: 'error', message: `${error.code}: ${error.message}` });
      },
    });
  }

  close(): void {
    this.closed = true;
    if (this.recomputeTimer) clearTimeout(this.recomputeTimer);
    this.unwatch?.();
    this.unwatch = null;
    this.wakeReady();
  }

  /** Resolves once the first listing (and its facts) arrived, or after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void> {
    if (this.state.kind !== 'loading' && this.reading.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.readyWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The holds Keeper saw begin, to remember across a restart (their node's ctime once read). */
  seenHolds(): RememberedHold[] {
    const out: RememberedHold[] = [];
    for (const [name, hold] of this.holds) {
      const ctime = this.facts.get(name)?.ctime ?? hold.ctime;
      if (hold.kind === 'seen' && ctime !== undefined) out.push({ name, ctime, at: hold.at });
    }
    return out;
  }

  /** Facts with Keeper's own clocks, as analyzeLock takes them (built again only after a change). */
  factsForAnalysis(): ReadonlyMap<string, ContenderFacts> {
    if (this.factsCache?.version === this.version) return this.factsCache.facts;
    const out = new Map<string, ContenderFacts>();
    for (const [name, f] of this.facts) {
      let hold = this.holds.get(name);
      // A hold remembered from before a restart belongs to the node it was seen on: another node of the same name is not it.
      if (hold?.ctime !== undefined && hold.ctime !== f.ctime) hold = { at: this.firstSeen.get(name) ?? hold.at, kind: 'atLeast' };
      out.set(name, {
        ...f,
        firstSeenAt: this.firstSeen.get(name) ?? f.firstSeenAt,
        holdingSince: hold?.at ?? null,
        holdKind: hold?.kind ?? null,
        provenLeakedAt: this.provenLeaked.get(name) ?? null,
      });
    }
    this.factsCache = { version: this.version, facts: out };
    return out;
  }

  /** Each waiter's leak evidence as the last analysis left it. */
  leakEvidence(): ReadonlyMap<string, LeakEvidence> {
    return this.evidence;
  }

  /** What an analysis folded in: kept for the nodes still listed. */
  keepEvidence(evidence: ReadonlyMap<string, LeakEvidence>): void {
    for (const [name, ev] of evidence) if (this.firstSeen.has(name)) this.evidence.set(name, ev);
  }

  /** A report called these contenders `leaked`: remembered while their nodes exist. */
  markLeaked(names: readonly string[], at: number): void {
    for (const name of names) {
      if (!this.firstSeen.has(name) || this.provenLeaked.has(name)) continue;
      this.provenLeaked.set(name, at);
      this.factsCache = null;
    }
  }

  /** Re-recognize with the parent's children as they are now (kazoo Semaphore and LockingQueue depend on a sibling). */
  siblingsChanged(): void {
    if (this.children) this.recompute();
  }

  private onNode(node: ZnodeState): void {
    if (!node.exists) {
      this.children = null;
      this.facts.clear();
      this.firstSeen.clear();
      this.holds.clear();
      this.evidence.clear();
      this.setState({ kind: 'notLock', message: `${this.path} does not exist (it is watched: it shows here if it is created)` });
      this.deps.onGone?.(this);
      return;
    }
    const data = node.data;
    const bytes = data.encoding === 'base64' ? Buffer.from(data.value, 'base64') : Buffer.from(data.value, 'utf8');
    this.directoryData = data.truncated ? null : bytes;
    if (this.children) this.recompute();
  }

  private onChildren(names: readonly string[], cversion: number | null): void {
    if (this.closed) return;
    this.children = names;
    this.cversion = cversion;
    // Reading 100,000 names by recipe takes tens of ms: a busy big directory is read again at most every BIG_RECOMPUTE_MS.
    if (names.length < BIG_DIRECTORY) return this.recompute();
    if (this.recomputeTimer) return;
    this.recomputeTimer = setTimeout(
      () => {
        this.recomputeTimer = null;
        if (this.closed) return;
        const began = performance.now();
        this.recompute();
        this.recomputeNotBefore = Date.now() + (performance.now() - began) / BIG_RECOMPUTE_SHARE;
      },
      Math.max(BIG_RECOMPUTE_MS, this.recomputeNotBefore - Date.now()),
    );
  }

  /** Whether nothing was deleted from the directory since `sequence` was created (see the file's comment). */
  private nothingDeletedSince(sequence: number | null, later: number): boolean {
    return sequence !== null && this.cversion !== null && this.cversion - (sequence + 1) === later;
  }

  private recompute(): void {
    const names = this.children ?? [];
    const now = this.deps.now();
    const firstListing = !this.listedBefore;
    const present = new Set(names);
    const newNames = new Set<string>();
    for (const name of names) {
      if (this.firstSeen.has(name)) continue;
      this.firstSeen.set(name, now);
      newNames.add(name);
    }
    for (const map of [this.firstSeen, this.holds, this.facts, this.provenLeaked, this.evidence] as Map<string, unknown>[]) {
      for (const name of map.keys()) if (!present.has(name)) map.delete(name);
    }
    this.listedBefore = true;
    this.recognize(names, now, firstListing, newNames);
  }

  private recognize(names: readonly string[], now: number, firstListing: boolean, newNames: ReadonlySet<string>): void {
    if (names.length === 0) {
      this.setState({ kind: 'notLock', message: `${this.path} has no children: no contender now` });
      return;
    }
    const lock = recognizeLock({ path: this.path, children: names, siblings: this.deps.siblings(), patterns: this.deps.patterns });
    if (!lock) {
      this.setState({ kind: 'notLock', message: `the children of ${this.path} match no known lock, election, semaphore or queue recipe` });
      return;
    }
    const permits = resolvePermits(lock.recipe, this.directoryData, this.deps.configuredPermits(this.path)).permits;
    const plan = planHolding(lock.recipe.holding, lock.contenders, lock.recipe.holding === 'firstN' ? permits : null);
    // Nodes after each position that are still there, counted from the end (sequence order).
    const n = lock.contenders.length;
    let holdsChanged = false;
    for (let i = 0; i < n; i++) {
      const c = lock.contenders[i]!;
      if (!plan.holding[i]) {
        if (this.holds.delete(c.name)) holdsChanged = true;
        continue;
      }
      if (this.holds.has(c.name)) continue;
      const remembered = this.remembered.get(c.name);
      if (this.nothingDeletedSince(c.sequence, n - 1 - i)) this.holds.set(c.name, { at: now, kind: 'created' });
      else if (!firstListing) this.holds.set(c.name, { at: now, kind: 'seen' });
      else if (remembered) this.holds.set(c.name, { at: remembered.at, kind: 'seen', ctime: remembered.ctime });
      else this.holds.set(c.name, { at: now, kind: 'atLeast' });
      if (!firstListing || newNames.has(c.name)) holdsChanged = true;
    }
    this.remembered.clear();
    this.setState({ kind: 'lock', lock });
    if (holdsChanged) this.deps.onHoldsChanged?.(this);
    this.fetchFacts(lock, plan.holding);
  }

  /** The first `factsLimit` contenders in order, plus any holder beyond them (a semaphore's leases), capped. */
  private fetchFacts(lock: RecognizedLock, holding: readonly boolean[]): void {
    const wanted: string[] = [];
    lock.contenders.forEach((c, i) => {
      if (i < this.deps.factsLimit || (holding[i] && wanted.length < 2 * this.deps.factsLimit)) wanted.push(c.name);
    });
    for (const name of wanted) {
      if (this.facts.has(name) || this.reading.has(name)) continue;
      this.reading.add(name);
      void this.deps.reads
        .run(() => (this.closed ? Promise.resolve(null) : this.deps.readNode(joinPath(this.path, name))))
        .then(
          (node) => {
            if (node && !this.closed && this.firstSeen.has(name)) {
              this.facts.set(name, {
                ephemeralOwner: node.stat.ephemeralOwner,
                ctime: node.stat.ctime,
                data: node.data,
                version: node.stat.version,
                firstSeenAt: this.firstSeen.get(name)!,
              });
            }
          },
          (error: unknown) => this.deps.log.debug({ err: error, path: joinPath(this.path, name) }, 'lock contender not read'),
        )
        .finally(() => {
          this.reading.delete(name);
          this.changed();
          if (this.reading.size === 0) this.wakeReady();
        });
    }
    if (this.reading.size === 0) this.wakeReady();
  }

  private setState(state: DirectoryState): void {
    this.state = state;
    this.changed();
    if (state.kind !== 'lock') this.wakeReady();
  }

  private changed(): void {
    if (this.closed) return;
    this.changedAt = this.deps.now();
    this.version += 1;
    this.deps.onChange(this);
  }

  private wakeReady(): void {
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const wake of waiters) wake();
  }
}
