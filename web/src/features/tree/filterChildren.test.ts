import { describe, expect, it } from 'vitest';
import { filterChildren } from './filterChildren';

describe('filterChildren', () => {
  it('matches substrings regardless of case and keeps order', () => {
    expect(filterChildren(['Lock-1', 'lock-2', 'leader'], 'LOCK')).toEqual(['Lock-1', 'lock-2']);
  });
  it('returns the same list for an empty query', () => {
    const names = ['a'];
    expect(filterChildren(names, '  ')).toBe(names);
  });
  it('stays fast on 100,000 names', () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `member-${String(i).padStart(10, '0')}`);
    const t = performance.now();
    expect(filterChildren(names, '99999')).toHaveLength(11);
    expect(performance.now() - t).toBeLessThan(200);
  });
});
