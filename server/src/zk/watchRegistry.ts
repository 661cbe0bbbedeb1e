/**
 * One ZooKeeper watch per znode, however many subscribers (browsers) want it.
 *
 * Each watched path keeps the last state it read (node + children). A new subscriber gets
 * that state at once, without a ZooKeeper call, so N browsers cost what one costs.
 * Watches are one-time triggers that carry no data: after an event the registry re-reads
 * exactly what changed (data, children, or existence) with a new watch, coalescing events
 * that arrive while a read is in flight. After a new session every path is re-read.
 */
import type { Logger } from 'pino';
import { diffChildren, encodeZnodeData, type ChildrenDiff, type WatchEventType, type ZnodeState, type ZnodeStat } from '@keeper/shared';
import type { ZkError } from './errors.js';
import { toZkError } from './errors.js';
import { backoffDelay } from './backoff.js';

export interface ZkWatchEvent {
  name: string;
  path: string;
}

export interface ChildrenUpdate {
  /** The full, current list (unsorted, as ZooKeeper returned it). */
  names: readonly string[];
  /** What changed since the previous list; null when there is no previous list to diff against. */
  diff: ChildrenDiff | null;
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
}

const NEED_EXISTS = 1;
const NEED_DATA = 2;
const NEED_CHILDREN = 4;
const NEED_ALL = NEED_EXISTS | NEED_DATA | NEED_CHILDREN;

interface Entry {
  path: string;
  listeners: Set<WatchListener>;
  node: ZnodeState | null;
  children: string[] | null;
  /** Reads still owed (bit flags above). */
  pending: number;
  syncing: boolean;
  retryAttempt: number;
  retryTimer: NodeJS.Timeout | null;
}

const EVENT_TYPES: Record<string, WatchEventType> = {
  NODE_CREATED: 'created',
  NODE_DELETED: 'deleted',
  NODE_DATA_CHANGED: 'dataChanged',
  NODE_CHILDREN_CHANGED: 'childrenChanged',
};

export class WatchRegistry {
  private readonly entries = new Map<string, Entry>();
  /** ZooKeeper reads made on behalf of watches, for benchmarks and metrics. */
  reads = 0;

  constructor(
    private readonly reader: WatchReader,
    private readonly log: Logger,
  ) {}

  get watchedPaths(): number {
    return this.entries.size;
  }

  /** Subscribes a listener to a path; returns the unsubscribe function. */
  watch(path: string, listener: WatchListener): () => void {
    let entry = this.entries.get(path);
    if (!entry) {
      entry = { path, listeners: new Set(), node: null, children: null, pending: 0, syncing: false, retryAttempt: 0, retryTimer: null };
      this.entries.set(path, entry);
      entry.listeners.add(listener);
      this.request(entry, NEED_ALL);
    } else {
      entry.listeners.add(listener);
      // Join an existing watch: hand over what is known, no ZooKeeper call.
      if (entry.node) listener.onNode(entry.node);
      if (entry.children) listener.onChildren({ names: entry.children, diff: null });
    }
    const owner = entry;
    return () => {
      owner.listeners.delete(listener);
      if (owner.listeners.size === 0 && this.entries.get(path) === owner) {
        // The ZooKeeper watch stays armed until it fires (the client cannot remove
        // watches); when it does, no entry is found and the event is dropped.
        if (owner.retryTimer) clearTimeout(owner.retryTimer);
        this.entries.delete(path);
      }
    };
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
  rearmAll(): void {
    for (const entry of this.entries.values()) this.request(entry, NEED_ALL);
  }

  clear(): void {
    for (const entry of this.entries.values()) if (entry.retryTimer) clearTimeout(entry.retryTimer);
    this.entries.clear();
  }

  private request(entry: Entry, needs: number): void {
    entry.pending |= needs;
    if (!entry.syncing && !entry.retryTimer) void this.sync(entry);
  }

  private isLive(entry: Entry): boolean {
    return this.entries.get(entry.path) === entry;
  }

  private async sync(entry: Entry): Promise<void> {
    entry.syncing = true;
    try {
      while (entry.pending !== 0 && this.isLive(entry)) {
        const needs = entry.pending;
        entry.pending = 0;
        try {
          await this.read(entry, needs);
          entry.retryAttempt = 0;
        } catch (error) {
          const zkError = toZkError(error, entry.path);
          entry.pending |= needs;
          const retrying = zkError.transient || zkError.code === 'DEADLINE_EXCEEDED' || zkError.code === 'OVERLOADED';
          for (const listener of entry.listeners) listener.onError(zkError, retrying);
          if (retrying && this.isLive(entry)) {
            const delay = backoffDelay(entry.retryAttempt++, { initialDelayMs: 200, maxDelayMs: 10_000, multiplier: 2 });
            entry.retryTimer = setTimeout(() => {
              entry.retryTimer = null;
              if (this.isLive(entry)) void this.sync(entry);
            }, delay);
          } else {
            entry.pending = 0;
            this.log.warn({ path: entry.path, code: zkError.code }, 'watch read failed');
          }
          return;
        }
      }
    } finally {
      entry.syncing = false;
    }
  }

  private async read(entry: Entry, needs: number): Promise<void> {
    const { path } = entry;
    if (needs & NEED_EXISTS) {
      this.reads++;
      const stat = await this.reader.exists(path, { watch: true });
      if (!stat) {
        this.publishNode(entry, { exists: false });
        this.publishChildren(entry, []);
        return;
      }
      needs |= NEED_DATA | NEED_CHILDREN;
    }
    if (needs & NEED_DATA) {
      this.reads++;
      const result = await this.readOrVanish(entry, () => this.reader.getData(path, { watch: true }));
      if (!result) return;
      this.publishNode(entry, { exists: true, stat: result.stat, data: encodeZnodeData(result.data) });
    }
    if (needs & NEED_CHILDREN) {
      this.reads++;
      const result = await this.readOrVanish(entry, () => this.reader.getChildren(path, { watch: true }));
      if (!result) return;
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
    for (const listener of entry.listeners) listener.onChildren({ names, diff });
  }
}
