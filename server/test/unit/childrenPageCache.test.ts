import type * as Shared from '@keeper/shared';
import { beforeEach, describe, expect, it, vi } from 'vitest';

/** Every time the cache orders names from scratch: a full sort or a heap pick. */
const picks = vi.hoisted(() => ({ sorts: 0, selects: 0 }));

vi.mock('@keeper/shared', async (importOriginal) => {
  const actual = await importOriginal<typeof Shared>();
  return {
    ...actual,
    sortChildNames: (names: readonly string[]) => {
      picks.sorts++;
      return actual.sortChildNames(names);
    },
    smallestChildNames: (names: readonly string[], k: number) => {
      picks.selects++;
      return actual.smallestChildNames(names, k);
    },
  };
});

const { sortChildNames } = await vi.importActual<typeof Shared>('@keeper/shared');
const { ChildrenPageCache } = await import('../../src/http/childrenPageCache.js');

const fromScratch = () => picks.sorts + picks.selects;

beforeEach(() => {
  picks.sorts = 0;
  picks.selects = 0;
});

/** A seeded PRNG (mulberry32): a failing run names its seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` names in a scrambled order, as ZooKeeper's hash set lists them. */
function scrambled(count: number, prefix = 'item-'): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${(i * 7919) % count}`);
}

describe('ChildrenPageCache', () => {
  it('returns the names in natural order without touching the input', () => {
    const cache = new ChildrenPageCache();
    const names = Object.freeze(['node10', 'node2', 'node1']);
    expect(cache.sorted('/p', '0x1', names)).toEqual(['node1', 'node2', 'node10']);
    expect(cache.page('/q', '0x1', names, 1, 1)).toEqual(['node2']);
    expect(names).toEqual(['node10', 'node2', 'node1']);
  });

  it('orders a list once per pzxid: later pages of the same list reuse it', () => {
    const cache = new ChildrenPageCache();
    const names = Array.from({ length: 1000 }, (_, i) => `n${999 - i}`);
    const first = cache.sorted('/p', '0x5', names);
    const second = cache.sorted('/p', '0x5', [...names].reverse());
    expect(cache.page('/p', '0x5', names, 10, 5)).toEqual(['n10', 'n11', 'n12', 'n13', 'n14']);
    expect(fromScratch()).toBe(1);
    expect(second).toBe(first);
    expect(first[0]).toBe('n0');
    expect(first[999]).toBe('n999');
  });

  it('picks an early page of a big list with the heap, and serves it again without picking', () => {
    const cache = new ChildrenPageCache();
    const names = scrambled(20_000);
    const page = cache.page('/big', '0x1', names, 0, 100);
    expect(page).toEqual(sortChildNames(names).slice(0, 100));
    expect(picks).toEqual({ sorts: 0, selects: 1 });
    expect(cache.page('/big', '0x1', names, 50, 100)).toEqual(sortChildNames(names).slice(50, 150));
    expect(picks).toEqual({ sorts: 0, selects: 1 });
    // A deep page needs the whole order: one full sort, then every page comes from it.
    expect(cache.page('/big', '0x1', names, 10_000, 10)).toEqual(sortChildNames(names).slice(10_000, 10_010));
    expect(cache.page('/big', '0x1', names, 0, 10)).toEqual(sortChildNames(names).slice(0, 10));
    expect(picks).toEqual({ sorts: 1, selects: 1 });
  });

  it('follows a few creates and deletes without ordering the list from scratch', () => {
    const cache = new ChildrenPageCache();
    const names = scrambled(20_000);
    cache.page('/big', '0x1', names, 0, 100);
    expect(fromScratch()).toBe(1);
    // One child on the page deleted, one created before all of them, one created far beyond the page.
    const next = names.filter((n) => n !== 'item-3');
    next.splice(500, 0, 'aaa');
    next.splice(9_000, 0, 'zzz');
    expect(cache.page('/big', '0x2', next, 0, 100)).toEqual(sortChildNames(next).slice(0, 100));
    // The same content under a new pzxid (created and deleted again): nothing to redo either.
    expect(cache.page('/big', '0x3', [...next], 0, 100)).toEqual(sortChildNames(next).slice(0, 100));
    expect(fromScratch()).toBe(1);
  });

  it('follows a long run of small changes without ordering from scratch again', () => {
    const cache = new ChildrenPageCache();
    let names = scrambled(3_000);
    cache.page('/big', '0x0', names, 0, 100);
    // 150 changes of one create and one delete: 300 names apart from the first list by the end.
    for (let step = 1; step <= 150; step++) {
      names = names.filter((n) => n !== `item-${step * 7}`);
      names.splice((step * 97) % names.length, 0, `new-${step}`);
      expect(cache.page('/big', `0x${step}`, names, 0, 100), `step ${step}`).toEqual(sortChildNames(names).slice(0, 100));
    }
    expect(fromScratch()).toBe(1);
  });

  it('keeps a fully sorted list sorted across changes', () => {
    const cache = new ChildrenPageCache();
    const names = scrambled(3_000);
    cache.sorted('/p', '0x1', names);
    const next = names.filter((n) => n !== 'item-2999' && n !== 'item-0');
    next.push('item-3000', 'a');
    expect(cache.sorted('/p', '0x2', next)).toEqual(sortChildNames(next));
    expect(fromScratch()).toBe(1);
  });

  it('leaves out names created beyond what it knows, and picks again for a page that reaches them', () => {
    const cache = new ChildrenPageCache();
    const names = scrambled(20_000);
    cache.page('/big', '0x1', names, 0, 100); // knows the smallest 228 (the page and its spare)
    const next = [...names, ...Array.from({ length: 40 }, (_, i) => `zzz-${i}`)];
    expect(cache.page('/big', '0x2', next, 200, 50)).toEqual(sortChildNames(next).slice(200, 250));
    expect(fromScratch()).toBe(2);
  });

  it('picks again when deletions leave fewer known names than the page needs', () => {
    const cache = new ChildrenPageCache();
    const names = scrambled(20_000);
    cache.page('/big', '0x1', names, 0, 100);
    // The page and its spare names (228 kept), minus 200 of them: 28 left, fewer than a page of 100.
    const gone = new Set(sortChildNames(names).slice(0, 200));
    const next = names.filter((n) => !gone.has(n));
    expect(cache.page('/big', '0x2', next, 0, 100)).toEqual(sortChildNames(next).slice(0, 100));
    expect(fromScratch()).toBe(2);
  });

  it('picks again when the list changed too much to walk', () => {
    const cache = new ChildrenPageCache();
    const names = scrambled(20_000);
    cache.page('/big', '0x1', names, 0, 100);
    const next = scrambled(20_000, 'other-');
    expect(cache.page('/big', '0x2', next, 0, 100)).toEqual(sortChildNames(next).slice(0, 100));
    expect(fromScratch()).toBe(2);
  });

  it('always answers what a full sort would, through random changes and pages (seeded)', () => {
    const random = seeded(5);
    const cache = new ChildrenPageCache();
    let names = scrambled(2_000);
    let fresh = 0;
    for (let step = 0; step < 150; step++) {
      const edits = random() < 0.1 ? 300 : Math.floor(random() * 6);
      names = [...names];
      for (let e = 0; e < edits; e++) {
        if (random() < 0.5 && names.length > 0) names.splice(Math.floor(random() * names.length), 1);
        else names.splice(Math.floor(random() * (names.length + 1)), 0, random() < 0.5 ? `item-${Math.floor(random() * 4_000)}` : `a-${step}-${e}`);
      }
      names = [...new Set(names)];
      const offset = random() < 0.2 ? Math.floor(random() * names.length) : Math.floor(random() * 300);
      const limit = 1 + Math.floor(random() * 200);
      expect(cache.page('/p', `0x${step}`, names, offset, limit), `step ${step}`).toEqual(sortChildNames(names).slice(offset, offset + limit));
      fresh = fromScratch();
    }
    // Most steps were small changes: far fewer orderings from scratch than requests.
    expect(fresh).toBeLessThan(75);
  });

  it('keeps keys apart', () => {
    const cache = new ChildrenPageCache();
    expect(cache.sorted('e1\0/p', '0x5', ['b', 'a'])).toEqual(['a', 'b']);
    expect(cache.sorted('e2\0/p', '0x5', ['d', 'c'])).toEqual(['c', 'd']);
    expect(fromScratch()).toBe(2);
  });

  it('forgets the least recently used list beyond capacity', () => {
    const cache = new ChildrenPageCache(2);
    cache.sorted('/a', '1', ['a']);
    cache.sorted('/b', '1', ['b']);
    cache.sorted('/a', '1', ['a']); // /a is now the most recent
    expect(fromScratch()).toBe(2);
    cache.sorted('/c', '1', ['c']); // forgets /b
    expect(fromScratch()).toBe(3);
    cache.sorted('/a', '1', ['a']);
    cache.sorted('/c', '1', ['c']);
    expect(fromScratch()).toBe(3); // both still known
    cache.sorted('/b', '1', ['b']); // was forgotten: ordered again, forgetting /a
    expect(fromScratch()).toBe(4);
    cache.sorted('/a', '1', ['a']);
    expect(fromScratch()).toBe(5);
  });

  it('a changed list is the most recently used', () => {
    const cache = new ChildrenPageCache(2);
    cache.sorted('/a', '1', ['a']);
    cache.sorted('/b', '1', ['b']);
    cache.sorted('/a', '2', ['a', 'x']); // changed: followed, and most recent
    cache.sorted('/c', '1', ['c']); // forgets /b, not /a
    expect(fromScratch()).toBe(3);
    cache.sorted('/a', '2', ['a', 'x']);
    expect(fromScratch()).toBe(3);
    cache.sorted('/b', '1', ['b']);
    expect(fromScratch()).toBe(4);
  });

  it('holds at most `capacity` lists (default 16)', () => {
    const cache = new ChildrenPageCache();
    for (let i = 0; i < 17; i++) cache.sorted(`/k${i}`, '1', ['x']);
    expect(fromScratch()).toBe(17);
    for (let i = 1; i < 17; i++) cache.sorted(`/k${i}`, '1', ['x']);
    expect(fromScratch()).toBe(17); // the 16 most recent are known
    cache.sorted('/k0', '1', ['x']);
    expect(fromScratch()).toBe(18); // the first was forgotten
  });

  it('holds at most `maxNames` names across its lists, but always the one just asked for', () => {
    const cache = new ChildrenPageCache(16, 5_000);
    const big = scrambled(3_000);
    cache.sorted('/a', '1', big); // 6,000 held (the list and its order): over the budget, but the one asked for
    cache.sorted('/a', '1', big);
    expect(fromScratch()).toBe(1);
    cache.sorted('/b', '1', ['b']); // /a is forgotten to make room
    cache.sorted('/b', '1', ['b']);
    expect(fromScratch()).toBe(2);
    cache.sorted('/a', '1', big);
    expect(fromScratch()).toBe(3);
  });
});
