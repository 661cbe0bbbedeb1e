import type * as Shared from '@keeper/shared';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const sortSpy = vi.hoisted(() => ({ calls: 0 }));

vi.mock('@keeper/shared', async (importOriginal) => {
  const actual = await importOriginal<typeof Shared>();
  return {
    ...actual,
    sortChildNames: (names: readonly string[]) => {
      sortSpy.calls++;
      return actual.sortChildNames(names);
    },
  };
});

const { ChildrenPageCache } = await import('../../src/http/childrenPageCache.js');

beforeEach(() => {
  sortSpy.calls = 0;
});

describe('ChildrenPageCache', () => {
  it('returns the names in natural order without touching the input', () => {
    const cache = new ChildrenPageCache();
    const names = Object.freeze(['node10', 'node2', 'node1']);
    expect(cache.sorted('/p', '0x1', names)).toEqual(['node1', 'node2', 'node10']);
    expect(names).toEqual(['node10', 'node2', 'node1']);
  });

  it('sorts once per pzxid: later pages of the same list reuse the sorted copy', () => {
    const cache = new ChildrenPageCache();
    const names = Array.from({ length: 1000 }, (_, i) => `n${999 - i}`);
    const first = cache.sorted('/p', '0x5', names);
    const second = cache.sorted('/p', '0x5', [...names].reverse());
    const third = cache.sorted('/p', '0x5', names);
    expect(sortSpy.calls).toBe(1);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(first[0]).toBe('n0');
    expect(first[999]).toBe('n999');
  });

  it('re-sorts when the pzxid changes', () => {
    const cache = new ChildrenPageCache();
    const a = cache.sorted('/p', '0x5', ['b', 'a']);
    const b = cache.sorted('/p', '0x6', ['c', 'b', 'a']);
    expect(sortSpy.calls).toBe(2);
    expect(b).toEqual(['a', 'b', 'c']);
    expect(b).not.toBe(a);
    // And the new entry is what is cached now.
    expect(cache.sorted('/p', '0x6', ['a', 'b', 'c'])).toBe(b);
    expect(sortSpy.calls).toBe(2);
  });

  it('re-sorts when the list length differs under the same pzxid (defensive)', () => {
    const cache = new ChildrenPageCache();
    cache.sorted('/p', '0x5', ['b', 'a']);
    expect(cache.sorted('/p', '0x5', ['c', 'b', 'a'])).toEqual(['a', 'b', 'c']);
    expect(sortSpy.calls).toBe(2);
  });

  it('keeps keys apart', () => {
    const cache = new ChildrenPageCache();
    expect(cache.sorted('e1\0/p', '0x5', ['b', 'a'])).toEqual(['a', 'b']);
    expect(cache.sorted('e2\0/p', '0x5', ['d', 'c'])).toEqual(['c', 'd']);
    expect(sortSpy.calls).toBe(2);
  });

  it('evicts the least recently used entry beyond capacity', () => {
    const cache = new ChildrenPageCache(2);
    cache.sorted('/a', '1', ['a']);
    cache.sorted('/b', '1', ['b']);
    cache.sorted('/a', '1', ['a']); // /a is now the most recent
    expect(sortSpy.calls).toBe(2);
    cache.sorted('/c', '1', ['c']); // evicts /b
    expect(sortSpy.calls).toBe(3);
    cache.sorted('/a', '1', ['a']);
    cache.sorted('/c', '1', ['c']);
    expect(sortSpy.calls).toBe(3); // both still cached
    cache.sorted('/b', '1', ['b']); // was evicted: sorted again, evicting /a
    expect(sortSpy.calls).toBe(4);
    cache.sorted('/c', '1', ['c']);
    expect(sortSpy.calls).toBe(4);
    cache.sorted('/a', '1', ['a']);
    expect(sortSpy.calls).toBe(5);
  });

  it('a miss on an existing key refreshes its recency too', () => {
    const cache = new ChildrenPageCache(2);
    cache.sorted('/a', '1', ['a']);
    cache.sorted('/b', '1', ['b']);
    cache.sorted('/a', '2', ['a', 'x']); // changed: re-sorted and most recent
    cache.sorted('/c', '1', ['c']); // evicts /b, not /a
    expect(sortSpy.calls).toBe(4);
    cache.sorted('/a', '2', ['a', 'x']);
    expect(sortSpy.calls).toBe(4);
    cache.sorted('/b', '1', ['b']);
    expect(sortSpy.calls).toBe(5);
  });

  it('holds at most `capacity` entries (default 16)', () => {
    const cache = new ChildrenPageCache();
    for (let i = 0; i < 17; i++) cache.sorted(`/k${i}`, '1', ['x']);
    expect(sortSpy.calls).toBe(17);
    for (let i = 1; i < 17; i++) cache.sorted(`/k${i}`, '1', ['x']);
    expect(sortSpy.calls).toBe(17); // the 16 most recent are cached
    cache.sorted('/k0', '1', ['x']);
    expect(sortSpy.calls).toBe(18); // the first was evicted
  });
});
