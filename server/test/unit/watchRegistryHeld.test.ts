/**
 * What the watch registry hands out with no ZooKeeper call (held()): a znode's stat, value and
 * children while some subscriber watches it and nothing is owed. Against a fake reader that
 * stands for one znode (pure logic: the real ensemble's side is in childrenPage.integration.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ZnodeStat } from '@keeper/shared';
import { ZkError } from '../../src/zk/errors.js';
import { WatchRegistry, type WatchReader } from '../../src/zk/watchRegistry.js';
import { RecordingListener } from '../support/recordingListener.js';
import { testLogger } from '../support/logger.js';

const hex = (n: number) => `0x${n.toString(16)}`;

/** One znode whose value and children the test changes; every read is counted, and can be held. */
class OneZnode implements WatchReader {
  exists_ = true;
  value = 'v1';
  children = ['b', 'a'];
  /** Bumped by each change, like a zxid. */
  zxid = 1;
  mzxid = 1;
  pzxid = 1;
  reads: string[] = [];
  hold = false;
  failNext: ZkError | null = null;
  private held: (() => void)[] = [];

  private stat(): ZnodeStat {
    return {
      czxid: '0x1',
      mzxid: hex(this.mzxid),
      pzxid: hex(this.pzxid),
      ctime: 0,
      mtime: 0,
      version: this.mzxid - 1,
      cversion: this.pzxid - 1,
      aversion: 0,
      ephemeralOwner: '0x0',
      dataLength: this.value.length,
      numChildren: this.children.length,
    };
  }
  private async read(kind: string): Promise<void> {
    this.reads.push(kind);
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    const failure = this.failNext;
    this.failNext = null;
    if (failure) throw failure;
    if (!this.exists_ && kind !== 'exists') throw new ZkError('NO_NODE', 'no node');
  }
  async exists(): Promise<ZnodeStat | null> {
    await this.read('exists');
    return this.exists_ ? this.stat() : null;
  }
  async getData(): Promise<{ data: Buffer; stat: ZnodeStat }> {
    await this.read('getData');
    return { data: Buffer.from(this.value), stat: this.stat() };
  }
  async getChildren(): Promise<{ children: string[]; stat: ZnodeStat }> {
    await this.read('getChildren');
    return { children: [...this.children], stat: this.stat() };
  }
  setValue(value: string): void {
    this.value = value;
    this.mzxid = ++this.zxid;
  }
  setChildren(children: string[]): void {
    this.children = children;
    this.pzxid = ++this.zxid;
  }
  release(): void {
    this.hold = false;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function setup() {
  const znode = new OneZnode();
  const registry = new WatchRegistry(znode, testLogger);
  return { znode, registry };
}

describe('WatchRegistry.held', () => {
  it('holds nothing for a path nobody watches, or before its first reads have answered', async () => {
    const { znode, registry } = setup();
    expect(registry.held('/x')).toBeNull();
    znode.hold = true;
    registry.watch('/x', new RecordingListener());
    await settle();
    expect(registry.held('/x')).toBeNull();
    znode.release();
    await settle();
    expect(registry.held('/x')).not.toBeNull();
  });

  it('hands out stat, value and children as last read, with no further read, however often', async () => {
    const { znode, registry } = setup();
    registry.watch('/x', new RecordingListener());
    await settle();
    const readsBefore = znode.reads.length;
    const held = registry.held('/x');
    expect(held).toMatchObject({ data: { encoding: 'utf8', value: 'v1' }, children: ['b', 'a'], childrenPzxid: '0x1', stat: { mzxid: '0x1', numChildren: 2 } });
    for (let i = 0; i < 100; i++) expect(registry.held('/x')).toEqual(held);
    expect(znode.reads).toHaveLength(readsBefore);
    expect(registry.reads).toBe(readsBefore);
  });

  it('holds nothing while a change is owed, then the new state with the latest stat', async () => {
    const { znode, registry } = setup();
    registry.watch('/x', new RecordingListener());
    await settle();
    znode.setChildren(['a', 'b', 'c']);
    znode.hold = true;
    registry.onZkEvent({ name: 'NODE_CHILDREN_CHANGED', path: '/x' });
    expect(registry.held('/x')).toBeNull();
    znode.release();
    await settle();
    // Only the children were read again: their stat (the latest) is the one handed out.
    expect(registry.held('/x')).toMatchObject({
      data: { value: 'v1' },
      children: ['a', 'b', 'c'],
      childrenPzxid: '0x2',
      stat: { pzxid: '0x2', numChildren: 3 },
    });
    znode.setValue('v2');
    registry.onZkEvent({ name: 'NODE_DATA_CHANGED', path: '/x' });
    expect(registry.held('/x')).toBeNull();
    await settle();
    expect(registry.held('/x')).toMatchObject({ data: { value: 'v2' }, children: ['a', 'b', 'c'], childrenPzxid: '0x2', stat: { mzxid: '0x3', pzxid: '0x2' } });
  });

  it('reads again on refresh (an ACL set through Keeper fires no watch), and holds nothing once the console may not read', async () => {
    const { znode, registry } = setup();
    const listener = new RecordingListener();
    registry.watch('/x', listener);
    await settle();
    expect(registry.held('/x')).not.toBeNull();
    const readsBefore = znode.reads.length;
    znode.failNext = new ZkError('NO_AUTH', 'NO_AUTH (-102) at /x');
    registry.refresh('/x');
    expect(registry.held('/x')).toBeNull();
    await settle();
    expect(znode.reads.length).toBeGreaterThan(readsBefore);
    // Not retried (the ACL will not change by waiting), and what was held is not handed out again.
    expect(registry.held('/x')).toBeNull();
    registry.refresh('/never-watched');
    expect(znode.reads.length).toBe(readsBefore + 1);
  });

  it('holds nothing while a failed read waits to be retried', async () => {
    const { znode, registry } = setup();
    registry.watch('/x', new RecordingListener());
    await settle();
    znode.failNext = new ZkError('CONNECTION_LOSS', 'lost');
    registry.onZkEvent({ name: 'NODE_CHILDREN_CHANGED', path: '/x' });
    await settle();
    expect(znode.reads.at(-1)).toBe('getChildren');
    expect(registry.held('/x')).toBeNull();
    registry.clear();
  });

  it('holds nothing for a deleted znode, nor once its last subscriber left', async () => {
    const { znode, registry } = setup();
    const off = registry.watch('/x', new RecordingListener());
    await settle();
    znode.exists_ = false;
    registry.onZkEvent({ name: 'NODE_DELETED', path: '/x' });
    await settle();
    expect(registry.held('/x')).toBeNull();
    znode.exists_ = true;
    registry.onZkEvent({ name: 'NODE_CREATED', path: '/x' });
    await settle();
    expect(registry.held('/x')).not.toBeNull();
    off();
    expect(registry.held('/x')).toBeNull();
  });
});
