/**
 * One directory Keeper watches for a lock: its children through the watch registry (one
 * ZooKeeper watch however many browsers look), recognized by recipe on every change, and the
 * facts of the contenders that matter (owner, ctime, data, version: the first `factsLimit` in
 * the recipe's order, so a 100,000-node directory costs its child list plus a few hundred
 * reads, never 100,000). Facts are read once per node: a contender's owner and ctime never
 * change, and its data rarely does (the recipes write it at create).
 *
 * Keeper's own clock marks when a node was first listed (`firstSeenAt`: the leak proof only
 * counts gatherings asked after it) and when it was first seen holding (`holdingSince`).
 */
import type { Logger } from 'pino';
import {
  joinPath,
  planHolding,
  recognizeLock,
  resolvePermits,
  type ContenderFacts,
  type RecipeDefinition,
  type RecognizedLock,
  type ZnodeStat,
  type ZnodeState,
} from '@keeper/shared';
import type { Semaphore } from '../ops/pool.js';
import type { WatchListener } from '../zk/watchRegistry.js';
import type { ZkError } from '../zk/errors.js';

/** A directory this large is recognized again at most every BIG_RECOMPUTE_MS, however fast its children change. */
const BIG_DIRECTORY = 5_000;
const BIG_RECOMPUTE_MS = 200;

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
  private readonly holdingSince = new Map<string, number>();
  /** Names a report called `leaked`: once such a node reaches the front, no watch can prove it again (a holder sets none). */
  private readonly provenLeaked = new Map<string, number>();
  private readonly reading = new Set<string>();
  private unwatch: (() => void) | null = null;
  private children: readonly string[] | null = null;
  private readyWaiters: (() => void)[] = [];
  private closed = false;
  private recomputeTimer: NodeJS.Timeout | null = null;
  /** Keeper's clock at the last change seen (children, data or facts). */
  changedAt: number;

  constructor(
    readonly path: string,
    private readonly deps: LockDirectoryDeps,
  ) {
    this.changedAt = deps.now();
  }

  start(): void {
    this.unwatch = this.deps.watch(this.path, {
      onNode: (node) => this.onNode(node),
      onChildren: ({ names }) => this.onChildren(names),
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

  holdingSinceOf(name: string): number | null {
    return this.holdingSince.get(name) ?? null;
  }

  /** Facts with Keeper's own clocks, as analyzeLock takes them. */
  factsForAnalysis(): Map<string, ContenderFacts> {
    const out = new Map<string, ContenderFacts>();
    for (const [name, f] of this.facts) {
      out.set(name, {
        ...f,
        firstSeenAt: this.firstSeen.get(name) ?? f.firstSeenAt,
        holdingSince: this.holdingSince.get(name) ?? null,
        provenLeakedAt: this.provenLeaked.get(name) ?? null,
      });
    }
    return out;
  }

  /** A report called these contenders `leaked`: remembered while their nodes exist. */
  markLeaked(names: readonly string[], at: number): void {
    for (const name of names) if (this.firstSeen.has(name) && !this.provenLeaked.has(name)) this.provenLeaked.set(name, at);
  }

  /** Re-recognize with the parent's children as they are now (kazoo Semaphore and LockingQueue depend on a sibling). */
  siblingsChanged(): void {
    if (this.children) this.onChildren(this.children);
  }

  private onNode(node: ZnodeState): void {
    if (!node.exists) {
      this.children = null;
      this.facts.clear();
      this.firstSeen.clear();
      this.holdingSince.clear();
      this.setState({ kind: 'notLock', message: `${this.path} does not exist (it is watched: it shows here if it is created)` });
      return;
    }
    const data = node.data;
    const bytes = data.encoding === 'base64' ? Buffer.from(data.value, 'base64') : Buffer.from(data.value, 'utf8');
    this.directoryData = data.truncated ? null : bytes;
    if (this.children) this.recompute();
  }

  private onChildren(names: readonly string[]): void {
    if (this.closed) return;
    this.children = names;
    const now = this.deps.now();
    const present = new Set(names);
    for (const name of names) if (!this.firstSeen.has(name)) this.firstSeen.set(name, now);
    for (const map of [this.firstSeen, this.holdingSince, this.facts, this.provenLeaked] as Map<string, unknown>[]) {
      for (const name of map.keys()) if (!present.has(name)) map.delete(name);
    }
    // Reading 100,000 names by recipe takes tens of ms: a busy big directory is read again at most every BIG_RECOMPUTE_MS.
    if (names.length < BIG_DIRECTORY) return this.recompute();
    if (this.recomputeTimer) return;
    this.recomputeTimer = setTimeout(() => {
      this.recomputeTimer = null;
      if (!this.closed) this.recompute();
    }, BIG_RECOMPUTE_MS);
  }

  private recompute(): void {
    const names = this.children ?? [];
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
    const now = this.deps.now();
    lock.contenders.forEach((c, i) => {
      if (plan.holding[i]) {
        if (!this.holdingSince.has(c.name)) this.holdingSince.set(c.name, now);
      } else this.holdingSince.delete(c.name);
    });
    this.setState({ kind: 'lock', lock });
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
    this.deps.onChange(this);
  }

  private wakeReady(): void {
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const wake of waiters) wake();
  }
}
