/** A lock scan's shared record (docs/operating/replicas.md): its 64 KiB cap and the hand-over to another replica. */
import { describe, expect, it } from 'vitest';
import {
  fitScanRecord,
  lastScanOf,
  lockScanCancelBodySchema,
  lockScanRecordSchema,
  recordScanHandover,
  scanCancelSentence,
  type LockScanRecord,
} from '../../src/locks/index.js';

const scan = (over: Partial<LockScanRecord> = {}): LockScanRecord => ({
  id: 'abc',
  ensemble: 'prod',
  path: '/app',
  state: 'running',
  startedBy: 'admin',
  startedAt: 1_000,
  finishedAt: null,
  updatedAt: 2_000,
  visited: 0,
  found: 0,
  foundPaths: [],
  requests: 0,
  skipped: [],
  skippedTotal: 0,
  error: null,
  runBy: null,
  handovers: [],
  ...over,
});
const bytes = (s: LockScanRecord) => new TextEncoder().encode(JSON.stringify(s)).length;

describe('fitScanRecord', () => {
  it('keeps a record that fits as it is', () => {
    const s = scan({ found: 2, foundPaths: ['/app/a', '/app/b'] });
    expect(fitScanRecord(s, 64 * 1024)).toBe(s);
  });

  it('lists fewer found paths past the cap and keeps their count', () => {
    const foundPaths = Array.from({ length: 5_000 }, (_, i) => `/app/service-${i}/locks/lock-${i}`);
    const skipped = Array.from({ length: 100 }, (_, i) => ({ path: `/big/${i}`, reason: '100,000 children, not descended: scan it directly' }));
    const fitted = fitScanRecord(scan({ found: 5_000, foundPaths, skipped, skippedTotal: 140 }), 64 * 1024);
    expect(bytes(fitted)).toBeLessThanOrEqual(64 * 1024);
    expect(fitted.found).toBe(5_000);
    expect(fitted.skippedTotal).toBe(140);
    expect(fitted.foundPaths.length).toBeGreaterThan(500);
    expect(fitted.foundPaths.length).toBeLessThan(5_000);
    expect(fitted.foundPaths).toEqual(foundPaths.slice(0, fitted.foundPaths.length));
    expect(lockScanRecordSchema.parse(fitted)).toEqual(fitted);
  });
});

describe('recordScanHandover', () => {
  const a = { replica: 'aaa', name: 'a:8080' };
  const b = { replica: 'bbb', name: 'b:8080' };
  const running = scan({ runBy: { ...a, since: 1_000 }, visited: 120, found: 3, foundPaths: ['/app/x'], requests: 130 });

  it('names who took over, when (ZooKeeper time) and from whom, and sets the partial walk aside', () => {
    const at = Date.UTC(2026, 10, 27, 14, 2, 31);
    const next = recordScanHandover(running, b, at);
    expect(next).toMatchObject({ state: 'running', visited: 0, found: 0, foundPaths: [], requests: 0, runBy: { ...b, since: at } });
    expect(next.handovers).toEqual([
      {
        at,
        from: a,
        to: b,
        reached: { visited: 120, found: 3, requests: 130 },
        sentence:
          "replica b:8080 took over at 14:02:31 UTC after replica a:8080's session ended; its partial walk (120 znodes listed, 3 found) is set aside and the scan starts again from /app",
      },
    ]);
    expect(lastScanOf(next)).toMatchObject({
      jobId: 'abc',
      visited: 0,
      runBy: { ...b, since: at },
      handovers: [{ at, sentence: next.handovers[0]!.sentence }],
    });
  });

  it('keeps the last 10 hand-overs', () => {
    let s = running;
    for (let i = 0; i < 12; i++) s = recordScanHandover(s, i % 2 ? a : b, 10_000 + i);
    expect(s.handovers).toHaveLength(10);
    expect(s.handovers.at(-1)!.at).toBe(10_011);
  });
});

describe('a cancel asked on another replica', () => {
  const asked = { by: 'ops', replica: { replica: 'bbb', name: 'b:8080' }, at: 5_000 };

  it('is kept through a hand-over and shown on the Locks line', () => {
    const running = scan({ runBy: { replica: 'aaa', name: 'a:8080', since: 1_000 }, cancelRequest: asked });
    expect(recordScanHandover(running, { replica: 'bbb', name: 'b:8080' }, 9_000).cancelRequest).toEqual(asked);
    expect(lastScanOf(running).cancelRequest).toEqual({ by: 'ops', replica: 'b:8080', at: 5_000 });
    expect(lastScanOf(scan()).cancelRequest).toBeUndefined();
  });

  it('is said with the runner and the time of its stop, or as not a cancel when the scan had ended', () => {
    const stopped = scan({
      state: 'cancelled',
      finishedAt: Date.UTC(2026, 0, 1, 14, 2, 31),
      runBy: { replica: 'aaa', name: 'a:8080', since: 1_000 },
      cancelRequest: asked,
    });
    expect(scanCancelSentence(stopped)).toBe('replica a:8080 stopped it at 14:02:31 UTC (asked by ops on replica b:8080)');
    expect(scanCancelSentence({ ...stopped, state: 'done', cancelRequest: null })).toBe('it had ended already (done at 14:02:31 UTC)');
  });

  it('parses records stored before the field existed, and refuses a bad one', () => {
    const { cancelRequest: _none, ...old } = scan({ cancelRequest: null });
    expect(lockScanRecordSchema.parse(old).cancelRequest).toBeUndefined();
    expect(() => lockScanRecordSchema.parse(scan({ cancelRequest: { ...asked, by: 'x'.repeat(301) } }))).toThrow();
    expect(lockScanCancelBodySchema.safeParse({ scanId: 'abc', waitMs: 10_001 }).success).toBe(false);
    expect(lockScanCancelBodySchema.safeParse({ scanId: '../owner' }).success).toBe(false);
    expect(lockScanCancelBodySchema.safeParse({ scanId: 'abc', extra: 1 }).success).toBe(false);
    expect(lockScanCancelBodySchema.parse({ scanId: 'abc', waitMs: 1_000 })).toEqual({ scanId: 'abc', waitMs: 1_000 });
  });
});
