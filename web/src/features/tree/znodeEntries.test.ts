import { describe, expect, it } from 'vitest';
import type { ChildrenChange, ZnodeEvent } from '@keeper/shared';
import { reduceChildren, reduceChildrenPage, reduceZnode } from './znodeEntries';

const stat = {
  czxid: '0x1',
  mzxid: '0x2',
  pzxid: '0x3',
  ctime: 1,
  mtime: 2,
  version: 0,
  cversion: 0,
  aversion: 0,
  ephemeralOwner: '0x0',
  dataLength: 2,
  numChildren: 0,
};
const data = { encoding: 'utf8' as const, value: 'hi', size: 2, truncated: false };

function znode(exists: boolean, at: number): Extract<ZnodeEvent, { kind: 'state' }> {
  return { kind: 'state', at, node: exists ? { exists: true, stat, data } : { exists: false } };
}

describe('reduceZnode', () => {
  it('keeps the last content and the deletion time when a node is deleted', () => {
    const a = reduceZnode(undefined, '/a', znode(true, 10), 1);
    const b = reduceZnode(a, '/a', znode(false, 20), 1);
    expect(b.node.exists).toBe(false);
    expect(b.last?.data.value).toBe('hi');
    expect(b.deletedAt).toBe(20);
    // A re-subscription repeating "absent" must not move the deletion time.
    const c = reduceZnode(b, '/a', znode(false, 30), 2);
    expect(c.deletedAt).toBe(20);
    expect(c.epoch).toBe(2);
    expect(c.path).toBe('/a');
  });
  it('clears the deletion when the node comes back', () => {
    const b = reduceZnode(reduceZnode(undefined, '/a', znode(true, 10), 1), '/a', znode(false, 20), 1);
    const c = reduceZnode(b, '/a', znode(true, 40), 1);
    expect(c.deletedAt).toBeNull();
    expect(c.node.exists).toBe(true);
  });
  it('has no deletion time for a node never seen', () => {
    const a = reduceZnode(undefined, '/a', znode(false, 10), 1);
    expect(a.last).toBeNull();
    expect(a.deletedAt).toBeNull();
  });
});

type ChildrenFields = { names?: string[]; added?: string[]; removed?: string[]; total: number };

type WholeOrDiff = Exclude<ChildrenChange, { mode: 'page' }>;
const fullList = ({ names = [], total }: ChildrenFields): WholeOrDiff => ({ kind: 'children', mode: 'full', names, total });
const diffOf = ({ added = [], removed = [], total }: ChildrenFields): WholeOrDiff => ({ kind: 'children', mode: 'diff', added, removed, total });
const page = (offset: number, names: string[], total: number, last: boolean): Extract<ChildrenChange, { mode: 'page' }> => ({
  kind: 'children',
  mode: 'page',
  names,
  total,
  offset,
  last,
});

describe('reduceChildren', () => {
  it('sorts a full list naturally', () => {
    const e = reduceChildren(undefined, fullList({ names: ['lock-10', 'lock-2', 'b', 'a'], total: 4 }), 1, 5);
    expect(e?.names).toEqual(['a', 'b', 'lock-2', 'lock-10']);
    expect(e?.total).toBe(4);
  });
  it('applies a diff in sorted position', () => {
    const full = reduceChildren(undefined, fullList({ names: ['n-1', 'n-3', 'n-20'], total: 3 }), 1, 5);
    const next = reduceChildren(full, diffOf({ added: ['n-4', 'n-1'], removed: ['n-3'], total: 3 }), 1, 6);
    expect(next?.names).toEqual(['n-1', 'n-4', 'n-20']);
    expect(next?.updatedAt).toBe(6);
  });
  it('does not mutate the previous list', () => {
    const full = reduceChildren(undefined, fullList({ names: ['a'], total: 1 }), 1, 5);
    reduceChildren(full, diffOf({ added: ['b'], total: 2 }), 1, 6);
    expect(full?.names).toEqual(['a']);
  });
  it('ignores a diff with nothing to apply it to', () => {
    expect(reduceChildren(undefined, diffOf({ added: ['a'], total: 1 }), 1, 5)).toBeUndefined();
  });
  it('keeps a list from an older socket as it is: a diff after a reconnect or resync waits for the whole list', () => {
    const old = reduceChildren(undefined, fullList({ names: ['a'], total: 1 }), 1, 5);
    expect(reduceChildren(old, diffOf({ added: ['b'], total: 2 }), 2, 6)).toBe(old);
    expect(reduceChildren(old, fullList({ names: ['a', 'b', 'c'], total: 3 }), 2, 7)).toMatchObject({ names: ['a', 'b', 'c'], epoch: 2 });
  });
  it('handles many additions at once', () => {
    const full = reduceChildren(undefined, fullList({ names: [], total: 0 }), 1, 5);
    const added = Array.from({ length: 200 }, (_, i) => `c-${199 - i}`);
    const next = reduceChildren(full, diffOf({ added, total: 200 }), 1, 6);
    expect(next?.names[0]).toBe('c-0');
    expect(next?.names[199]).toBe('c-199');
  });
});

describe('reduceChildrenPage', () => {
  it('gathers pages in order and gives the whole list with the last one', () => {
    const first = reduceChildrenPage(undefined, page(0, ['c', 'a'], 5, false), 1);
    expect(first.whole).toBeUndefined();
    const second = reduceChildrenPage(first.pending, page(2, ['e', 'b'], 5, false), 1);
    const last = reduceChildrenPage(second.pending, page(4, ['d'], 5, true), 1);
    expect(last).toEqual({ whole: { kind: 'children', mode: 'full', names: ['c', 'a', 'e', 'b', 'd'], total: 5 } });
    expect(reduceChildren(undefined, last.whole as WholeOrDiff, 1, 9)?.names).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
  it('drops what it gathered when a page is missing or comes from an older socket', () => {
    const first = reduceChildrenPage(undefined, page(0, ['a', 'b'], 6, false), 1);
    expect(reduceChildrenPage(first.pending, page(4, ['e', 'f'], 6, true), 1)).toEqual({});
    expect(reduceChildrenPage(first.pending, page(2, ['c', 'd'], 6, false), 2)).toEqual({});
    // A new list starts over at offset 0 whatever was gathered.
    expect(reduceChildrenPage(first.pending, page(0, ['x'], 2, false), 2).pending).toEqual({ names: ['x'], total: 2, epoch: 2 });
  });
});
