/**
 * What the watch registry tells its listeners as a znode changes, against an in-memory tree
 * standing in for ZooKeeper (pure logic: the same registry runs on real members in
 * gateway.integration.test.ts). Reference counting and watch removal are in
 * watchRegistry.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WatchEventType, ZnodeStat, ZnodeState } from '@keeper/shared';
import { ZkError } from '../../src/zk/errors.js';
import { WatchRegistry, type ChildrenUpdate, type WatchListener, type WatchReader } from '../../src/zk/watchRegistry.js';
import { testLogger } from '../support/logger.js';

function statOf(version: number, numChildren: number, cversion = 0): ZnodeStat {
  return {
    czxid: '0x1',
    mzxid: `0x${version + 1}`,
    pzxid: '0x1',
    ctime: 0,
    mtime: 0,
    version,
    cversion,
    aversion: 0,
    ephemeralOwner: '0x0',
    dataLength: 1,
    numChildren,
  };
}

interface FakeNode {
  data: string;
  version: number;
  children: string[];
}

type ReadKind = 'exists' | 'getData' | 'getChildren';

/**
 * A znode tree in memory that answers the registry's reads as ZooKeeper would (NO_NODE for a
 * missing node), records each read with its watch flag, and can fail the next reads or hold
 * them until released.
 */
class FakeTree implements WatchReader {
  readonly nodes = new Map<string, FakeNode>();
  readonly reads: string[] = [];
  /** Errors the next reads throw, one each, oldest first. */
  readonly failures: ZkError[] = [];
  hold = false;
  /** Runs once each read has its answer: a change made here lands between two reads. */
  afterRead: ((kind: ReadKind) => void) | null = null;
  private held: (() => void)[] = [];

  set(path: string, data: string, children: string[] = []): void {
    const before = this.nodes.get(path);
    this.nodes.set(path, { data, version: before ? before.version + 1 : 0, children });
  }

  private async read(kind: ReadKind, path: string, watch: boolean): Promise<FakeNode | undefined> {
    this.reads.push(`${kind} ${path}${watch ? '' : ' (no watch)'}`);
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    const failure = this.failures.shift();
    if (failure) throw failure;
    const node = this.nodes.get(path);
    this.afterRead?.(kind);
    return node;
  }

  async exists(path: string, opts: { watch: boolean }): Promise<ZnodeStat | null> {
    const node = await this.read('exists', path, opts.watch);
    return node ? statOf(node.version, node.children.length) : null;
  }

  async getData(path: string, opts: { watch: boolean }): Promise<{ data: Buffer; stat: ZnodeStat }> {
    const node = await this.read('getData', path, opts.watch);
    if (!node) throw new ZkError('NO_NODE', 'NO_NODE (-101)', path);
    return { data: Buffer.from(node.data), stat: statOf(node.version, node.children.length) };
  }

  async getChildren(path: string, opts: { watch: boolean }): Promise<{ children: string[]; stat: ZnodeStat }> {
    const node = await this.read('getChildren', path, opts.watch);
    if (!node) throw new ZkError('NO_NODE', 'NO_NODE (-101)', path);
    return { children: [...node.children], stat: statOf(node.version, node.children.length, node.children.length) };
  }

  release(): void {
    this.hold = false;
    for (const resolve of this.held.splice(0)) resolve();
  }

  /** The reads made since the last call. */
  takeReads(): string[] {
    return this.reads.splice(0);
  }
}

/** Records every call, untouched (the cversion apart), so a test sees diffs as the registry sent them. */
class Listener implements WatchListener {
  nodes: ZnodeState[] = [];
  children: Omit<ChildrenUpdate, 'cversion'>[] = [];
  cversions: (number | null)[] = [];
  events: WatchEventType[] = [];
  errors: { code: string; retrying: boolean }[] = [];

  get data(): string | null {
    const node = this.nodes.at(-1);
    return node?.exists ? node.data.value : null;
  }

  onNode(state: ZnodeState): void {
    this.nodes.push(state);
  }
  onChildren({ cversion, ...update }: ChildrenUpdate): void {
    this.children.push(update);
    this.cversions.push(cversion);
  }
  onWatchEvent(type: WatchEventType): void {
    this.events.push(type);
  }
  onError(error: ZkError, retrying: boolean): void {
    this.errors.push({ code: error.code, retrying });
  }
}

/** Lets every read already answered (or failed) run to the end of its sync loop. */
const settle = () => vi.advanceTimersByTimeAsync(0);

function setup() {
  vi.useFakeTimers();
  const tree = new FakeTree();
  tree.set('/app', 'v1', ['a', 'b']);
  const registry = new WatchRegistry(tree, testLogger);
  return { tree, registry };
}

const FIRST_READ = ['exists /app', 'getData /app', 'getChildren /app'];

afterEach(() => {
  vi.useRealTimers();
});

describe('WatchRegistry: one ZooKeeper read for every listener', () => {
  it('reads a path once for many listeners that join while the first read is in flight, and tells each of them', async () => {
    const { tree, registry } = setup();
    tree.hold = true;
    const listeners = Array.from({ length: 20 }, () => new Listener());
    for (const listener of listeners) registry.watch('/app', listener);
    await settle();
    tree.release();
    await settle();
    expect(tree.takeReads()).toEqual(FIRST_READ);
    expect(registry.reads).toBe(3);
    for (const listener of listeners) {
      expect(listener.data).toBe('v1');
      expect(listener.children).toEqual([{ names: ['a', 'b'], diff: null }]);
    }
  });

  it('hands a listener that joins later the cached state at once, with no read', async () => {
    const { tree, registry } = setup();
    registry.watch('/app', new Listener());
    await settle();
    tree.takeReads();
    const late = new Listener();
    registry.watch('/app', late);
    // Synchronously: the cache is handed over in watch() itself.
    expect(late.data).toBe('v1');
    expect(late.children).toEqual([{ names: ['a', 'b'], diff: null }]);
    await settle();
    expect(tree.takeReads()).toEqual([]);
  });

  it('reads each watched path with a watch set', async () => {
    const { tree, registry } = setup();
    tree.set('/other', 'x');
    registry.watch('/app', new Listener());
    registry.watch('/other', new Listener());
    await settle();
    expect(tree.reads.every((read) => !read.endsWith('(no watch)'))).toBe(true);
    expect(tree.reads.filter((read) => read.startsWith('exists '))).toEqual(['exists /app', 'exists /other']);
  });
});

describe('WatchRegistry: re-arming after a watch event', () => {
  it('re-reads only the data after a data change, and tells every listener the event and the new value', async () => {
    const { tree, registry } = setup();
    const a = new Listener();
    const b = new Listener();
    registry.watch('/app', a);
    registry.watch('/app', b);
    await settle();
    tree.takeReads();
    tree.set('/app', 'v2', ['a', 'b']);
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/app' });
    await settle();
    expect(tree.takeReads()).toEqual(['getData /app']);
    for (const listener of [a, b]) {
      expect(listener.events).toEqual(['dataChanged']);
      expect(listener.data).toBe('v2');
      // The children did not change: nothing new was sent about them.
      expect(listener.children).toHaveLength(1);
    }
  });

  it('sends a diff of the children after a child change, re-reading only the children', async () => {
    const { tree, registry } = setup();
    const listener = new Listener();
    registry.watch('/app', listener);
    await settle();
    tree.takeReads();
    tree.set('/app', 'v1', ['b', 'c', 'd']);
    registry.onZkEvent({ name: 'NODE_CHILDREN_CHANGED', path: '/app' });
    await settle();
    expect(tree.takeReads()).toEqual(['getChildren /app']);
    expect(listener.events).toEqual(['childrenChanged']);
    expect(listener.children.at(-1)).toEqual({ names: ['b', 'c', 'd'], diff: { added: ['c', 'd'], removed: ['a'] } });
    // A later listener gets the new list whole.
    const late = new Listener();
    registry.watch('/app', late);
    expect(late.children).toEqual([{ names: ['b', 'c', 'd'], diff: null }]);
    // Each list comes with the parent's cversion it was read at (the Locks view dates holds by it), the late one too.
    expect(listener.cversions.at(-1)).toBe(3);
    expect(late.cversions).toEqual([3]);
  });

  it('sends nothing when a child event finds the same children (a child created and deleted between reads)', async () => {
    const { tree, registry } = setup();
    const listener = new Listener();
    registry.watch('/app', listener);
    await settle();
    tree.takeReads();
    registry.onZkEvent({ name: 'NODE_CHILDREN_CHANGED', path: '/app' });
    await settle();
    expect(tree.takeReads()).toEqual(['getChildren /app']);
    expect(listener.children).toHaveLength(1);
  });

  it('coalesces events that arrive while a read is in flight into one more read', async () => {
    const { tree, registry } = setup();
    const listener = new Listener();
    registry.watch('/app', listener);
    await settle();
    tree.takeReads();
    tree.hold = true;
    tree.set('/app', 'v2', ['a', 'b']);
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/app' });
    await settle();
    tree.set('/app', 'v3', ['a', 'b']);
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/app' });
    tree.set('/app', 'v4', ['a', 'b']);
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/app' });
    tree.release();
    await settle();
    expect(tree.takeReads()).toEqual(['getData /app', 'getData /app']);
    expect(listener.events).toEqual(['dataChanged', 'dataChanged', 'dataChanged']);
    expect(listener.data).toBe('v4');
  });

  it('says a deleted node is gone at once, reported once, then watches for it to come back', async () => {
    const { tree, registry } = setup();
    const listener = new Listener();
    registry.watch('/app', listener);
    await settle();
    tree.takeReads();
    tree.nodes.delete('/app');
    // ZooKeeper fires the data watch and the child watch for one deletion.
    registry.onZkEvent({ name: 'NODE_DELETED', path: '/app' });
    registry.onZkEvent({ name: 'NODE_DELETED', path: '/app' });
    expect(listener.nodes.at(-1)).toEqual({ exists: false });
    expect(listener.children.at(-1)).toEqual({ names: [], diff: { added: [], removed: ['a', 'b'] } });
    await settle();
    expect(listener.events).toEqual(['deleted']);
    expect(tree.takeReads()).toEqual(['exists /app']);

    tree.set('/app', 'again', ['z']);
    registry.onZkEvent({ name: 'NODE_CREATED', path: '/app' });
    await settle();
    expect(tree.takeReads()).toEqual(FIRST_READ);
    expect(listener.events).toEqual(['deleted', 'created']);
    expect(listener.data).toBe('again');
    expect(listener.children.at(-1)).toEqual({ names: ['z'], diff: { added: ['z'], removed: [] } });
  });

  it('falls back to an exists watch when the node vanishes between its reads', async () => {
    const { tree, registry } = setup();
    // exists answers with a stat; the node is deleted before getData reaches the server.
    tree.afterRead = (kind) => {
      if (kind === 'exists') tree.nodes.delete('/app');
      tree.afterRead = null;
    };
    const listener = new Listener();
    registry.watch('/app', listener);
    await settle();
    expect(tree.takeReads()).toEqual(['exists /app', 'getData /app', 'exists /app']);
    expect(listener.nodes).toEqual([{ exists: false }]);
    expect(listener.errors).toEqual([]);
  });

  it('re-reads every watched path with new watches after a new session', async () => {
    const { tree, registry } = setup();
    tree.set('/other', 'x');
    const listener = new Listener();
    registry.watch('/app', listener);
    registry.watch('/other', new Listener());
    await settle();
    tree.takeReads();
    tree.set('/app', 'changed while the session was gone', ['a']);
    registry.rearmAll();
    await settle();
    expect(tree.takeReads().sort()).toEqual([...FIRST_READ, 'exists /other', 'getData /other', 'getChildren /other'].sort());
    expect(listener.data).toBe('changed while the session was gone');
    expect(listener.children.at(-1)).toEqual({ names: ['a'], diff: { added: [], removed: ['b'] } });
    // A new session sent no watch event: the listener learns of the change from the state alone.
    expect(listener.events).toEqual([]);
  });

  it('ignores events of paths nobody watches and events it has no name for', async () => {
    const { tree, registry } = setup();
    const listener = new Listener();
    registry.watch('/app', listener);
    await settle();
    tree.takeReads();
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/elsewhere' });
    registry.onZkEvent({ name: 'SOMETHING_NEW', path: '/app' });
    await settle();
    expect(tree.takeReads()).toEqual([]);
    expect(listener.events).toEqual([]);
  });
});

describe('WatchRegistry: the last listener leaving', () => {
  it('drops the path and its cache, so events stop and a newcomer reads afresh', async () => {
    const { tree, registry } = setup();
    const a = new Listener();
    const offA = registry.watch('/app', a);
    const offB = registry.watch('/app', new Listener());
    await settle();
    offA();
    expect(registry.isWatched('/app')).toBe(true);
    offB();
    expect(registry.isWatched('/app')).toBe(false);
    expect(registry.watchedPaths).toBe(0);
    tree.takeReads();
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/app' });
    await settle();
    expect(a.events).toEqual([]);
    expect(tree.takeReads()).toEqual([]);
    registry.watch('/app', new Listener());
    await settle();
    expect(tree.takeReads()).toEqual(FIRST_READ);
  });
});

describe('WatchRegistry: read errors', () => {
  it('tells listeners a transient failure is being retried, backs off, and recovers', async () => {
    const { tree, registry } = setup();
    const listener = new Listener();
    tree.failures.push(new ZkError('CONNECTION_LOSS', 'connection loss'), new ZkError('DEADLINE_EXCEEDED', 'no answer'));
    registry.watch('/app', listener);
    await settle();
    expect(listener.errors).toEqual([{ code: 'CONNECTION_LOSS', retrying: true }]);
    expect(tree.takeReads()).toEqual(['exists /app']);
    // Nothing is read again before the back-off ends (the first delay is at most 200 ms).
    await vi.advanceTimersByTimeAsync(50);
    expect(tree.reads).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(listener.errors).toEqual([
      { code: 'CONNECTION_LOSS', retrying: true },
      { code: 'DEADLINE_EXCEEDED', retrying: true },
    ]);
    expect(listener.data).toBeNull();
    // The second delay is at most 400 ms.
    await vi.advanceTimersByTimeAsync(400);
    expect(listener.data).toBe('v1');
    expect(listener.children).toEqual([{ names: ['a', 'b'], diff: null }]);
    expect(tree.takeReads()).toEqual(['exists /app', ...FIRST_READ]);
    // After the recovery, a new failure starts the back-off from its first step again.
    tree.failures.push(new ZkError('CONNECTION_LOSS', 'connection loss'));
    tree.set('/app', 'v2', ['a', 'b']);
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/app' });
    await settle();
    await vi.advanceTimersByTimeAsync(200);
    expect(listener.data).toBe('v2');
  });

  it('keeps what failed owed: a data read that failed is the one retried', async () => {
    const { tree, registry } = setup();
    const listener = new Listener();
    registry.watch('/app', listener);
    await settle();
    tree.takeReads();
    tree.set('/app', 'v2', ['a', 'b']);
    tree.failures.push(new ZkError('OVERLOADED', 'queue full'));
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/app' });
    await settle();
    expect(listener.errors).toEqual([{ code: 'OVERLOADED', retrying: true }]);
    await vi.advanceTimersByTimeAsync(200);
    expect(tree.takeReads()).toEqual(['getData /app', 'getData /app']);
    expect(listener.data).toBe('v2');
  });

  it('gives up on an error that retrying cannot fix, and says so', async () => {
    const { tree, registry } = setup();
    const listener = new Listener();
    tree.failures.push(new ZkError('NO_AUTH', 'not authorized'));
    registry.watch('/app', listener);
    await settle();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(listener.errors).toEqual([{ code: 'NO_AUTH', retrying: false }]);
    expect(tree.takeReads()).toEqual(['exists /app']);
    // The path stays watched: the next event (or a new session) reads it again.
    expect(registry.isWatched('/app')).toBe(true);
    registry.rearmAll();
    await settle();
    expect(listener.data).toBe('v1');
  });

  it('stops retrying for a path whose last listener left during the back-off', async () => {
    const { tree, registry } = setup();
    tree.failures.push(new ZkError('CONNECTION_LOSS', 'connection loss'));
    const off = registry.watch('/app', new Listener());
    await settle();
    off();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(tree.takeReads()).toEqual(['exists /app']);
  });
});
