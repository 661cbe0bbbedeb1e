import { describe, expect, it } from 'vitest';
import type { ZnodeStat } from '@keeper/shared';
import { writePolicy } from './writePolicy';

const stat = (over: Partial<ZnodeStat> = {}): ZnodeStat => ({
  czxid: '1',
  mzxid: '1',
  pzxid: '1',
  ctime: 1,
  mtime: 1,
  version: 0,
  cversion: 0,
  aversion: 0,
  ephemeralOwner: '0',
  dataLength: 0,
  numChildren: 0,
  ...over,
});
const live = { live: true } as const;

describe('writePolicy', () => {
  it('offers everything on an ordinary persistent node', () => {
    const { gates, note } = writePolicy('/app/config', stat(), live);
    expect(Object.values(gates).every((g) => g.state === 'offered')).toBe(true);
    expect(note).toBeNull();
  });

  it('offers nothing on /zookeeper/config and says ZooKeeper maintains it', () => {
    const { gates, note } = writePolicy('/zookeeper/config', stat({ version: -1, aversion: -1 }), live);
    expect(gates.edit.state).toBe('absent');
    expect(gates.create.state).toBe('absent');
    expect(gates.delete.state).toBe('absent');
    expect(gates.import.state).toBe('absent');
    expect(note?.short).toBe('read-only: maintained by ZooKeeper');
    expect(note?.long).toMatch(/version -1/);
  });

  it('keeps /zookeeper itself read-only, and lets only a quota node’s value be edited', () => {
    expect(writePolicy('/zookeeper', stat(), live).gates).toMatchObject({ edit: { state: 'absent' }, create: { state: 'absent' } });
    expect(writePolicy('/zookeeper/quota', stat(), live).gates).toMatchObject({ edit: { state: 'absent' }, create: { state: 'absent' } });
    const quota = writePolicy('/zookeeper/quota/app/zookeeper_limits', stat(), live);
    expect(quota.gates).toMatchObject({ edit: { state: 'offered' }, create: { state: 'absent' }, delete: { state: 'absent' } });
    expect(quota.note?.long).toMatch(/setquota/);
  });

  it('offers only Delete on a stray node someone else put under /zookeeper (the server deletes it, creates nothing there)', () => {
    const { gates } = writePolicy('/zookeeper/evil', stat(), live);
    expect(gates.delete.state).toBe('offered');
    expect(gates.create.state).toBe('absent');
    expect(gates.import.state).toBe('absent');
    expect(gates.edit.state).toBe('absent');
  });

  it('offers no child under an ephemeral node, with the reason', () => {
    const { gates, note } = writePolicy('/app/lock-0000000001', stat({ ephemeralOwner: '72057594037927937' }), live);
    expect(gates.create).toMatchObject({ state: 'absent', reason: expect.stringMatching(/ephemeral/) });
    expect(gates.import.state).toBe('absent');
    expect(gates.edit.state).toBe('offered');
    expect(gates.delete.state).toBe('offered');
    expect(note?.short).toBe('no children: ephemeral node');
  });

  it('pauses what could work once the session is live again, with the reason', () => {
    const { gates } = writePolicy('/app', stat(), { live: false, reason: 'the console lost its ZooKeeper connection and is reconnecting' });
    expect(gates.edit).toEqual({ state: 'paused', reason: 'Writes are paused: the console lost its ZooKeeper connection and is reconnecting.' });
    expect(gates.delete.state).toBe('paused');
    // What cannot work at all stays absent rather than paused.
    expect(writePolicy('/zookeeper/config', stat({ version: -1 }), { live: false, reason: 'x' }).gates.edit.state).toBe('absent');
  });

  it('never offers delete on the root', () => {
    expect(writePolicy('/', stat(), live).gates.delete.state).toBe('absent');
  });
});
