import { describe, expect, it } from 'vitest';
import { compareChildNames, sortChildNames } from '../src/childOrder.js';
import { applyChildrenDiff, diffChildren, diffChildrenInOrder } from '../src/childrenDiff.js';
import { pick, randomInt, randomString, seeded } from './support/random.js';

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Unique names (ZooKeeper children are a set), in random order. */
function randomChildren(random: () => number, pool: readonly string[], max: number): string[] {
  const picked = new Set<string>();
  const n = randomInt(random, max + 1);
  for (let i = 0; i < n; i++) picked.add(pick(random, pool));
  return [...picked];
}

describe('diffChildren', () => {
  it('reports nothing for identical lists, whatever the order', () => {
    expect(diffChildren(['a', 'b', 'c'], ['a', 'b', 'c'])).toEqual({ added: [], removed: [] });
    expect(diffChildren(['a', 'b', 'c'], ['c', 'a', 'b'])).toEqual({ added: [], removed: [] });
    expect(diffChildren([], [])).toEqual({ added: [], removed: [] });
  });

  it('reports additions in the new order and removals in the old order', () => {
    expect(diffChildren(['a', 'b', 'c', 'd'], ['z', 'b', 'y', 'd'])).toEqual({ added: ['z', 'y'], removed: ['a', 'c'] });
    expect(diffChildren([], ['x', 'y'])).toEqual({ added: ['x', 'y'], removed: [] });
    expect(diffChildren(['x', 'y'], [])).toEqual({ added: [], removed: ['x', 'y'] });
  });

  it('does not mutate its inputs', () => {
    const before = Object.freeze(['a', 'b']);
    const after = Object.freeze(['b', 'c']);
    expect(diffChildren(before, after)).toEqual({ added: ['c'], removed: ['a'] });
    expect(before).toEqual(['a', 'b']);
    expect(after).toEqual(['b', 'c']);
  });
});

/** The difference by hashing both lists: the reference the walk must match exactly, order included. */
function hashedDiff(before: readonly string[], after: readonly string[]) {
  const old = new Set(before);
  const now = new Set(after);
  return { added: after.filter((n) => !old.has(n)), removed: before.filter((n) => !now.has(n)) };
}

describe('diffChildrenInOrder', () => {
  const big = Array.from({ length: 10_000 }, (_, i) => `item-${(i * 7919) % 10_000}`);

  it('finds a few creates and deletes in a big list, as hashing would', () => {
    const after = [...big];
    after.splice(9_000, 1);
    after.splice(5_000, 0, 'new-b');
    after.splice(4_000, 2);
    after.splice(0, 0, 'new-a');
    after.push('new-c');
    const diff = diffChildrenInOrder(big, after, 16);
    expect(diff).toEqual(hashedDiff(big, after));
    expect(diff?.added).toEqual(['new-a', 'new-b', 'new-c']);
    expect(diff?.removed).toHaveLength(3);
  });

  it('reports nothing for the same list, or a name that moved', () => {
    expect(diffChildrenInOrder(big, [...big], 0)).toEqual({ added: [], removed: [] });
    const moved = [...big];
    const [name] = moved.splice(10, 1);
    moved.splice(9_990, 0, name!);
    expect(diffChildrenInOrder(big, moved, 4)).toEqual({ added: [], removed: [] });
  });

  it('gives up (null) past its budget of added + removed names', () => {
    const after = [...big.filter((_, i) => i % 100 !== 0), ...Array.from({ length: 50 }, (_, i) => `other-${i}`)];
    expect(diffChildrenInOrder(big, after, 149)).toBeNull();
    expect(diffChildrenInOrder(big, after, 150)).toEqual(hashedDiff(big, after));
    // A reordered list is exact too, within a budget that allows for it.
    const reversed = [...big.slice(0, 40)].reverse();
    expect(diffChildrenInOrder(big.slice(0, 40), reversed, 80)).toEqual({ added: [], removed: [] });
    expect(diffChildrenInOrder(big.slice(0, 40), reversed, 10)).toBeNull();
  });

  it('matches hashing exactly on random lists and random small edits (seeded)', () => {
    const random = seeded(11);
    const pool = Array.from({ length: 300 }, (_, i) => `n${i}`);
    for (let run = 0; run < 500; run++) {
      const before = randomChildren(random, pool, 120);
      const after = run % 2 === 0 ? randomChildren(random, pool, 120) : [...before];
      if (run % 2 === 1) {
        for (let e = randomInt(random, 6); e > 0; e--) {
          const at = randomInt(random, after.length + 1);
          if (random() < 0.5 && after.length > 0) after.splice(Math.min(at, after.length - 1), 1);
          else {
            const name = pick(random, pool);
            if (!after.includes(name)) after.splice(at, 0, name);
          }
        }
      }
      const diff = diffChildrenInOrder(before, after, 1_000);
      expect(diff, `run ${run}: ${JSON.stringify({ before, after })}`).toEqual(hashedDiff(before, after));
    }
  });
});

describe('applyChildrenDiff', () => {
  it('removes, keeps order, and appends additions', () => {
    expect(applyChildrenDiff(['a', 'b', 'c'], { added: ['d', 'e'], removed: ['b'] })).toEqual(['a', 'c', 'd', 'e']);
  });

  it('does not duplicate a name that is already present', () => {
    expect(applyChildrenDiff(['a', 'b'], { added: ['b', 'c'], removed: [] })).toEqual(['a', 'b', 'c']);
  });

  it('ignores removals of absent names', () => {
    expect(applyChildrenDiff(['a'], { added: [], removed: ['zz'] })).toEqual(['a']);
  });

  it('returns a new array and leaves the input alone', () => {
    const current = Object.freeze(['a', 'b']);
    const noRemoval = applyChildrenDiff(current, { added: [], removed: [] });
    expect(noRemoval).toEqual(['a', 'b']);
    expect(noRemoval).not.toBe(current);
    const withRemoval = applyChildrenDiff(current, { added: ['c'], removed: ['a'] });
    expect(withRemoval).toEqual(['b', 'c']);
    expect(current).toEqual(['a', 'b']);
  });

  it('round-trips: applying diff(before, after) to before yields exactly the set `after` (random lists)', () => {
    const random = seeded(7);
    const pool = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? `lock-${String(i).padStart(10, '0')}` : `n${i}`));
    for (let run = 0; run < 1000; run++) {
      const before = randomChildren(random, pool, 40);
      const after = randomChildren(random, pool, 40);
      const diff = diffChildren(before, after);
      const result = applyChildrenDiff(before, diff);
      const context = `run ${run}: ${JSON.stringify({ before, after })}`;
      expect(new Set(result).size, context).toBe(result.length);
      expect([...result].sort(), context).toEqual([...after].sort());
      // The diff is minimal: nothing is both kept and re-sent.
      for (const a of diff.added) expect(before, context).not.toContain(a);
      for (const r of diff.removed) expect(after, context).not.toContain(r);
      expect(diff.added.length + (before.length - diff.removed.length), context).toBe(after.length);
      // Names that stayed keep their relative order from `before`.
      const stayed = before.filter((n) => after.includes(n));
      expect(result.slice(0, stayed.length), context).toEqual(stayed);
      // Applying the same diff twice changes nothing more.
      expect(applyChildrenDiff(result, diff), context).toEqual(result);
    }
  });

  it('chains: a sequence of diffs replays a sequence of lists', () => {
    const random = seeded(99);
    const pool = Array.from({ length: 30 }, (_, i) => `c${i}`);
    let remote = randomChildren(random, pool, 20);
    let local = [...remote];
    for (let step = 0; step < 300; step++) {
      const next = randomChildren(random, pool, 20);
      local = applyChildrenDiff(local, diffChildren(remote, next));
      remote = next;
      expect([...local].sort(), `step ${step}`).toEqual([...remote].sort());
    }
  });
});

describe('compareChildNames: natural order', () => {
  const ordered: Array<[string, string]> = [
    ['node2', 'node10'],
    ['node9', 'node10'],
    ['lock-0000000002', 'lock-0000000010'],
    ['lock-0000000009', 'lock-0000000010'],
    ['lock-0000000999', 'lock-0000001000'],
    ['a', 'b'],
    ['', 'a'],
    ['a', 'a0'],
    ['a', 'aa'],
    ['a9b', 'a10a'],
    ['x1y2', 'x1y10'],
    ['2', '10'],
    ['99999999999999999999', '100000000000000000000'],
    ['n9007199254740992', 'n9007199254740993'], // past Number precision
    ['B', 'a'], // code unit order for letters
    ['1', 'a'], // digits before letters
    ['-', '0'],
    ['0', 'a'],
  ];

  it.each(ordered)('%s < %s', (a, b) => {
    expect(compareChildNames(a, b)).toBeLessThan(0);
    expect(compareChildNames(b, a)).toBeGreaterThan(0);
  });

  it('is zero exactly for equal strings', () => {
    for (const s of ['', 'a', 'node10', 'lock-0000000001', '007']) expect(compareChildNames(s, s)).toBe(0);
  });

  it('breaks ties between equal numbers by leading zeros, fewest first', () => {
    expect(compareChildNames('x1', 'x01')).toBeLessThan(0);
    expect(compareChildNames('x01', 'x001')).toBeLessThan(0);
    expect(compareChildNames('x001', 'x2')).toBeLessThan(0);
    expect(compareChildNames('0', '00')).toBeLessThan(0);
    expect(sortChildNames(['x001', 'x2', 'x01', 'x1', 'x10', 'x0'])).toEqual(['x0', 'x1', 'x01', 'x001', 'x2', 'x10']);
  });

  it('value before leading zeros: x01b > x1c is decided by the number, then the zeros', () => {
    // Same value 1; fewer digits first, even though the rest would order the other way.
    expect(compareChildNames('x1c', 'x01b')).toBeLessThan(0);
    expect(compareChildNames('x2a', 'x01z')).toBeGreaterThan(0);
  });

  it('orders kazoo lock names by sequence when the prefix is the same', () => {
    const uuid = 'f47ac10b58cc4372a5670e02b2c3d479';
    const names = [10, 2, 1, 100, 11].map((n) => `${uuid}__lock__${String(n).padStart(10, '0')}`);
    expect(sortChildNames(names).map((n) => Number(n.slice(-10)))).toEqual([1, 2, 10, 11, 100]);
  });

  it('orders kazoo lock names by sequence even when prefixes differ (the holder first)', () => {
    const a = 'a1b2c3__lock__0000000009';
    const b = 'a1b2c4__lock__0000000001';
    expect(compareChildNames(a, b)).toBeGreaterThan(0);
  });

  it('sorts ZooKeeper sequential children as an operator expects', () => {
    const names = ['node10', 'node2', 'node1', 'lock-0000000010', 'lock-0000000002', 'node', 'lock-0000000001'];
    expect(sortChildNames(names)).toEqual(['lock-0000000001', 'lock-0000000002', 'lock-0000000010', 'node', 'node1', 'node2', 'node10']);
  });
});

/** Independent reference: tokenise into digit runs and single code units, compare token by token. */
function referenceCompare(a: string, b: string): number {
  const tokens = (s: string) => s.match(/[0-9]+|[^0-9]/g) ?? [];
  const ta = tokens(a);
  const tb = tokens(b);
  for (let k = 0; k < Math.min(ta.length, tb.length); k++) {
    const x = ta[k]!;
    const y = tb[k]!;
    const xd = /^[0-9]/.test(x);
    const yd = /^[0-9]/.test(y);
    if (xd && yd) {
      const vx = BigInt(x);
      const vy = BigInt(y);
      if (vx !== vy) return vx < vy ? -1 : 1;
      if (x.length !== y.length) return x.length < y.length ? -1 : 1;
      continue;
    }
    // A digit run against a non-digit (or two non-digits): by first code unit.
    const cx = x.charCodeAt(0);
    const cy = y.charCodeAt(0);
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
  return sign(ta.length - tb.length);
}

describe('compareChildNames: a total order over random strings', () => {
  const alphabet = 'ab-_0019Z.';
  const random = seeded(2024);
  const strings = Array.from({ length: 400 }, () => randomString(random, alphabet, 7));
  strings.push('', '0', '00', '1', '01', '10', 'a', 'a0', 'a00', 'a1', 'a01');

  it('agrees in sign with an independent reference comparator', () => {
    const disagreements: string[] = [];
    for (const a of strings) {
      for (const b of strings) {
        if (sign(compareChildNames(a, b)) !== referenceCompare(a, b)) disagreements.push(`${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
  });

  it('is reflexive and antisymmetric, and zero only for equal strings', () => {
    const violations: string[] = [];
    for (const a of strings) {
      for (const b of strings) {
        const ab = sign(compareChildNames(a, b));
        const ba = sign(compareChildNames(b, a));
        if (ab !== -ba || (ab === 0) !== (a === b)) violations.push(`${JSON.stringify(a)} vs ${JSON.stringify(b)}: ${ab}/${ba}`);
      }
    }
    expect(violations.slice(0, 10)).toEqual([]);
  });

  it('is transitive', () => {
    const r = seeded(5);
    const violations: string[] = [];
    for (let n = 0; n < 200_000; n++) {
      const a = pick(r, strings);
      const b = pick(r, strings);
      const c = pick(r, strings);
      if (compareChildNames(a, b) <= 0 && compareChildNames(b, c) <= 0 && compareChildNames(a, c) > 0) {
        violations.push(`${JSON.stringify(a)} <= ${JSON.stringify(b)} <= ${JSON.stringify(c)}`);
      }
    }
    expect(violations.slice(0, 10)).toEqual([]);
  });

  it('sorting yields a list that is ordered pairwise, whatever the input order', () => {
    const sorted = sortChildNames(strings);
    const violations: string[] = [];
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        if (compareChildNames(sorted[i]!, sorted[j]!) > 0) violations.push(`${sorted[i]} before ${sorted[j]}`);
      }
    }
    expect(violations.slice(0, 10)).toEqual([]);
    const shuffled = [...strings];
    const r = seeded(11);
    for (let i = shuffled.length - 1; i > 0; i--) {
      const k = randomInt(r, i + 1);
      [shuffled[i], shuffled[k]] = [shuffled[k]!, shuffled[i]!];
    }
    expect(sortChildNames(shuffled)).toEqual(sorted);
  });
});

describe('sortChildNames', () => {
  it('returns a sorted copy and leaves the input untouched', () => {
    const input = Object.freeze(['node10', 'node2', 'node1']);
    const out = sortChildNames(input);
    expect(out).toEqual(['node1', 'node2', 'node10']);
    expect(input).toEqual(['node10', 'node2', 'node1']);
    expect(out).not.toBe(input);
  });

  it('handles an empty list and 100k sequential names', () => {
    expect(sortChildNames([])).toEqual([]);
    const names = Array.from({ length: 100_000 }, (_, i) => `lock-${String((i * 7919) % 100_000).padStart(10, '0')}`);
    const sorted = sortChildNames(names);
    expect(sorted[0]).toBe('lock-0000000000');
    expect(sorted[99_999]).toBe('lock-0000099999');
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i - 1]! >= sorted[i]!) throw new Error(`out of order at ${i}: ${sorted[i - 1]} ${sorted[i]}`);
    }
  });
});
