import { describe, expect, it } from 'vitest';
import { MutationBudget } from '../../src/hub/mutationBudget.js';

describe('MutationBudget', () => {
  it('allows `limit` per window per address, refilling steadily', () => {
    let now = 0;
    const budget = new MutationBudget({ limit: 3, windowMs: 3_000 }, () => now);
    expect([1, 2, 3, 4].map(() => budget.take('a'))).toEqual([true, true, true, false]);
    // Another address has its own bucket: one noisy browser does not lock out the rest.
    expect(budget.take('b')).toBe(true);
    now = 999;
    expect(budget.take('a')).toBe(false);
    now = 1_000;
    expect(budget.take('a')).toBe(true);
    expect(budget.take('a')).toBe(false);
    now = 100_000;
    expect([1, 2, 3, 4].map(() => budget.take('a'))).toEqual([true, true, true, false]);
  });

  it('forgets idle addresses instead of growing without bound', () => {
    let now = 0;
    const budget = new MutationBudget({ limit: 2, windowMs: 1_000 }, () => now);
    for (let i = 0; i < 25_000; i++) {
      now += 1;
      budget.take(`10.0.${i >> 8}.${i & 255}`);
    }
    expect((budget as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(10_001);
  });
});
