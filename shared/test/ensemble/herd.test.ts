/** The request-rate herd of seed 000: found from rates and latency, named with the fix, cleared when the loop stops. */
import { describe, expect, it } from 'vitest';
import { clientHost, detectRequestHerd, herdAlert } from '../../src/ensemble/index.js';
import type { EnsembleSession } from '../../src/ensemble/types.js';

let next = 1;
function session(over: Partial<EnsembleSession> = {}): EnsembleSession {
  const id = next++;
  return {
    sessionId: `0x${id.toString(16)}`,
    client: `10.0.0.5:${40_000 + id}`,
    member: '10.0.0.1:2181',
    timeoutMs: 30_000,
    establishedAt: null,
    lastResponseAt: null,
    latencyMin: 0,
    latencyAvg: 0,
    latencyMax: 1,
    queued: 0,
    received: 0,
    sent: 0,
    requestsPerSecond: 0.1,
    sentPerSecond: 0.1,
    lastOperation: 'PING',
    ephemeralCount: 0,
    ephemerals: [],
    isConsole: false,
    connected: true,
    flags: [],
    ...over,
  };
}

const worker = (rate: number, over: Partial<EnsembleSession> = {}) =>
  session({ requestsPerSecond: rate, latencyAvg: 6, latencyMax: 140, lastOperation: 'GETC', ...over });
const idle = (n: number) => Array.from({ length: n }, () => session({ latencyAvg: 0.2 }));

describe('detectRequestHerd', () => {
  it('finds many sessions at similar high rates while their latency climbs, grouped by host', () => {
    const sessions = [
      ...Array.from({ length: 120 }, (_, i) => worker(15 + (i % 5))),
      ...Array.from({ length: 30 }, () => worker(16, { client: '10.0.0.6:5000' })),
      ...idle(20),
    ];
    const herd = detectRequestHerd({ sessions, memberOutstanding: [0, 3, null] })!;
    expect(herd.sessions).toBe(150);
    expect(herd.hosts).toEqual([
      { host: '10.0.0.5', sessions: 120, requestsPerSecond: 2_040 },
      { host: '10.0.0.6', sessions: 30, requestsPerSecond: 480 },
    ]);
    expect(herd.requestsPerSecond).toBe(2_520);
    expect(herd).toMatchObject({
      minRate: 15,
      maxRate: 19,
      operation: 'GETC',
      latencyAvgMs: 6,
      latencyMaxMs: 140,
      othersLatencyAvgMs: 0.2,
      outstanding: 3,
      target: null,
    });
  });

  it('is not a herd without enough sessions, without a combined rate, or at rates far apart', () => {
    expect(detectRequestHerd({ sessions: [...Array.from({ length: 9 }, () => worker(50)), ...idle(50)], memberOutstanding: [] })).toBeNull();
    expect(detectRequestHerd({ sessions: Array.from({ length: 12 }, () => worker(6)), memberOutstanding: [] })).toBeNull();
    // One hot session per order of magnitude: busy clients, not a herd.
    const spread = [5, 6, 50, 60, 500, 600, 5_000, 6_000, 50_000, 60_000, 7, 70].map((r) => worker(r));
    expect(detectRequestHerd({ sessions: spread, memberOutstanding: [] })).toBeNull();
  });

  it('needs latency or outstanding requests to climb: a busy fleet the ensemble serves easily is no herd', () => {
    const calm = Array.from({ length: 40 }, () => worker(20, { latencyAvg: 0.3, latencyMax: 4 }));
    expect(detectRequestHerd({ sessions: [...calm, ...idle(5)], memberOutstanding: [0, 0, 0] })).toBeNull();
    // Outstanding on a member climbs.
    expect(detectRequestHerd({ sessions: calm, memberOutstanding: [0, 25] })?.outstanding).toBe(25);
    // A sub-millisecond average (cons prints whole ms) but a quarter of them had a request wait 50 ms or more.
    const waiting = calm.map((s, i) => (i % 4 === 0 ? { ...s, latencyMax: 80 } : s));
    expect(detectRequestHerd({ sessions: waiting, memberOutstanding: [0] })).toMatchObject({ slowSessions: 10, slowRequestMs: 50 });
    expect(detectRequestHerd({ sessions: waiting.map((s, i) => (i === 0 ? { ...s, latencyMax: 4 } : s)), memberOutstanding: [0] })).toBeNull();
    // Their latency is many times the other sessions'.
    const slower = Array.from({ length: 40 }, () => worker(20, { latencyAvg: 1.2 }));
    expect(detectRequestHerd({ sessions: [...slower, ...idle(5)], memberOutstanding: [0] })?.latencyAvgMs).toBe(1.2);
  });

  it('leaves the console out and clears when the loop stops (rates fall)', () => {
    const running = Array.from({ length: 30 }, () => worker(25));
    expect(detectRequestHerd({ sessions: [...running, session({ isConsole: true, requestsPerSecond: 25 })], memberOutstanding: [] })?.sessions).toBe(30);
    const stopped = running.map((s) => ({ ...s, requestsPerSecond: 0.2 }));
    expect(detectRequestHerd({ sessions: stopped, memberOutstanding: [] })).toBeNull();
    // Sessions whose rate is not known yet (first reading) are not hot.
    expect(detectRequestHerd({ sessions: running.map((s) => ({ ...s, requestsPerSecond: null })), memberOutstanding: [] })).toBeNull();
  });

  it('takes its thresholds as options', () => {
    const small = Array.from({ length: 4 }, () => worker(30));
    expect(detectRequestHerd({ sessions: small, memberOutstanding: [] })).toBeNull();
    expect(detectRequestHerd({ sessions: small, memberOutstanding: [], thresholds: { minSessions: 3, minCombinedRate: 50 } })?.sessions).toBe(4);
  });

  it('names the hammered node when Keeper holds a very large child list, one whose pzxid keeps changing first', () => {
    const sessions = Array.from({ length: 20 }, () => worker(30));
    const knownLists = [
      { path: '/small', numChildren: 10, pzxidChanging: true },
      { path: '/tasks/done', numChildren: 90_000, pzxidChanging: false },
      { path: '/tasks/available', numChildren: 20_000, pzxidChanging: true },
    ];
    expect(detectRequestHerd({ sessions, memberOutstanding: [], knownLists })?.target).toEqual({
      path: '/tasks/available',
      numChildren: 20_000,
      pzxidChanging: true,
    });
    // Not when they are not listing children.
    const readers = sessions.map((s) => ({ ...s, lastOperation: 'GETD' }));
    expect(detectRequestHerd({ sessions: readers, memberOutstanding: [], knownLists })?.target).toBeNull();
  });
});

describe('herdAlert', () => {
  it('says how many, from where, how hard, the latency, the node and the fix, with the word herd', () => {
    const sessions = [...Array.from({ length: 120 }, () => worker(16)), ...idle(3)];
    const herd = detectRequestHerd({
      sessions,
      memberOutstanding: [12],
      knownLists: [{ path: '/tasks/available', numChildren: 20_000, pzxidChanging: true }],
    })!;
    const alert = herdAlert(herd);
    expect(alert.id).toBe('request-herd');
    expect(alert.title).toBe('Request herd: 120 sessions from 1 host send 1,920 req/s together, mostly getChildren');
    expect(alert.why).toContain('10.0.0.5 (120 sessions, 1,920 req/s)');
    expect(alert.why).toContain('their average latency is 6 ms, max 140 ms, against 0.2 ms for the other sessions');
    expect(alert.why).toContain('up to 12 requests outstanding on a member');
    expect(alert.why).toContain('/tasks/available (20,000 children, its child list changing all the time)');
    // Nothing outstanding is not "up to 0 requests outstanding".
    expect(herdAlert({ ...herd, outstanding: 0 }).why).not.toContain('outstanding');
    expect(alert.action).toContain('KazooRetry(max_tries=..., deadline=...)');
    expect(alert.action).toMatch(/queue or lock recipe, or one leader/);
    expect(alert.action).toContain('Do not call getChildren on a huge list in a loop');
  });
});

describe('clientHost', () => {
  it('drops the port, and the brackets of an IPv6 address', () => {
    expect(clientHost('10.0.0.5:4242')).toBe('10.0.0.5');
    expect(clientHost('[0:0:0:0:0:0:0:1]:4242')).toBe('0:0:0:0:0:0:0:1');
    expect(clientHost('')).toBe('');
  });
});
