/**
 * The lock scan's walk and its pacer, on an in-memory tree (pure logic: no ZooKeeper). The
 * walk against a real ensemble is lockScan.integration.test.ts; the pacing's effect on other
 * clients' latency is bench/locks.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ZnodeStat } from '@keeper/shared';
import { scanForLocks, type ScanOptions, type ScanReader } from '../../src/locks/scan.js';
import { ScanPacer } from '../../src/locks/scanPacer.js';

const STAT: ZnodeStat = {
  czxid: '0x0',
  mzxid: '0x0',
  pzxid: '0x0',
  ctime: 0,
  mtime: 0,
  version: 0,
  cversion: 0,
  aversion: 0,
  ephemeralOwner: '0x0',
  dataLength: 0,
  numChildren: 0,
};

class ZkLikeError extends Error {
  constructor(readonly code: string) {
    super(`${code} (fake)`);
  }
}

const lockName = (i: number) => `${'ab'.repeat(16)}__lock__${String(i).padStart(10, '0')}`;
const isLockDirectory = (_path: string, children: readonly string[]) => children.length > 0 && children.every((c) => /__lock__\d{10}$/.test(c));

/**
 * Virtual time: sleep() registers a timer; run() lets every promise settle, then moves the
 * clock to the next timer, until the awaited promise settles. Deterministic and instant.
 */
class VirtualClock {
  t = 0;
  private timers: { at: number; resolve: () => void }[] = [];
  now = () => this.t;
  sleep = (ms: number) => new Promise<void>((resolve) => this.timers.push({ at: this.t + Math.max(0, ms), resolve }));
  async run<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    const watched = promise.finally(() => (settled = true));
    while (!settled) {
      await new Promise((r) => setImmediate(r));
      if (settled) break;
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers.shift();
      if (!next) continue;
      this.t = Math.max(this.t, next.at);
      next.resolve();
    }
    return watched;
  }
}

/** Total length covered by [start, end] intervals. */
function unionLength(spans: readonly [number, number][]): number {
  let total = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0])) {
    if (b <= reach) continue;
    total += b - Math.max(a, reach);
    reach = b;
  }
  return total;
}

/** A tree as path -> children names; every path not listed but named by its parent is a leaf. */
class FakeReader implements ScanReader {
  readonly calls: string[] = [];
  outstanding = 0;
  maxOutstanding = 0;
  /** path -> errors to throw before answering (or forever with 'always'). */
  readonly failures = new Map<string, { code: string; times: number | 'always' }>();
  readonly callTimes = new Map<string, number[]>();
  latencyMs: (n: number) => number = () => 0;
  /** [sent, answered] of every call. */
  readonly spans: [number, number][] = [];

  constructor(
    private readonly tree: Map<string, string[]>,
    private readonly clock?: VirtualClock,
  ) {}

  private now(): number {
    return this.clock ? this.clock.now() : performance.now();
  }

  async getChildren(path: string): Promise<{ children: string[]; stat: ZnodeStat }> {
    this.calls.push(path);
    const sentAt = this.now();
    this.callTimes.set(path, [...(this.callTimes.get(path) ?? []), sentAt]);
    this.outstanding++;
    this.maxOutstanding = Math.max(this.maxOutstanding, this.outstanding);
    try {
      const ms = this.latencyMs(this.calls.length);
      if (this.clock) await this.clock.sleep(ms);
      else await (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : new Promise((r) => setImmediate(r)));
      this.spans.push([sentAt, this.now()]);
      const failure = this.failures.get(path);
      if (failure && (failure.times === 'always' || failure.times-- > 0)) throw new ZkLikeError(failure.code);
      if (path === '/gone') throw new ZkLikeError('NO_NODE');
      const children = this.tree.get(path);
      if (children === undefined && !this.exists(path)) throw new ZkLikeError('NO_NODE');
      return { children: [...(children ?? [])], stat: STAT };
    } finally {
      this.outstanding--;
    }
  }

  private exists(path: string): boolean {
    const cut = path.lastIndexOf('/');
    const parent = cut === 0 ? '/' : path.slice(0, cut);
    return this.tree.get(parent)?.includes(path.slice(cut + 1)) ?? false;
  }
}

function tree(entries: Record<string, string[]>): Map<string, string[]> {
  return new Map(Object.entries(entries));
}

/** Pacing that never waits: the walk's logic alone. */
const UNPACED = { minDutyCycle: 1, maxDutyCycle: 1 };

function scan(reader: FakeReader, over: Partial<ScanOptions> = {}) {
  const found: string[] = [];
  const progress: number[] = [];
  const result = scanForLocks({
    root: '/',
    reader,
    isLockDirectory,
    pacing: UNPACED,
    cancelled: () => false,
    onProgress: (p) => progress.push(p.visited),
    onFound: (path) => found.push(path),
    progressIntervalMs: 0,
    ...over,
  });
  return { result, found, progress };
}

const SAMPLE = () =>
  tree({
    '/': ['app', 'zookeeper', 'locks'],
    '/app': ['a', 'b'],
    '/app/a': ['x'],
    '/app/b': [],
    '/locks': ['job1', 'job2'],
    '/locks/job1': [lockName(3), lockName(1), lockName(2)],
    '/locks/job2': ['not-a-lock'],
    '/zookeeper': ['quota', 'config'],
  });

describe('scanForLocks: the walk', () => {
  it('walks breadth-first, finds lock directories without descending them, and skips /zookeeper', async () => {
    const reader = new FakeReader(SAMPLE());
    const { result, found } = scan(reader, { budget: { maxOutstanding: 1 } });
    const r = await result;
    expect(r.state).toBe('done');
    expect(reader.calls).toEqual(['/', '/app', '/locks', '/app/a', '/app/b', '/locks/job1', '/locks/job2', '/app/a/x', '/locks/job2/not-a-lock']);
    expect(r.found).toEqual(['/locks/job1']);
    expect(found).toEqual(['/locks/job1']);
    expect(r.visited).toBe(9);
    expect(r.requests).toBe(9);
    expect(r.skipped).toEqual([]);
  });

  it('hands isLockDirectory the parent’s children as siblings (null for the root)', async () => {
    const seen: [string, readonly string[] | null][] = [];
    const reader = new FakeReader(tree({ '/': ['s'], '/s': ['lease'], '/s/lease': [] }));
    await scan(reader, {
      isLockDirectory: (path, _children, siblings) => {
        seen.push([path, siblings]);
        return false;
      },
    }).result;
    expect(seen).toEqual([
      ['/', null],
      ['/s', ['s']],
      ['/s/lease', ['lease']],
    ]);
  });

  it('lists a big non-lock directory with a sentence instead of descending it, but descends it as the root', async () => {
    const many = Array.from({ length: 12 }, (_, i) => `task-${i}`);
    const locks = Array.from({ length: 12 }, (_, i) => lockName(i));
    const reader = new FakeReader(tree({ '/': ['tasks', 'biglock'], '/tasks': many, '/biglock': locks }));
    const r = await scan(reader, { budget: { maxChildrenDescended: 10 } }).result;
    expect(r.skipped).toEqual([{ path: '/tasks', reason: '12 children, not descended: scan it directly' }]);
    expect(r.found).toEqual(['/biglock']);
    expect(reader.calls.filter((c) => c.startsWith('/tasks/'))).toEqual([]);
    expect(r.requests).toBe(3);

    const direct = new FakeReader(tree({ '/tasks': many }));
    const d = await scan(direct, { root: '/tasks', budget: { maxChildrenDescended: 10 } }).result;
    expect(d.skipped).toEqual([]);
    expect(d.visited).toBe(13);
  });

  it('skips a node deleted since its parent was listed, silently; a missing root is said', async () => {
    const reader = new FakeReader(tree({ '/': ['gone', 'here'], '/here': [] }));
    const r = await scan(reader).result;
    expect(r.state).toBe('done');
    expect(reader.calls).toContain('/gone');
    expect(r.skipped).toEqual([]);
    expect(r.visited).toBe(2);
    const missing = await scan(new FakeReader(tree({ '/': [] })), { root: '/nope' }).result;
    expect(missing.skipped).toEqual([{ path: '/nope', reason: 'it does not exist' }]);
  });

  it('retries a failing read with back-off, then skips it with the reason', async () => {
    const reader = new FakeReader(tree({ '/': ['flaky', 'broken', 'secret'], '/flaky': ['leaf'] }));
    reader.failures.set('/flaky', { code: 'CONNECTION_LOSS', times: 2 });
    reader.failures.set('/broken', { code: 'OPERATION_TIMEOUT', times: 'always' });
    reader.failures.set('/secret', { code: 'NO_AUTH', times: 'always' });
    const r = await scan(reader, { retry: { attempts: 3, backoff: { baseMs: 20, capMs: 40, jitter: [1, 1] } } }).result;
    expect(r.state).toBe('done');
    const times = reader.callTimes.get('/flaky')!;
    expect(times).toHaveLength(3);
    // 20 ms then 40 ms: the delays grow (timers may fire a little early).
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(18);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(38);
    expect(reader.calls).toContain('/flaky/leaf');
    expect(reader.callTimes.get('/broken')).toHaveLength(3);
    expect(reader.callTimes.get('/secret')).toHaveLength(1);
    expect(r.skipped).toHaveLength(2);
    expect(r.skipped).toEqual(
      expect.arrayContaining([
        { path: '/secret', reason: 'NO_AUTH: NO_AUTH (fake)' },
        { path: '/broken', reason: 'OPERATION_TIMEOUT after 3 tries: OPERATION_TIMEOUT (fake)' },
      ]),
    );
    expect(r.pacing.slowdowns).toBeGreaterThanOrEqual(5);
  });

  it('stops when the request budget is spent and lists what it did not visit (a capped list, all counted)', async () => {
    const children = Array.from({ length: 30 }, (_, i) => `n${i}`);
    const reader = new FakeReader(tree({ '/': children }));
    const r = await scan(reader, { budget: { maxRequests: 6, maxSkippedListed: 4 } }).result;
    expect(r.state).toBe('budget');
    expect(r.requests).toBe(6);
    expect(reader.calls).toHaveLength(6);
    expect(r.visited).toBe(6);
    expect(r.skippedTotal).toBe(25);
    expect(r.skipped).toHaveLength(4);
    expect(r.skipped[0]!.reason).toBe("not visited: the scan's budget of 6 requests was spent");
  });

  it('stops at its deadline', async () => {
    const children = Array.from({ length: 50 }, (_, i) => `n${i}`);
    // On a virtual clock: the deadline is the scan's own, not the test machine's speed.
    const clock = new VirtualClock();
    const reader = new FakeReader(tree({ '/': children }), clock);
    reader.latencyMs = () => 10;
    const r = await clock.run(scan(reader, { now: clock.now, sleep: clock.sleep, budget: { deadlineMs: 80 } }).result);
    expect(r.state).toBe('deadline');
    // It stops at the deadline, give or take the one answer it was waiting for.
    expect(r.durationMs).toBeGreaterThanOrEqual(80);
    expect(r.durationMs).toBeLessThanOrEqual(80 + 10);
    expect(r.visited).toBeLessThan(51);
    expect(r.visited + r.skippedTotal).toBeGreaterThanOrEqual(51);
    expect(r.skipped[0]!.reason).toMatch(/deadline \(0 s\) passed/);
  });

  it('stops soon after a cancel, sending nothing more', async () => {
    const children = Array.from({ length: 50 }, (_, i) => `n${i}`);
    const reader = new FakeReader(tree({ '/': children }));
    reader.latencyMs = () => 2;
    let cancel = false;
    const { result } = scan(reader, { cancelled: () => cancel, onProgress: (p) => (cancel ||= p.visited >= 5) });
    const r = await result;
    expect(r.state).toBe('cancelled');
    const sent = reader.calls.length;
    expect(sent).toBeLessThanOrEqual(5 + 2);
    await new Promise((res) => setTimeout(res, 30));
    expect(reader.calls.length).toBe(sent);
    expect(r.skippedTotal).toBe(51 - r.visited);
  });

  it('never has more requests outstanding than the cap, and uses it', async () => {
    const level = Array.from({ length: 40 }, (_, i) => `n${i}`);
    const entries: Record<string, string[]> = { '/': level };
    for (const n of level) entries[`/${n}`] = ['a', 'b'];
    for (const cap of [1, 2]) {
      const reader = new FakeReader(tree(entries));
      reader.latencyMs = (n) => 1 + (n % 3);
      const r = await scan(reader, { budget: { maxOutstanding: cap } }).result;
      expect(r.visited).toBe(121);
      expect(reader.maxOutstanding).toBe(cap);
    }
  });

  it('fails when the reader is closed', async () => {
    const reader = new FakeReader(tree({ '/': ['a'] }));
    reader.failures.set('/a', { code: 'CLOSED', times: 'always' });
    await expect(scan(reader).result).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('keeps the member busy at most its duty cycle, and slows down when the ensemble answers later', async () => {
    const level = Array.from({ length: 400 }, (_, i) => `n${i}`);
    const clock = new VirtualClock();
    const reader = new FakeReader(tree({ '/': level }), clock);
    // 1 ms answers, then 2 ms from the 200th request on: as if another client loaded the member.
    reader.latencyMs = (n) => (n < 200 ? 1 : 2);
    const duty: { requests: number; duty: number; slowdowns: number }[] = [];
    const { result } = scan(reader, {
      now: clock.now,
      sleep: clock.sleep,
      pacing: { maxDutyCycle: 0.5, increaseStep: 0.1 },
      onProgress: (p) => duty.push({ requests: p.requests, duty: p.pacing.dutyCycle, slowdowns: p.pacing.slowdowns }),
    });
    const r = await clock.run(result);
    expect(r.state).toBe('done');
    expect(r.visited).toBe(401);
    const before = duty.filter((d) => d.requests < 200);
    const after = duty.filter((d) => d.requests >= 210);
    // Exact answers before the change: full speed, no slowdown; after it, the duty cycle falls.
    expect(before.at(-1)).toMatchObject({ duty: 0.5, slowdowns: 0 });
    expect(Math.min(...after.map((d) => d.duty))).toBeLessThan(0.1);
    expect(r.pacing.slowdowns).toBeGreaterThan(2);
    // Still 2 ms at the floor: not the scan's doing, so 2 ms became the idle baseline.
    expect(r.pacing.baselineMs).toBe(2);
    expect(reader.maxOutstanding).toBeLessThanOrEqual(2);
    // Busy (a request out) at most half the time, in every stretch of 100 requests.
    for (let from = 20; from + 100 <= reader.spans.length; from += 100) {
      const spans = reader.spans.slice(from, from + 100);
      const busy = unionLength(spans);
      expect(busy / (spans.at(-1)![1] - spans[0]![0])).toBeLessThanOrEqual(0.5 + 0.05);
    }
    expect(r.durationMs).toBeGreaterThan(0);
  });
});

/** Drives a pacer on a virtual clock with answers of `rtt(i)` ms, one at a time (the pacer's own waits obeyed). */
function drive(pacer: ScanPacer, n: number, rtt: (i: number) => number, start = 0) {
  let t = start;
  let busy = 0;
  for (let i = 0; i < n; i++) {
    const wait = pacer.waitMs(t);
    expect(Number.isFinite(wait)).toBe(true);
    t += wait;
    expect(pacer.waitMs(t)).toBeCloseTo(0, 6);
    const ticket = pacer.onSend(t);
    t += rtt(i);
    busy += rtt(i);
    pacer.onAnswer(ticket, t, 0);
  }
  return { end: t, busyShare: busy / (t - start) };
}

describe('ScanPacer', () => {
  it('learns the idle latency from the first samples, sent one at a time at its calibration duty cycle', () => {
    const pacer = new ScanPacer(2, { calibrationDutyCycle: 0.05 }, 0);
    expect(pacer.state.dutyCycle).toBe(0.05);
    const { busyShare } = drive(pacer, 8, (i) => [1, 1.2, 0.9, 1.1, 1, 5, 1, 1][i]!);
    expect(pacer.state.baselineMs).toBe(1);
    // One at a time with long gaps: about 5 % of the time busy.
    expect(busyShare).toBeLessThan(0.07);
    expect(pacer.concurrency).toBe(1);
  });

  it('speeds up to its ceiling while latency stays at the baseline, then allows the cap', () => {
    const pacer = new ScanPacer(2, { maxDutyCycle: 0.4, recalibrateMs: 1e9 }, 0);
    drive(pacer, 8 + 16 * 10, () => 1);
    expect(pacer.state.dutyCycle).toBe(0.4);
    expect(pacer.concurrency).toBe(2);
    // At the ceiling the scan keeps a request out at most 40 % of the time.
    const { busyShare } = drive(pacer, 400, () => 1, 10_000);
    expect(busyShare).toBeGreaterThan(0.35);
    expect(busyShare).toBeLessThanOrEqual(0.41);
  });

  it('halves its duty cycle and drops to one request when latency rises past 1.1x the baseline', () => {
    const pacer = new ScanPacer(2, { maxDutyCycle: 0.4 }, 0);
    const { end } = drive(pacer, 8 + 16 * 10, () => 1);
    expect(pacer.state.dutyCycle).toBe(0.4);
    drive(pacer, 16, () => 1.3, end);
    expect(pacer.state.dutyCycle).toBeCloseTo(0.2, 6);
    expect(pacer.concurrency).toBe(1);
    expect(pacer.state.slowdowns).toBe(1);
    // Just under the threshold is not a slowdown.
    const p2 = new ScanPacer(2, { maxDutyCycle: 0.4 }, 0);
    const e2 = drive(p2, 8 + 16 * 10, () => 1).end;
    drive(p2, 16, () => 1.09, e2);
    expect(p2.state.slowdowns).toBe(0);
  });

  it('halves on a failed request', () => {
    const pacer = new ScanPacer(2, { maxDutyCycle: 0.4 }, 0);
    const { end } = drive(pacer, 8 + 16 * 10, () => 1);
    pacer.onSend(end);
    pacer.onFailure(end + 10);
    expect(pacer.state.dutyCycle).toBeCloseTo(0.2, 6);
  });

  it('takes no latency sample from a request queued behind its own, or from a big answer', () => {
    const pacer = new ScanPacer(2, {}, 0);
    const a = pacer.onSend(0);
    const b = pacer.onSend(0);
    expect(a.solo).toBe(true);
    expect(b.solo).toBe(false);
    pacer.onAnswer(a, 1, 0);
    pacer.onAnswer(b, 2, 0);
    const big = pacer.onSend(100);
    pacer.onAnswer(big, 150, 5_000);
    drive(pacer, 7, () => 1, 1_000);
    // 1 from `a` and 7 more: `b` (queued behind `a`) and the big answer were not samples.
    expect(pacer.state.baselineMs).toBe(1);
  });

  it('makes a big answer pay with a longer pause', () => {
    const pacer = new ScanPacer(1, { minDutyCycle: 0.5, maxDutyCycle: 0.5, burstMs: 0 }, 0);
    const t = pacer.onSend(0);
    pacer.onAnswer(t, 20, 10_000);
    expect(pacer.waitMs(20)).toBeCloseTo(20, 6);
  });

  it('takes a slow ensemble as the new idle when even its lowest duty cycle sees high latency', () => {
    const pacer = new ScanPacer(2, { minDutyCycle: 0.05, maxDutyCycle: 0.4 }, 0);
    const { end } = drive(pacer, 8, () => 1);
    expect(pacer.state.baselineMs).toBe(1);
    // Another client loads the member: 3 ms answers from now on. The pacer backs off to its floor...
    const slow = drive(pacer, 16, () => 3, end);
    expect(pacer.state).toMatchObject({ dutyCycle: 0.05, baselineMs: 1 });
    // ...where a window still at 3 ms is not the scan's doing: 3 ms is the idle now, and it speeds up again.
    drive(pacer, 16 * 3, () => 3, slow.end);
    expect(pacer.state.baselineMs).toBe(3);
    expect(pacer.state.dutyCycle).toBeGreaterThan(0.05);
  });

  it('measures the idle latency again every recalibrateMs', () => {
    const pacer = new ScanPacer(2, { maxDutyCycle: 0.4, recalibrateMs: 10_000 }, 0);
    const { end } = drive(pacer, 8 + 16 * 4, () => 1);
    expect(pacer.state.baselineMs).toBe(1);
    expect(end).toBeLessThan(10_000);
    // Faster now (another client's load went away): the next calibration learns it.
    drive(pacer, 16 + 8, () => 0.5, 11_000);
    expect(pacer.state.baselineMs).toBe(0.5);
  });

  it('re-calibrates at its calibration duty cycle, one request at a time, then resumes', () => {
    const pacer = new ScanPacer(2, { maxDutyCycle: 0.4, recalibrateMs: 5_000 }, 0);
    let t = drive(pacer, 8 + 16 * 10, () => 1).end;
    expect(t).toBeLessThan(5_000);
    expect(pacer.state).toMatchObject({ dutyCycle: 0.4, concurrency: 2 });
    t = drive(pacer, 16, () => 1, 6_000).end;
    // A window ended past recalibrateMs: calibrating now.
    expect(pacer.state).toMatchObject({ dutyCycle: 0.02, concurrency: 1 });
    drive(pacer, 8, () => 1, t);
    expect(pacer.state).toMatchObject({ dutyCycle: 0.4, concurrency: 2, baselineMs: 1 });
  });

  it('refuses bounds that make no sense', () => {
    expect(() => new ScanPacer(2, { maxDutyCycle: 0 })).toThrow(RangeError);
    expect(() => new ScanPacer(2, { maxDutyCycle: 1.5 })).toThrow(RangeError);
    expect(() => new ScanPacer(2, { minDutyCycle: 0.6, maxDutyCycle: 0.5 })).toThrow(RangeError);
    expect(() => new ScanPacer(0)).toThrow(RangeError);
    // A calibration duty cycle outside the bounds is brought inside them.
    expect(new ScanPacer(2, { minDutyCycle: 0.005, maxDutyCycle: 0.01 }).state.dutyCycle).toBe(0.01);
    expect(new ScanPacer(2, { minDutyCycle: 0.3 }).state.dutyCycle).toBe(0.3);
  });
});
