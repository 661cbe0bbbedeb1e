/**
 * The watch registry's reference counting and watch removal, against a fake reader (pure
 * logic: the wire format of removeWatches is checked on a real ensemble in
 * limits.integration.test.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import type { ZnodeStat } from '@keeper/shared';
import { ZkError } from '../../src/zk/errors.js';
import { WatchRegistry, type WatchReader } from '../../src/zk/watchRegistry.js';
import { RecordingListener } from '../support/recordingListener.js';
import { testLogger } from '../support/logger.js';

const STAT: ZnodeStat = {
  czxid: '0x1',
  mzxid: '0x1',
  pzxid: '0x1',
  ctime: 0,
  mtime: 0,
  version: 0,
  cversion: 0,
  aversion: 0,
  ephemeralOwner: '0x0',
  dataLength: 1,
  numChildren: 0,
};

interface Deferred {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A reader whose reads answer at once (or wait, when `hold` is set), and whose callOnce stands
 * for removeWatches: each call is recorded and answered by `removalAnswer`, or held.
 */
class FakeReader implements WatchReader {
  reads: string[] = [];
  removals: string[] = [];
  log: string[] = [];
  holdReads = false;
  holdRemovals = false;
  removalAnswer: ZkError | null = null;
  private readonly heldReads: Deferred[] = [];
  private readonly heldRemovals: Deferred[] = [];

  private async read(kind: string, path: string): Promise<void> {
    this.reads.push(`${kind} ${path}`);
    this.log.push(`${kind} ${path}`);
    if (this.holdReads) await new Promise<void>((resolve, reject) => this.heldReads.push({ resolve, reject }));
  }

  async exists(path: string): Promise<ZnodeStat | null> {
    await this.read('exists', path);
    return STAT;
  }
  async getData(path: string): Promise<{ data: Buffer; stat: ZnodeStat }> {
    await this.read('getData', path);
    return { data: Buffer.from('v'), stat: STAT };
  }
  async getChildren(path: string): Promise<{ children: string[]; stat: ZnodeStat }> {
    await this.read('getChildren', path);
    return { children: ['a', 'b'], stat: STAT };
  }
  async callOnce<T>(op: string, path: string): Promise<T> {
    expect(op).toBe('removeWatches');
    this.removals.push(path);
    this.log.push(`remove ${path}`);
    if (this.holdRemovals) await new Promise<void>((resolve, reject) => this.heldRemovals.push({ resolve, reject }));
    if (this.removalAnswer) throw this.removalAnswer;
    return undefined as T;
  }

  releaseReads(): void {
    this.holdReads = false;
    for (const d of this.heldReads.splice(0)) d.resolve();
  }
  releaseRemovals(): void {
    this.holdRemovals = false;
    for (const d of this.heldRemovals.splice(0)) d.resolve();
  }
  get heldRemovalCount(): number {
    return this.heldRemovals.length;
  }
}

const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Subscribes, lets the read (and its watch) happen, then unsubscribes. */
async function watchedThenReleased(registry: WatchRegistry, path: string): Promise<void> {
  const off = registry.watch(path, new RecordingListener());
  await settle();
  off();
}

function setup(options = {}) {
  const reader = new FakeReader();
  const registry = new WatchRegistry(reader, testLogger, options);
  return { reader, registry };
}

describe('WatchRegistry reference counting', () => {
  it('reads a path once however many subscribe, and hands the cache to later ones', async () => {
    const { reader, registry } = setup();
    const a = new RecordingListener();
    const b = new RecordingListener();
    registry.watch('/x', a);
    await settle();
    registry.watch('/x', b);
    await settle();
    expect(reader.reads).toEqual(['exists /x', 'getData /x', 'getChildren /x']);
    expect(b.text).toBe('v');
    expect(b.children).toEqual(['a', 'b']);
    expect(registry.watchedPaths).toBe(1);
  });

  it('keeps the watch while any subscriber remains, and removes it when the last one leaves', async () => {
    const { reader, registry } = setup();
    const offA = registry.watch('/x', new RecordingListener());
    const offB = registry.watch('/x', new RecordingListener());
    await settle();
    offA();
    await settle();
    expect(reader.removals).toEqual([]);
    expect(registry.watchedPaths).toBe(1);
    offB();
    expect(registry.watchedPaths).toBe(0);
    await settle();
    expect(reader.removals).toEqual(['/x']);
    expect(registry.removalStats).toMatchObject({ removed: 1, queued: 0, inFlight: 0 });
  });

  it("does not count Keeper's own listener as a watched path, unless a browser watches the path too", async () => {
    const { reader, registry } = setup();
    const offOwn = registry.watch('/zookeeper/config', new RecordingListener(), { internal: true });
    await settle();
    expect(registry.watchedPaths).toBe(0);
    const offBrowser = registry.watch('/zookeeper/config', new RecordingListener());
    await settle();
    expect(registry.watchedPaths).toBe(1);
    offBrowser();
    expect(registry.watchedPaths).toBe(0);
    // Still one ZooKeeper watch, for Keeper's own listener: nothing removed.
    await settle();
    expect(reader.removals).toEqual([]);
    offOwn();
    await settle();
    expect(reader.removals).toEqual(['/zookeeper/config']);
  });

  it("counts browsers' paths beside Keeper's own listener through subscribes, repeats, unsubscribes and clear()", async () => {
    const { registry } = setup();
    const own = new RecordingListener();
    const offOwn = registry.watch('/zookeeper/config', own, { internal: true });
    const offs: (() => void)[] = [];
    for (let i = 0; i < 1_000; i++) {
      offs.push(registry.watch(`/p${i}`, new RecordingListener()));
      expect(registry.watchedPaths).toBe(i + 1);
    }
    // A second browser on a path, and the same listener subscribed twice: still one path each.
    const second = registry.watch('/p0', new RecordingListener());
    const twice = new RecordingListener();
    const twiceA = registry.watch('/p1', twice);
    const twiceB = registry.watch('/p1', twice);
    expect(registry.watchedPaths).toBe(1_000);
    await settle();
    offs[0]?.();
    expect(registry.watchedPaths).toBe(1_000);
    second();
    second();
    expect(registry.watchedPaths).toBe(999);
    twiceA();
    twiceB();
    offs[1]?.();
    offs[1]?.();
    expect(registry.watchedPaths).toBe(998);
    // Keeper's own listener joined by a browser, which then leaves.
    const browserOnOwn = registry.watch('/zookeeper/config', new RecordingListener());
    expect(registry.watchedPaths).toBe(999);
    browserOnOwn();
    expect(registry.watchedPaths).toBe(998);
    offOwn();
    expect(registry.watchedPaths).toBe(998);
    for (const off of offs.slice(2)) off();
    expect(registry.watchedPaths).toBe(0);
    // After clear(), the unsubscribe functions of dropped entries change nothing.
    const stale = registry.watch('/q', new RecordingListener());
    registry.clear();
    expect(registry.watchedPaths).toBe(0);
    stale();
    expect(registry.watchedPaths).toBe(0);
    registry.watch('/q', new RecordingListener());
    expect(registry.watchedPaths).toBe(1);
  });

  it('is not fooled by an unsubscribe called twice', async () => {
    const { registry } = setup();
    const off = registry.watch('/x', new RecordingListener());
    const keep = new RecordingListener();
    await settle();
    off();
    registry.watch('/x', keep);
    off();
    await settle();
    expect(registry.watchedPaths).toBe(1);
    // The first removal was called off by the new subscriber before it was sent... or sent
    // and waited for; either way the new subscriber holds a watch and sees the state.
    expect(keep.text).toBe('v');
  });

  it('drops events for a path nobody subscribes to, and frees its cache', async () => {
    const { registry } = setup();
    const listener = new RecordingListener();
    const off = registry.watch('/x', listener);
    await settle();
    off();
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/x' });
    await settle();
    expect(listener.events).toEqual([]);
    // A newcomer gets a fresh read, not the released cache.
    const { reader: reader2, registry: registry2 } = setup();
    const again = registry2.watch('/y', new RecordingListener());
    await settle();
    again();
    registry2.watch('/y', new RecordingListener());
    await settle();
    expect(reader2.reads.filter((r) => r === 'exists /y')).toHaveLength(2);
  });
});

describe('WatchRegistry watch removal', () => {
  it('waits for a read in flight before removing (a later answer would re-arm the watch)', async () => {
    const { reader, registry } = setup();
    reader.holdReads = true;
    const off = registry.watch('/x', new RecordingListener());
    await settle();
    off();
    await settle();
    expect(reader.removals).toEqual([]);
    expect(registry.watchedPaths).toBe(0);
    reader.releaseReads();
    await settle();
    await settle();
    expect(reader.removals).toEqual(['/x']);
    // The read that was in flight stopped there: nothing more was read for a path nobody wants.
    expect(reader.reads).toEqual(['exists /x']);
  });

  it('makes a new subscriber wait for a removal in flight, then read afresh', async () => {
    const { reader, registry } = setup();
    const off = registry.watch('/x', new RecordingListener());
    await settle();
    reader.holdRemovals = true;
    off();
    await settle();
    expect(reader.heldRemovalCount).toBe(1);
    const newcomer = new RecordingListener();
    registry.watch('/x', newcomer);
    await settle();
    expect(reader.reads.filter((r) => r === 'exists /x')).toHaveLength(1);
    reader.releaseRemovals();
    await settle();
    await settle();
    expect(reader.log.slice(-4)).toEqual(['remove /x', 'exists /x', 'getData /x', 'getChildren /x']);
    expect(newcomer.text).toBe('v');
  });

  it('calls off a removal still queued when the path is subscribed again', async () => {
    const { reader, registry } = setup({ removalConcurrency: 1 });
    const offA = registry.watch('/a', new RecordingListener());
    const offB = registry.watch('/b', new RecordingListener());
    await settle();
    reader.holdRemovals = true;
    offA();
    offB();
    expect(registry.removalStats).toMatchObject({ inFlight: 1, queued: 1 });
    registry.watch('/b', new RecordingListener());
    expect(registry.removalStats).toMatchObject({ inFlight: 1, queued: 0 });
    reader.releaseRemovals();
    await settle();
    await settle();
    expect(reader.removals).toEqual(['/a']);
    expect(registry.watchedPaths).toBe(1);
  });

  it('bounds removals in flight, however many paths are released at once', async () => {
    const { reader, registry } = setup({ removalConcurrency: 3 });
    const offs = Array.from({ length: 50 }, (_, i) => registry.watch(`/p${i}`, new RecordingListener()));
    await settle();
    reader.holdRemovals = true;
    for (const off of offs) off();
    expect(registry.removalStats).toMatchObject({ inFlight: 3, queued: 47 });
    expect(registry.watchedPaths).toBe(0);
    reader.holdRemovals = false;
    reader.releaseRemovals();
    for (let i = 0; i < 60 && registry.removalStats.removed < 50; i++) await settle();
    expect(registry.removalStats).toMatchObject({ removed: 50, inFlight: 0, queued: 0 });
    expect(new Set(reader.removals).size).toBe(50);
  });

  it('counts NO_WATCHER as nothing to remove', async () => {
    const { reader, registry } = setup();
    reader.removalAnswer = new ZkError('NO_WATCHER', 'NO_WATCHER (-121)');
    await watchedThenReleased(registry, '/x');
    await settle();
    await settle();
    expect(registry.removalStats).toMatchObject({ removed: 0, nothingToRemove: 1, failed: 0 });
  });

  it('falls back on a server without removeWatches: leaves the watch armed, counts it, stops asking until a new session', async () => {
    const { reader, registry } = setup();
    reader.removalAnswer = new ZkError('UNIMPLEMENTED', 'UNIMPLEMENTED (-6)');
    await watchedThenReleased(registry, '/a');
    await settle();
    await settle();
    await watchedThenReleased(registry, '/b');
    await settle();
    expect(reader.removals).toEqual(['/a']);
    expect(registry.removalStats).toMatchObject({ leftArmed: 2, removed: 0 });
    expect(registry.watchedPaths).toBe(0);
    // A leftover watch firing later finds no entry and is dropped.
    registry.onZkEvent({ name: 'NODE_DELETED', path: '/a' });
    registry.rearmAll();
    reader.removalAnswer = null;
    await watchedThenReleased(registry, '/c');
    await settle();
    await settle();
    expect(reader.removals).toEqual(['/a', '/c']);
  });

  it('counts a removal whose session is gone as failed at once, and carries on', async () => {
    const { reader, registry } = setup();
    reader.removalAnswer = new ZkError('SESSION_EXPIRED', 'expired');
    await watchedThenReleased(registry, '/a');
    await settle();
    reader.removalAnswer = null;
    await watchedThenReleased(registry, '/b');
    await settle();
    expect(registry.removalStats).toMatchObject({ failed: 1, removed: 1 });
    expect(reader.removals).toEqual(['/a', '/b']);
  });

  it('tries a removal that got no answer again, 1 s, 2 s and 4 s later, then gives up', async () => {
    vi.useFakeTimers();
    try {
      const { reader, registry } = setup();
      reader.removalAnswer = new ZkError('DEADLINE_EXCEEDED', 'no answer');
      registry.watch('/a', new RecordingListener())();
      const off = registry.watch('/a', new RecordingListener());
      await vi.advanceTimersByTimeAsync(0);
      off();
      await vi.advanceTimersByTimeAsync(0);
      expect(reader.removals).toEqual(['/a']);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(reader.removals).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(2_000);
      await vi.advanceTimersByTimeAsync(4_000);
      expect(reader.removals).toHaveLength(4);
      expect(registry.removalStats).toMatchObject({ failed: 1, removed: 0 });
      await vi.advanceTimersByTimeAsync(60_000);
      expect(reader.removals).toHaveLength(4);
      // A retry that succeeds counts as removed.
      reader.removalAnswer = new ZkError('OVERLOADED', 'queue full');
      const offB = registry.watch('/b', new RecordingListener());
      await vi.advanceTimersByTimeAsync(0);
      offB();
      await vi.advanceTimersByTimeAsync(0);
      reader.removalAnswer = null;
      await vi.advanceTimersByTimeAsync(1_000);
      expect(registry.removalStats).toMatchObject({ failed: 1, removed: 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('calls off a retry when the path is subscribed again', async () => {
    vi.useFakeTimers();
    try {
      const { reader, registry } = setup();
      reader.removalAnswer = new ZkError('NOT_CONNECTED', 'not connected');
      const off = registry.watch('/a', new RecordingListener());
      await vi.advanceTimersByTimeAsync(0);
      off();
      await vi.advanceTimersByTimeAsync(0);
      reader.removalAnswer = null;
      registry.watch('/a', new RecordingListener());
      await vi.advanceTimersByTimeAsync(10_000);
      expect(reader.removals).toEqual(['/a']);
      expect(registry.watchedPaths).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('removes nothing for a reader that cannot (no callOnce)', async () => {
    const reader = new FakeReader();
    const bare: WatchReader = { exists: (p) => reader.exists(p), getData: (p) => reader.getData(p), getChildren: (p) => reader.getChildren(p) };
    const registry = new WatchRegistry(bare, testLogger);
    await watchedThenReleased(registry, '/x');
    await settle();
    expect(reader.removals).toEqual([]);
    expect(registry.watchedPaths).toBe(0);
  });
});

describe('WatchRegistry read concurrency', () => {
  it('keeps a flood of subscriptions to a few reads in flight, and reads them all in turn', async () => {
    const { reader, registry } = setup({ readConcurrency: 2 });
    reader.holdReads = true;
    const listeners = Array.from({ length: 10 }, () => new RecordingListener());
    listeners.forEach((l, i) => registry.watch(`/p${i}`, l));
    await settle();
    expect(reader.reads).toEqual(['exists /p0', 'exists /p1']);
    reader.releaseReads();
    for (let i = 0; i < 20 && listeners.some((l) => l.text !== 'v'); i++) await settle();
    expect(listeners.every((l) => l.text === 'v')).toBe(true);
  });

  it('skips a path released while it waited for a slot', async () => {
    const { reader, registry } = setup({ readConcurrency: 1 });
    reader.holdReads = true;
    registry.watch('/a', new RecordingListener());
    const offB = registry.watch('/b', new RecordingListener());
    await settle();
    offB();
    reader.releaseReads();
    for (let i = 0; i < 10; i++) await settle();
    expect(reader.reads.some((r) => r.endsWith(' /b'))).toBe(false);
    // It armed nothing, so there is nothing to remove either.
    expect(reader.removals).toEqual([]);
  });
});
