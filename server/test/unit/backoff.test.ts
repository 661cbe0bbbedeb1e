import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay, type BackoffPolicy, DEFAULT_BACKOFF, sleep } from '../../src/zk/backoff.js';

const always = (value: number) => () => value;

describe('backoffDelay', () => {
  it('defaults to 100 ms, x2, capped at 2 s', () => {
    expect(DEFAULT_BACKOFF).toEqual({ initialDelayMs: 100, maxDelayMs: 2000, multiplier: 2 });
  });

  it('grows the cap by the multiplier up to the maximum (random = 1 gives the cap)', () => {
    const caps = Array.from({ length: 9 }, (_, attempt) => backoffDelay(attempt, DEFAULT_BACKOFF, always(1)));
    expect(caps).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000, 2000]);
  });

  it('never goes below half the cap (random = 0)', () => {
    const floors = Array.from({ length: 9 }, (_, attempt) => backoffDelay(attempt, DEFAULT_BACKOFF, always(0)));
    expect(floors).toEqual([50, 100, 200, 400, 800, 1000, 1000, 1000, 1000]);
  });

  it('is linear in the random draw between cap/2 and cap', () => {
    expect(backoffDelay(0, DEFAULT_BACKOFF, always(0.5))).toBe(75);
    expect(backoffDelay(3, DEFAULT_BACKOFF, always(0.25))).toBe(500);
    expect(backoffDelay(10, DEFAULT_BACKOFF, always(0.5))).toBe(1500);
  });

  it('is deterministic for an injected random source', () => {
    const seq = (seed: number) => {
      let s = seed;
      return () => {
        s = (s * 16807) % 2147483647;
        return s / 2147483647;
      };
    };
    const a = Array.from({ length: 20 }, (_, i) => backoffDelay(i, DEFAULT_BACKOFF, seq(42)));
    const b = Array.from({ length: 20 }, (_, i) => backoffDelay(i, DEFAULT_BACKOFF, seq(42)));
    expect(a).toEqual(b);
  });

  it('stays within [cap/2, cap] for any draw in [0, 1), with any policy', () => {
    const policies: BackoffPolicy[] = [
      DEFAULT_BACKOFF,
      { initialDelayMs: 1, maxDelayMs: 1000, multiplier: 3 },
      { initialDelayMs: 250, maxDelayMs: 250, multiplier: 2 },
      { initialDelayMs: 33, maxDelayMs: 30_001, multiplier: 1.5 },
    ];
    let draw = 0;
    const random = () => (draw = (draw + 0.6180339887) % 1);
    for (const policy of policies) {
      for (let attempt = 0; attempt < 60; attempt++) {
        const cap = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** attempt);
        for (let k = 0; k < 20; k++) {
          const d = backoffDelay(attempt, policy, random);
          expect(Number.isInteger(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(Math.floor(cap / 2));
          expect(d).toBeLessThanOrEqual(Math.ceil(cap));
          expect(d).toBeLessThanOrEqual(policy.maxDelayMs);
        }
      }
    }
  });

  it('does not overflow for huge attempt numbers', () => {
    expect(backoffDelay(10_000, DEFAULT_BACKOFF, always(1))).toBe(2000);
    expect(backoffDelay(Number.MAX_SAFE_INTEGER, DEFAULT_BACKOFF, always(0))).toBe(1000);
  });

  it('jitters with Math.random by default', () => {
    const seen = new Set(Array.from({ length: 200 }, () => backoffDelay(5)));
    expect(seen.size).toBeGreaterThan(10);
    for (const d of seen) {
      expect(d).toBeGreaterThanOrEqual(1000);
      expect(d).toBeLessThanOrEqual(2000);
    }
  });
});

describe('sleep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the given time and not before', async () => {
    vi.useFakeTimers();
    let done = false;
    const p = sleep(100).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(99);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
  });
});
