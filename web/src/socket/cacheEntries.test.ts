import { describe, expect, it } from 'vitest';
import type { ServerEvent } from '@keeper/shared';
import { reduceChildren, reduceMemberHistory, reduceZnode } from './cacheEntries';

const stat = {
  czxid: '0x1', mzxid: '0x2', pzxid: '0x3', ctime: 1, mtime: 2, version: 0, cversion: 0, aversion: 0,
  ephemeralOwner: '0x0', dataLength: 2, numChildren: 0,
};
const data = { encoding: 'utf8' as const, value: 'hi', size: 2, truncated: false };

function znode(exists: boolean, at: number): Extract<ServerEvent, { type: 'znode' }> {
  return { type: 'znode', ensemble: 'e', path: '/a', at, node: exists ? { exists: true, stat, data } : { exists: false } };
}

describe('reduceZnode', () => {
  it('keeps the last content and the deletion time when a node is deleted', () => {
    const a = reduceZnode(undefined, znode(true, 10), 1);
    const b = reduceZnode(a, znode(false, 20), 1);
    expect(b.node.exists).toBe(false);
    expect(b.last?.data.value).toBe('hi');
    expect(b.deletedAt).toBe(20);
    // A re-subscription repeating "absent" must not move the deletion time.
    const c = reduceZnode(b, znode(false, 30), 2);
    expect(c.deletedAt).toBe(20);
    expect(c.epoch).toBe(2);
  });
  it('clears the deletion when the node comes back', () => {
    const b = reduceZnode(reduceZnode(undefined, znode(true, 10), 1), znode(false, 20), 1);
    const c = reduceZnode(b, znode(true, 40), 1);
    expect(c.deletedAt).toBeNull();
    expect(c.node.exists).toBe(true);
  });
  it('has no deletion time for a node never seen', () => {
    const a = reduceZnode(undefined, znode(false, 10), 1);
    expect(a.last).toBeNull();
    expect(a.deletedAt).toBeNull();
  });
});

function children(partial: Partial<Extract<ServerEvent, { type: 'children' }>>): Extract<ServerEvent, { type: 'children' }> {
  return { type: 'children', ensemble: 'e', path: '/', mode: 'full', total: 0, ...partial };
}

describe('reduceChildren', () => {
  it('sorts a full list naturally', () => {
    const e = reduceChildren(undefined, children({ names: ['lock-10', 'lock-2', 'b', 'a'], total: 4 }), 1, 5);
    expect(e?.names).toEqual(['a', 'b', 'lock-2', 'lock-10']);
    expect(e?.total).toBe(4);
  });
  it('applies a diff in sorted position', () => {
    const full = reduceChildren(undefined, children({ names: ['n-1', 'n-3', 'n-20'], total: 3 }), 1, 5);
    const next = reduceChildren(full, children({ mode: 'diff', added: ['n-4', 'n-1'], removed: ['n-3'], total: 3 }), 1, 6);
    expect(next?.names).toEqual(['n-1', 'n-4', 'n-20']);
    expect(next?.updatedAt).toBe(6);
  });
  it('does not mutate the previous list', () => {
    const full = reduceChildren(undefined, children({ names: ['a'], total: 1 }), 1, 5);
    reduceChildren(full, children({ mode: 'diff', added: ['b'], total: 2 }), 1, 6);
    expect(full?.names).toEqual(['a']);
  });
  it('ignores a diff with nothing to apply it to', () => {
    expect(reduceChildren(undefined, children({ mode: 'diff', added: ['a'], total: 1 }), 1, 5)).toBeUndefined();
  });
  it('handles many additions at once', () => {
    const full = reduceChildren(undefined, children({ names: [], total: 0 }), 1, 5);
    const added = Array.from({ length: 200 }, (_, i) => `c-${199 - i}`);
    const next = reduceChildren(full, children({ mode: 'diff', added, total: 200 }), 1, 6);
    expect(next?.names[0]).toBe('c-0');
    expect(next?.names[199]).toBe('c-199');
  });
});

describe('reduceMemberHistory', () => {
  const point = (at: number) => ({ at, latencyAvg: 1, latencyMax: 2, outstanding: 0, connections: 3, znodeCount: 10, serving: true });
  it('replaces on full and appends per member', () => {
    const full = reduceMemberHistory(undefined, { type: 'memberHistory', ensemble: 'e', mode: 'full', history: { a: [point(1)] } }, 1);
    const next = reduceMemberHistory(full, { type: 'memberHistory', ensemble: 'e', mode: 'append', history: { a: [point(2)], b: [point(2)] } }, 1);
    expect(next.history.a?.map((p) => p.at)).toEqual([1, 2]);
    expect(next.history.b?.map((p) => p.at)).toEqual([2]);
    expect(full.history.a).toHaveLength(1);
  });
});
