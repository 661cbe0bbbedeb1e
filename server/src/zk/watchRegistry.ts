/**
 * One ZooKeeper watch per znode, however many subscribers (browsers) want it.
 *
 * Each watched path keeps the last state it read (node + children). A new subscriber gets
 * that state at once, without a ZooKeeper call, so N browsers cost what one costs.
 * Watches are one-time triggers that carry no data: after an event the registry re-reads
 * exactly what changed (data, children, or existence) with a new watch, coalescing events
 * that arrive while a read is in flight. After a new session every path is re-read.
 *
 * When the last subscriber of a path leaves, its entry (and cached state) is dropped at once
 * and the ZooKeeper watch is removed with removeWatches (ZooKeeper 3.5+), after any read of
 * that path still in flight has settled (a read answered later would arm a new watch). The
 * removals go through a small queue of their own, so thousands of unsubscriptions never crowd
 * the gateway's request queue. A path subscribed again while its removal is queued keeps its
 * watch; while the removal is in flight, the new subscriber's reads wait for it. On a server
 * that does not implement removeWatches (older than 3.5) the watch is left armed and counted:
 * a one-time watch, it dies at its next event, which finds no entry and is dropped.
 */
import type { Logger } from 'pino';
import type zookeeper from 'node-zookeeper-client';
import {
  backoffDelay,
  diffChildren,
  encodeZnodeData,
  type Backoff,
  type EncodedData,
  type ChildrenDiff,
  type WatchEventType,
  type ZnodeState,
  type ZnodeStat,
} from '@keeper/shared';
import type { ZkError } from './errors.js';
import { toZkError } from './errors.js';
import { WATCHER_TYPE, removeWatches } from './nzcPatches.js';

export interface ZkWatchEvent {
  name: string;
  path: string;
}

export interface ChildrenUpdate {
  /** The full, current list (unsorted, as ZooKeeper returned it). */
  names: readonly string[];
  /** What changed since the previous list; null when there is no previous list to diff against. */
  diff: ChildrenDiff | null;
  /** The parent's cversion the list was read at (each child created or deleted adds one); null when unknown. */
  cversion: number | null;
}

/** What the registry holds of a watched znode (see held()). */
export interface HeldZnode {
  /** As of the latest read of the znode. */
  stat: ZnodeStat;
  /** As of the latest getData (no change since: it would be owed). */
  data: EncodedData;
  /** Unsorted, as ZooKeeper returned them; never mutated (a change replaces the array). */
  children: readonly string[];
  /** The pzxid `children` were read at: their version. */
  childrenPzxid: string;
}

export interface WatchListener {
  onNode(state: ZnodeState): void;
  onChildren(update: ChildrenUpdate): void;
  onWatchEvent(type: WatchEventType, at: number): void;
  onError(error: ZkError, retrying: boolean): void;
}

/** The reads the registry needs; the gateway provides them with deadlines and retries. */
export interface WatchReader {
  exists(path: string, opts: { watch: boolean }): Promise<ZnodeStat | null>;
  getData(path: string, opts: { watch: boolean }): Promise<{ data: Buffer; stat: ZnodeStat }>;
  getChildren(path: string, opts: { watch: boolean }): Promise<{ children: string[]; stat: ZnodeStat }>;
  /**
   * One un-retried call with the current client (the gateway's callOnce: deadline, request cap,
   * a live session). Used to send removeWatches; a reader without it never removes watches.
   */
  callOnce?<T>(
    op: string,
    path: string,
    invoke: (client: zookeeper.Client, done: (error: unknown, value?: T) => void) => void,
    opts?: { deadlineMs?: number },
  ): Promise<T>;
}

export interface WatchRegistryOptions {
  /** Watch reads in flight at once (the rest wait here, not in the gateway's shared queue). */
  readConcurrency?: number;
  /** removeWatches requests in flight at once. */
  removalConcurrency?: number;
  /** Deadline of one removeWatches. */
  removalDeadlineMs?: number;
}

/** What became of the ZooKeeper watches of paths nobody subscribes to any more. */
export interface WatchRemovalStats {
  /** removeWatches answered OK: the member no longer holds the watch. */
  removed: number;
  /** NO_WATCHER: nothing was armed (a read failed, or the watch had fired). */
  nothingToRemove: number;
  /** The server does not implement removeWatches (older than 3.5): left armed until its next event. */
  leftArmed: number;
  /** Still no answer after the retries (deadline, connection lost, overloaded): left to die at its next event. */
  failed: number;
  /** Waiting for their turn. */
  queued: number;
  inFlight: number;
}

/**
 * Half the gateway's default cap on requests in flight: a flood of subscriptions (thousands of
 * paths at once, or every path re-read after a new session) waits its turn here and never fills
 * the gateway's queue, which an admin's request would then find OVERLOADED.
 */
const DEFAULT_READ_CONCURRENCY = 32;
const DEFAULT_REMOVAL_CONCURRENCY = 4;
const DEFAULT_REMOVAL_DEADLINE_MS = 10_000;
/** A removal that got no answer is tried again this many times, 1 s, 2 s, 4 s later (a repeat is harmless: NO_WATCHER). */
const REMOVAL_RETRIES = 3;
/** Unjittered: removals are this console's own housekeeping on its own session, no herd to spread. */
const REMOVAL_RETRY: Backoff = { baseMs: 1_000, capMs: 4_000, jitter: [1, 1] };
/** Re-reading a watched node after a transient failure, for as long as it is watched: no deadline, so a longer cap than a read's. */
const RESYNC_RETRY: Backoff = { baseMs: 200, capMs: 10_000, jitter: [0.5, 1] };
/** Answers after which trying again cannot help: the watch is gone with the session, or the registry is closed. */
const REMOVAL_FINAL = new Set(['SESSION_EXPIRED', 'CLOSED', 'INVALID_PATH']);

const NEED_EXISTS = 1;
const NEED_DATA = 2;
const NEED_CHILDREN = 4;
const NEED_ALL = NEED_EXISTS | NEED_DATA | NEED_CHILDREN;

interface Entry {
  path: string;
  listeners: Set<WatchListener>;
  node: ZnodeState | null;
  children: string[] | null;
  /** The znode's stat as of the latest read of it (each read answers with one). */
  stat: ZnodeStat | null;
  /** The pzxid the latest getChildren answered with: the version of `children`. */
  childrenPzxid: string | null;
  /** The cversion that getChildren answered with. */
  childrenCversion: number | null;
  /** Reads still owed (bit flags above). */
  pending: number;
  syncing: boolean;
  retryAttempt: number;
  retryTimer: NodeJS.Timeout | null;
  /** A removeWatches of this path (from an earlier entry) is in flight: reads wait for it. */
  waitingForRemoval: boolean;
  /** The last subscriber left while a read was in flight: remove the watch once it settles. */
  removeWhenIdle: boolean;
  /** A read with a watch was sent for this entry: there may be a ZooKeeper watch to remove. */
  armed: boolean;
  /** Listeners other than Keeper's own (watch(..., {internal: true})): the path counts in watchedPaths while > 0. */
  browserListeners: number;
}

const EVENT_TYPES: Record<string, WatchEventType> = {
  NODE_CREATED: 'created',
  NODE_DELETED: 'deleted',
  NODE_DATA_CHANGED: 'dataChanged',
  NODE_CHILDREN_CHANGED: 'childrenChanged',
};

export class WatchRegistry {
  private readonly entries = new Map<string, Entry>();
  /**
   * Entries with a listener other than Keeper's own: watchedPaths, kept as a count because the hub
   * asks for it at every subscription (counting the entries each time made a flood of N
   * subscriptions cost N^2/2 steps: 5,000 paths, 12.5 million).
   */
  private browserWatched = 0;
  /** Paths whose ZooKeeper watch is to be removed, oldest first. */
  private readonly removalQueue = new Set<string>();
  private readonly removalsInFlight = new Map<string, Promise<void>>();
  /** Removals that failed and wait to be tried again: path -> attempts made. */
  private readonly removalRetries = new Map<string, number>();
  /** False once a member answered UNIMPLEMENTED; asked again after a new session. */
  private removeWatchesSupported = true;
  private readonly removalCounts = { removed: 0, nothingToRemove: 0, leftArmed: 0, failed: 0 };
  private readonly removalConcurrency: number;
  private readonly readConcurrency: number;
  private readsInFlight = 0;
  private readonly readWaiters: (() => void)[] = [];
  private readonly removalDeadlineMs: number;
  /** ZooKeeper reads made on behalf of watches, for benchmarks and metrics. */
  reads = 0;

  constructor(
    private readonly reader: WatchReader,
    private readonly log: Logger,
    options: WatchRegistryOptions = {},
  ) {
    this.removalConcurrency = Math.max(1, options.removalConcurrency ?? DEFAULT_REMOVAL_CONCURRENCY);
    this.readConcurrency = Math.max(1, options.readConcurrency ?? DEFAULT_READ_CONCURRENCY);
    this.removalDeadlineMs = options.removalDeadlineMs ?? DEFAULT_REMOVAL_DEADLINE_MS;
  }

  /** Paths browsers (or anyone but Keeper's own followers) watch: what the hub's cap on watched paths counts. */
  get watchedPaths(): number {
    return this.browserWatched;
  }

  /** The paths some subscriber watches now (what held() may answer for). */
  watchedPathList(): string[] {
    return [...this.entries.keys()];
  }

  /** Whether some subscriber holds a watch on the path now. */
  isWatched(path: string): boolean {
    return this.entries.has(path);
  }

  /**
   * A watched znode as the registry holds it, with no ZooKeeper call: null unless some subscriber
   * watches it, it exists, and nothing is owed (no watch event waits to be read, no read is in
   * flight or waiting to be retried). It is then as current as the session's view: a change the
   * member has not yet told the session of is not in it, as a read from a lagging follower would
   * not have it either. The caller checks that the session is connected (events are arriving).
   */
  held(path: string): HeldZnode | null {
    const entry = this.entries.get(path);
    if (!entry || entry.pending !== 0 || entry.syncing || entry.retryTimer || entry.waitingForRemoval) return null;
    const { node, children, stat, childrenPzxid } = entry;
    if (!node?.exists || children === null || stat === null || childrenPzxid === null) return null;
    return { stat, data: node.data, children, childrenPzxid };
  }

  get removalStats(): WatchRemovalStats {
    return { ...this.removalCounts, queued: this.removalQueue.size, inFlight: this.removalsInFlight.size };
  }

  /**
   * Subscribes a listener to a path; returns the unsubscribe function. An `internal` listener is
   * Keeper's own (the /zookeeper/config follower): the same one watch, not counted as a watched
   * path against the browsers' cap.
   */
  watch(path: string, listener: WatchListener, opts: { internal?: boolean } = {}): () => void {
    const browser = !opts.internal;
    let entry = this.entries.get(path);
    if (!entry) {
      entry = {
        path,
        listeners: new Set(),
        node: null,
        children: null,
        stat: null,
        childrenPzxid: null,
        childrenCversion: null,
        pending: 0,
        syncing: false,
        retryAttempt: 0,
        retryTimer: null,
        waitingForRemoval: false,
        removeWhenIdle: false,
        armed: false,
        browserListeners: 0,
      };
      this.entries.set(path, entry);
      this.addListener(entry, listener, browser);
      // A removal not yet sent (or waiting to be retried) is simply called off: the watch it would remove is wanted again.
      this.removalQueue.delete(path);
      this.removalRetries.delete(path);
      const removal = this.removalsInFlight.get(path);
      if (removal) {
        const waiting = entry;
        waiting.waitingForRemoval = true;
        waiting.pending |= NEED_ALL;
        void removal.finally(() => {
          waiting.waitingForRemoval = false;
          if (this.isLive(waiting)) this.request(waiting, 0);
        });
      } else {
        this.request(entry, NEED_ALL);
      }
    } else {
      this.addListener(entry, listener, browser);
      // Join an existing watch: hand over what is known, no ZooKeeper call.
      if (entry.node) listener.onNode(entry.node);
      if (entry.children) listener.onChildren({ names: entry.children, diff: null, cversion: entry.childrenCversion });
    }
    const owner = entry;
    return () => {
      if (owner.listeners.delete(listener) && browser) this.countBrowserListener(owner, -1);
      if (owner.listeners.size === 0 && this.entries.get(path) === owner) this.release(owner);
    };
  }

  private addListener(entry: Entry, listener: WatchListener, browser: boolean): void {
    if (entry.listeners.has(listener)) return;
    entry.listeners.add(listener);
    if (browser) this.countBrowserListener(entry, 1);
  }

  /** Keeps browserWatched true for the live entries; an entry already dropped counts for nothing. */
  private countBrowserListener(entry: Entry, delta: 1 | -1): void {
    const before = entry.browserListeners;
    entry.browserListeners += delta;
    if (!this.isLive(entry)) return;
    if (before === 0 && entry.browserListeners > 0) this.browserWatched++;
    else if (before > 0 && entry.browserListeners === 0) this.browserWatched--;
  }

  /** The last subscriber left: free the entry and its cached state now, remove the ZooKeeper watch soon. */
  private release(entry: Entry): void {
    if (entry.retryTimer) clearTimeout(entry.retryTimer);
    entry.retryTimer = null;
    this.entries.delete(entry.path);
    if (entry.browserListeners > 0) this.browserWatched--;
    entry.node = null;
    entry.children = null;
    entry.stat = null;
    entry.childrenPzxid = null;
    entry.childrenCversion = null;
    entry.pending = 0;
    // An entry that never sent a read (it waited for a slot, or for an earlier removal) armed nothing.
    if (entry.syncing) entry.removeWhenIdle = true;
    else if (entry.armed) this.queueRemoval(entry.path);
  }

  private queueRemoval(path: string): void {
    // Subscribed again meanwhile: the new entry owns the watch.
    if (this.entries.has(path)) return;
    if (!this.reader.callOnce) return;
    if (!this.removeWatchesSupported) {
      this.removalCounts.leftArmed++;
      return;
    }
    this.removalQueue.add(path);
    this.pumpRemovals();
  }

  private pumpRemovals(): void {
    while (this.removalsInFlight.size < this.removalConcurrency && this.removalQueue.size > 0) {
      const path = this.removalQueue.values().next().value as string;
      this.removalQueue.delete(path);
      if (this.entries.has(path) || this.removalsInFlight.has(path)) continue;
      const removal = this.removeOnServer(path).finally(() => {
        this.removalsInFlight.delete(path);
        this.pumpRemovals();
      });
      this.removalsInFlight.set(path, removal);
    }
  }

  private async removeOnServer(path: string): Promise<void> {
    const callOnce = this.reader.callOnce?.bind(this.reader);
    if (!callOnce) return;
    if (!this.removeWatchesSupported) {
      this.removalCounts.leftArmed++;
      return;
    }
    try {
      await callOnce<void>('removeWatches', path, (client, done) => removeWatches(client, path, WATCHER_TYPE.any, done), {
        deadlineMs: this.removalDeadlineMs,
      });
      this.removalRetries.delete(path);
      this.removalCounts.removed++;
    } catch (error) {
      const code = toZkError(error, path).code;
      if (code === 'NO_WATCHER') {
        this.removalRetries.delete(path);
        this.removalCounts.nothingToRemove++;
      } else if (code === 'UNIMPLEMENTED') {
        this.removalRetries.delete(path);
        if (this.removeWatchesSupported)
          this.log.warn('the ensemble does not implement removeWatches (ZooKeeper older than 3.5): watches of paths nobody views stay armed until they fire');
        this.removeWatchesSupported = false;
        this.removalCounts.leftArmed++;
      } else {
        this.retryRemoval(path, code);
      }
    }
  }

  /** Called by the gateway for every watch notification of the session. */
  onZkEvent(event: ZkWatchEvent): void {
    const entry = this.entries.get(event.path);
    if (!entry) return;
    const type = EVENT_TYPES[event.name];
    if (!type) return;
    // A deletion fires the data watch and the child watch together: report it once.
    if (type === 'deleted' && entry.node?.exists === false) return;
    const at = Date.now();
    for (const listener of entry.listeners) listener.onWatchEvent(type, at);
    switch (type) {
      case 'created':
        this.request(entry, NEED_ALL);
        return;
      case 'dataChanged':
        this.request(entry, NEED_DATA);
        return;
      case 'childrenChanged':
        this.request(entry, NEED_CHILDREN);
        return;
      case 'deleted':
        // Say so at once, then watch for re-creation.
        this.publishNode(entry, { exists: false });
        this.publishChildren(entry, []);
        this.request(entry, NEED_ALL);
        return;
    }
  }

  /** After a new session, every watch is gone: read everything again with new watches. */
  private retryRemoval(path: string, code: string): void {
    const attempts = (this.removalRetries.get(path) ?? 0) + 1;
    if (attempts > REMOVAL_RETRIES || REMOVAL_FINAL.has(code)) {
      this.removalRetries.delete(path);
      this.removalCounts.failed++;
      this.log.debug({ path, code }, 'removeWatches failed');
      return;
    }
    this.removalRetries.set(path, attempts);
    setTimeout(
      () => {
        if (this.removalRetries.get(path) !== attempts) return;
        // Subscribed again meanwhile: the new entry owns the watch (queueRemoval checks).
        this.queueRemoval(path);
      },
      backoffDelay(attempts - 1, REMOVAL_RETRY),
    ).unref();
  }

  /**
   * Reads a watched path again, as if a watch had fired: for changes ZooKeeper sends no event
   * for (an ACL set through Keeper), so neither subscribers nor held() go on with the old answer.
   */
  refresh(path: string): void {
    const entry = this.entries.get(path);
    if (entry) this.request(entry, NEED_ALL);
  }

  rearmAll(): void {
    // The old session's watches died with it: nothing left to remove.
    this.removalQueue.clear();
    this.removalRetries.clear();
    this.removeWatchesSupported = true;
    for (const entry of this.entries.values()) this.request(entry, NEED_ALL);
  }

  clear(): void {
    for (const entry of this.entries.values()) if (entry.retryTimer) clearTimeout(entry.retryTimer);
    this.entries.clear();
    this.browserWatched = 0;
    this.removalQueue.clear();
    this.removalRetries.clear();
    // Syncs waiting for a read slot wake, find their entry gone and end (each takes the slot it frees).
    for (const wake of this.readWaiters.splice(0)) {
      this.readsInFlight++;
      wake();
    }
  }

  private request(entry: Entry, needs: number): void {
    entry.pending |= needs;
    if (!entry.syncing && !entry.retryTimer && !entry.waitingForRemoval && entry.pending !== 0) void this.sync(entry);
  }

  private isLive(entry: Entry): boolean {
    return this.entries.get(entry.path) === entry;
  }

  private async sync(entry: Entry): Promise<void> {
    entry.syncing = true;
    try {
      while (entry.pending !== 0 && this.isLive(entry)) {
        await this.readSlot();
        let needs = 0;
        try {
          // Released while waiting for a slot: nothing to read for it.
          if (!this.isLive(entry)) return;
          needs = entry.pending;
          entry.pending = 0;
          await this.read(entry, needs);
          entry.retryAttempt = 0;
        } catch (error) {
          const zkError = toZkError(error, entry.path);
          entry.pending |= needs;
          const retrying = zkError.transient || zkError.code === 'DEADLINE_EXCEEDED' || zkError.code === 'OVERLOADED';
          for (const listener of entry.listeners) listener.onError(zkError, retrying);
          if (retrying && this.isLive(entry)) {
            const delay = backoffDelay(entry.retryAttempt++, RESYNC_RETRY);
            entry.retryTimer = setTimeout(() => {
              entry.retryTimer = null;
              if (this.isLive(entry)) void this.sync(entry);
            }, delay);
          } else {
            entry.pending = 0;
            // What was held before is no longer known to be true (NO_AUTH after an ACL change): held() answers null until a read succeeds.
            entry.stat = null;
            this.log.warn({ path: entry.path, code: zkError.code }, 'watch read failed');
          }
          return;
        } finally {
          this.releaseReadSlot();
        }
      }
    } finally {
      entry.syncing = false;
      if (entry.removeWhenIdle && !entry.retryTimer) {
        entry.removeWhenIdle = false;
        if (entry.armed) this.queueRemoval(entry.path);
      }
    }
  }

  /** Waits for one of the registry's read slots (FIFO). */
  private readSlot(): Promise<void> {
    if (this.readsInFlight < this.readConcurrency) {
      this.readsInFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.readWaiters.push(resolve));
  }

  private releaseReadSlot(): void {
    const next = this.readWaiters.shift();
    // The slot passes straight to the next waiter: the count stays.
    if (next) next();
    else this.readsInFlight--;
  }

  private async read(entry: Entry, needs: number): Promise<void> {
    const { path } = entry;
    entry.armed = true;
    if (needs & NEED_EXISTS) {
      this.reads++;
      const stat = await this.reader.exists(path, { watch: true });
      if (!stat) {
        this.publishNode(entry, { exists: false });
        this.publishChildren(entry, []);
        return;
      }
      entry.stat = stat;
      needs |= NEED_DATA | NEED_CHILDREN;
    }
    // Released meanwhile: read (and arm) nothing more for a path nobody wants.
    if (!this.isLive(entry)) return;
    if (needs & NEED_DATA) {
      this.reads++;
      const result = await this.readOrVanish(entry, () => this.reader.getData(path, { watch: true }));
      if (!result) return;
      entry.stat = result.stat;
      this.publishNode(entry, { exists: true, stat: result.stat, data: encodeZnodeData(result.data) });
    }
    if (!this.isLive(entry)) return;
    if (needs & NEED_CHILDREN) {
      this.reads++;
      const result = await this.readOrVanish(entry, () => this.reader.getChildren(path, { watch: true }));
      if (!result) return;
      entry.stat = result.stat;
      entry.childrenPzxid = result.stat.pzxid;
      entry.childrenCversion = result.stat.cversion;
      this.publishChildren(entry, result.children);
    }
  }

  /** A node deleted between our reads: fall back to an exists watch for its re-creation. */
  private async readOrVanish<T>(entry: Entry, read: () => Promise<T>): Promise<T | null> {
    try {
      return await read();
    } catch (error) {
      if (toZkError(error).code !== 'NO_NODE') throw error;
      this.publishNode(entry, { exists: false });
      this.publishChildren(entry, []);
      entry.pending |= NEED_EXISTS;
      return null;
    }
  }

  private publishNode(entry: Entry, node: ZnodeState): void {
    const before = entry.node;
    if (before && !before.exists && !node.exists) return; // still absent: nothing new
    entry.node = node;
    for (const listener of entry.listeners) listener.onNode(node);
  }

  private publishChildren(entry: Entry, names: string[]): void {
    const before = entry.children;
    const diff = before ? diffChildren(before, names) : null;
    if (diff && diff.added.length === 0 && diff.removed.length === 0) return;
    entry.children = names;
    const cversion = entry.childrenCversion;
    for (const listener of entry.listeners) listener.onChildren({ names, diff, cversion });
  }
}
