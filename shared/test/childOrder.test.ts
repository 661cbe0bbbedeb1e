/** Sequential children rank by ZooKeeper's counter, whatever their prefix (issue 9, B9). */
import { describe, expect, it } from 'vitest';
import { compareChildNames, sequenceSuffixStart, smallestChildNames, sortChildNames } from '../src/childOrder.js';
import { randomInt, seeded } from './support/random.js';

const seq = (n: number) => String(n).padStart(10, '0');

describe('sequenceSuffixStart', () => {
  it('finds exactly ten trailing digits', () => {
    expect(sequenceSuffixStart('lock-0000000003')).toBe(5);
    expect(sequenceSuffixStart('0000000003')).toBe(0);
    expect(sequenceSuffixStart('_c_6f1e0f54-8d4e-4ec5-9d38-0c1f2a3b4c5d-lock-0000000003')).toBe(45);
  });

  it('refuses names that only look close', () => {
    expect(sequenceSuffixStart('lock-000000003')).toBe(-1); // nine digits
    expect(sequenceSuffixStart('ts-20240101123456')).toBe(-1); // fourteen digits
    expect(sequenceSuffixStart('lock-0000000003x')).toBe(-1);
    expect(sequenceSuffixStart('')).toBe(-1);
  });
});

describe('compareChildNames: sequential children', () => {
  it('puts a Curator lock holder first: protected names rank by the suffix, not the uuid', () => {
    const names = [
      '_c_f9a1c2d3-0000-4000-8000-000000000001-lock-0000000003',
      '_c_0b7e5a11-0000-4000-8000-000000000002-lock-0000000001',
      '_c_c4d2e6f8-0000-4000-8000-000000000003-lock-0000000002',
      '_c_01234567-0000-4000-8000-000000000004-lock-0000000010',
    ];
    expect(sortChildNames(names).map((n) => n.slice(-10))).toEqual([seq(1), seq(2), seq(3), seq(10)]);
  });

  it('ranks mixed prefixes (read and write locks, latches) by counter alone', () => {
    const names = ['write-0000000004', 'read-0000000002', 'latch-0000000001', 'read-0000000003'];
    expect(sortChildNames(names)).toEqual(['latch-0000000001', 'read-0000000002', 'read-0000000003', 'write-0000000004']);
  });

  it('puts sequential names before the others, each group in its own order', () => {
    const names = ['config', 'node10', 'b-0000000002', 'node2', 'a-0000000005', 'leases'];
    expect(sortChildNames(names)).toEqual(['b-0000000002', 'a-0000000005', 'config', 'leases', 'node2', 'node10']);
  });

  it('breaks equal counters by the whole name, so the order stays total', () => {
    expect(compareChildNames('b-0000000001', 'a-0000000001')).toBeGreaterThan(0);
    expect(compareChildNames('a-0000000001', 'a-0000000001')).toBe(0);
  });

  it('the first-page heap selection agrees with a full sort (the server and the browser agree)', () => {
    const r = seeded(9);
    const prefixes = ['_c_aaaa-lock-', '_c_ffff-lock-', 'lock-', 'x', 'n'];
    const names = new Set<string>();
    while (names.size < 3_000) {
      const p = prefixes[randomInt(r, prefixes.length)]!;
      names.add(p === 'x' || p === 'n' ? `${p}${randomInt(r, 5_000)}` : `${p}${seq(randomInt(r, 100_000))}`);
    }
    const all = [...names];
    const sorted = sortChildNames(all);
    for (const k of [1, 10, 500, 3_000]) expect(smallestChildNames(all, k)).toEqual(sorted.slice(0, k));
  });
});
