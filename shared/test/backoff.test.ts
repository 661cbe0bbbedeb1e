import { describe, expect, it } from 'vitest';
import { backoffDelay, type Backoff } from '../src/backoff.js';
import { seeded } from './support/random.js';

const always = (value: number) => () => value;
/** The gateway's read retry (kazoo's and Curator's numbers), the most used policy. */
const READ: Backoff = { baseMs: 100, capMs: 2_000, jitter: [0.5, 1] };

describe('backoffDelay', () => {
  it('grows by the factor (2 unless said) up to the cap (draw 1 gives the un-jittered delay)', () => {
    const delays = Array.from({ length: 9 }, (_, attempt) => backoffDelay(attempt, READ, always(1)));
    expect(delays).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000, 2000]);
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, { baseMs: 10, capMs: 1_000, factor: 3, jitter: [1, 1] }))).toEqual([10, 30, 90, 270]);
  });

  it('never goes below the jitter floor (draw 0)', () => {
    const floors = Array.from({ length: 9 }, (_, attempt) => backoffDelay(attempt, READ, always(0)));
    expect(floors).toEqual([50, 100, 200, 400, 800, 1000, 1000, 1000, 1000]);
  });

  it('is linear in the draw between the jitter bounds', () => {
    expect(backoffDelay(0, READ, always(0.5))).toBe(75);
    expect(backoffDelay(3, READ, always(0.25))).toBe(500);
    expect(backoffDelay(10, READ, always(0.5))).toBe(1500);
    // A spread around the delay (the browser's +-20 %).
    expect([0, 0.5, 1].map((r) => backoffDelay(0, { baseMs: 500, capMs: 2_000, jitter: [0.8, 1.2] }, always(r)))).toEqual([400, 500, 600]);
  });

  it('uses full jitter, [0, delay], unless told otherwise', () => {
    const full: Backoff = { baseMs: 100, capMs: 1_000 };
    expect([0, 0.5, 1].map((r) => backoffDelay(4, full, always(r)))).toEqual([0, 500, 1000]);
  });

  it('is deterministic for an injected random source', () => {
    const a = Array.from({ length: 20 }, (_, i) => backoffDelay(i, READ, seeded(42)));
    const b = Array.from({ length: 20 }, (_, i) => backoffDelay(i, READ, seeded(42)));
    expect(a).toEqual(b);
    expect(new Set(a).size).toBeGreaterThan(5);
  });

  it('stays a whole number within [low, high] times the capped delay for any draw, with any policy', () => {
    const policies: Backoff[] = [
      READ,
      { baseMs: 1, capMs: 1000, factor: 3, jitter: [0.5, 1] },
      { baseMs: 250, capMs: 250 },
      { baseMs: 33, capMs: 30_001, factor: 1.5, jitter: [0.75, 1] },
      { baseMs: 500, capMs: 30_000, jitter: [0.8, 1.2] },
    ];
    const random = seeded(7);
    for (const policy of policies) {
      const [low, high] = policy.jitter ?? [0, 1];
      for (let attempt = 0; attempt < 60; attempt++) {
        const delay = Math.min(policy.capMs, policy.baseMs * (policy.factor ?? 2) ** attempt);
        for (let k = 0; k < 20; k++) {
          const d = backoffDelay(attempt, policy, random);
          expect(Number.isInteger(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(Math.floor(delay * low));
          expect(d).toBeLessThanOrEqual(Math.ceil(delay * high));
        }
      }
    }
  });

  it('does not overflow for huge attempt numbers, nor go below the base for negative ones', () => {
    expect(backoffDelay(10_000, READ, always(1))).toBe(2000);
    expect(backoffDelay(Number.MAX_SAFE_INTEGER, READ, always(0))).toBe(1000);
    expect(backoffDelay(-3, READ, always(1))).toBe(100);
  });

  it('jitters with Math.random by default', () => {
    const seen = new Set(Array.from({ length: 200 }, () => backoffDelay(5, READ)));
    expect(seen.size).toBeGreaterThan(10);
    for (const d of seen) {
      expect(d).toBeGreaterThanOrEqual(1000);
      expect(d).toBeLessThanOrEqual(2000);
    }
  });
});
