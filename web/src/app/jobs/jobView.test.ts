import { describe, expect, it } from 'vitest';
import type { JobSnapshot } from '@keeper/shared';
import { jobReport, pace, percent, progressLine } from './jobView';

const base: JobSnapshot = {
  id: 'j1',
  kind: 'recursiveDelete',
  ensemble: 'default',
  path: '/big',
  state: 'running',
  done: 500,
  total: 2001,
  current: '/big/a/b',
  startedBy: 'ann',
  startedAt: 0,
  cancelRequested: false,
};

describe('progress', () => {
  it('counts and paces', () => {
    expect(percent(base)).toBe(24);
    expect(percent({ done: 0, total: 0 })).toBeNull();
    expect(progressLine(base)).toBe('500 of 2,001 nodes deleted');
    expect(progressLine({ ...base, total: 0, done: 0 })).toBe('Listing the subtree…');
    // Measured from the first progress seen: 400 nodes in 2 s since then.
    expect(pace(base, 5_000, { at: 3_000, done: 100 })).toEqual({ perSecond: 200, leftMs: 7_505 });
    expect(pace(base, 5_000, null)).toBeNull();
  });

  it('gives no time left until a few hundred nodes went by (issue 9: "about 1 h 47 min" for 22 s)', () => {
    // A long listing, then the first snapshot shows a handful done: no estimate from that.
    const early = { done: 12, total: 20_001 };
    expect(pace(early, 8_000, { at: 7_900, done: 5 })).toBeNull();
    // Only 299 nodes measured: still none.
    expect(pace({ done: 304, total: 20_001 }, 9_000, { at: 7_900, done: 5 })).toBeNull();
    // Enough seen over a second: 20,000 nodes at ~900/s is about 22 s, not hours.
    const later = pace({ done: 905, total: 20_001 }, 8_900, { at: 7_900, done: 5 });
    expect(later?.perSecond).toBe(900);
    expect(Math.round((later?.leftMs ?? 0) / 1000)).toBe(21);
    // Over less than a second, however many: none.
    expect(pace({ done: 905, total: 20_001 }, 8_500, { at: 7_900, done: 5 })).toBeNull();
  });
});

describe('jobReport', () => {
  it('completed', () => {
    expect(jobReport({ ...base, state: 'done', done: 2001, finishedAt: 4_200 })).toMatchObject({
      tone: 'live',
      word: 'completed',
      headline: 'Deleted 2,001 nodes in 4 s.',
    });
  });

  it('cancelled, with what remains read back', () => {
    const r = jobReport({ ...base, state: 'cancelled', remainingTotal: 1501, remainingVerified: true, remaining: ['/big/x'] });
    expect(r).toMatchObject({ tone: 'degraded', word: 'cancelled', headline: 'Cancelled after 500 of 2,001 nodes.' });
    expect(r.details).toEqual(['1,501 nodes remain (read back from ZooKeeper after stopping).']);
  });

  it('failed after a connection loss, with the unverified remainder explained', () => {
    const r = jobReport({
      ...base,
      state: 'failed',
      error: { code: 'CONNECTION_LOSS', message: 'lost the connection' },
      remainingTotal: 3,
      remainingVerified: false,
    });
    expect(r.tone).toBe('lost');
    expect(r.details[0]).toBe('lost the connection (CONNECTION_LOSS)');
    expect(r.details[1]).toMatch(/3 nodes remain \(from the job’s own bookkeeping: ZooKeeper could not be read back/);
  });

  it('imports report their counts', () => {
    const r = jobReport({
      ...base,
      kind: 'import',
      state: 'done',
      done: 4,
      total: 4,
      finishedAt: 100,
      summary: { created: 3, updated: 1, unchanged: 7, conflicts: 2, failed: 0 },
    });
    expect(r.headline).toBe('Applied 4 changes in 1 s.');
    expect(r.details).toEqual(['3 created, 1 updated, 7 unchanged, 2 conflicts left alone.']);
  });
});
