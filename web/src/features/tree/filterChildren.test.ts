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
  it('handles 100,000 names', () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `member-${i}`);
    expect(filterChildren(names, 'MEMBER-99999')).toEqual(['member-99999']);
    expect(filterChildren(names, 'member-1234')).toHaveLength(11); // 1234 and 12340..12349
  });
});
