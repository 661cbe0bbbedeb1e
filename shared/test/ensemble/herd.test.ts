/** The request-rate herd of seed 000: found from rates and latency, named with the fix, cleared when the loop stops. */
import { describe, expect, it } from 'vitest';
import {
  clientHost,
  detectRequestHerd,
  herdAlert,
  NO_REQUEST_HERD,
  trackRequestHerd,
  type RequestHerdInput,
  type RequestHerdMemory,
} from '../../src/ensemble/index.js';
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
    // 12 sessions at 3 req/s: all of the (little) traffic, but 36 req/s is no herd.
    expect(detectRequestHerd({ sessions: Array.from({ length: 12 }, () => worker(3)), memberOutstanding: [] })).toBeNull();
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

describe('the relative rule (issue 22 item 13)', () => {
  // The figures: 75 workers from one host that the ensemble slowed to about 4 req/s each, 312 req/s in all.
  const slowed = () => Array.from({ length: 75 }, (_, i) => worker(3.8 + (i % 5) * 0.1, { latencyAvg: 40, latencyMax: 732 }));

  it('keeps naming a herd the ensemble has slowed under 5 req/s a session, by its summed rate', () => {
    const herd = detectRequestHerd({ sessions: [...slowed(), ...idle(5)], memberOutstanding: [0] })!;
    expect(herd).toMatchObject({ sessions: 75, rule: 'rate', group: { kind: 'host', key: '10.0.0.5' }, latencyMaxMs: 732 });
    expect(herd.requestsPerSecond).toBeGreaterThanOrEqual(300);
    expect(herd.maxRate).toBeLessThan(5);
  });

  it('names a smaller group by its share of all requests', () => {
    // 15 workers at 4 req/s: 60 req/s, under the 100 req/s rate but nearly every request the ensemble gets.
    const few = Array.from({ length: 15 }, () => worker(4));
    const herd = detectRequestHerd({ sessions: [...few, ...idle(20)], memberOutstanding: [0] })!;
    expect(herd).toMatchObject({ sessions: 15, rule: 'share', requestsPerSecond: 60 });
    expect(herd.shareOfRequests).toBeGreaterThan(0.9);
    // The same 15 beside a busy application sending 500 req/s from 5 sessions: a small share, no herd.
    const busy = Array.from({ length: 5 }, () => worker(100, { client: '10.0.0.9:1', lastOperation: 'SETD' }));
    expect(detectRequestHerd({ sessions: [...few, ...busy], memberOutstanding: [0] })).toBeNull();
  });

  it('finds a fleet spread over many hosts by the operation they share', () => {
    const fleet = Array.from({ length: 40 }, (_, i) => worker(4, { client: `10.1.${i}.7:4000` }));
    const herd = detectRequestHerd({ sessions: [...fleet, ...idle(3)], memberOutstanding: [0] })!;
    expect(herd.sessions).toBe(40);
    expect(herd.hosts).toHaveLength(40);
    expect(herd.group).toEqual({ kind: 'operation', key: 'GETC' });
  });
});

describe('every session sending the same request (issue 34 item 7)', () => {
  // The figures: 200 sessions of one host looping getChildren on 20,000 children; the fastest 103 near 1 req/s.
  const fast = () => Array.from({ length: 103 }, () => worker(1.05));
  const slow = () => Array.from({ length: 97 }, (_, i) => worker(0.2 + (i % 5) * 0.1));

  it('counts the slow ones of the same loop too, not only those over the active rate', () => {
    const others = [session({ client: '10.0.0.9:1', requestsPerSecond: 0.4, lastOperation: 'SETD' }), ...idle(10)];
    const herd = detectRequestHerd({ sessions: [...fast(), ...slow(), ...others], memberOutstanding: [0] })!;
    expect(herd).toMatchObject({ sessions: 200, operation: 'GETC', group: { kind: 'host', key: '10.0.0.5' }, minRate: 0.2, maxRate: 1.1 });
    expect(herd.sessionIds).toHaveLength(200);
    // Another host's session, another request, and the idle clients are not in it.
    expect(herd.hosts).toEqual([{ host: '10.0.0.5', sessions: 200, requestsPerSecond: 147 }]);
  });

  it('stays named while the same request from its sessions stands out together, then fades once it does not', () => {
    let memory: RequestHerdMemory = NO_REQUEST_HERD;
    const step = (sessions: EnsembleSession[], now: number) => {
      const out = trackRequestHerd(memory, { sessions, memberOutstanding: [0], now });
      memory = out.memory;
      return out.herd;
    };
    const workers = [...fast(), ...slow()];
    expect(step(workers, 0)?.sessions).toBe(200);
    // Slowed to 0.2 req/s each with calm latency: 40 req/s of identical getChildren, all of what the ensemble gets.
    const slowed = workers.map((s) => ({ ...s, requestsPerSecond: 0.2, latencyAvg: 0.3, latencyMax: 2 }));
    for (let i = 1; i <= 5; i++) {
      const held = step([...slowed, ...idle(5)], i * 10_000)!;
      expect(held).toMatchObject({ sessions: 200, requestsPerSecond: 40, heldByAggregate: true, gatheringsBelow: 0, namedSince: 0 });
      expect(herdAlert(held).why).toContain('together its sessions still send 40 req/s of the same request');
      expect(herdAlert(held).why).not.toContain('Latency climbs');
    }
    // 0.05 req/s each (10 req/s together): no longer standing out, it fades and clears after 3 gatherings.
    const trickle = workers.map((s) => ({ ...s, requestsPerSecond: 0.05, latencyAvg: 0.3, latencyMax: 2 }));
    expect(step(trickle, 60_000)).toMatchObject({ heldByAggregate: false, gatheringsBelow: 1 });
    step(trickle, 70_000);
    expect(step(trickle, 80_000)).toBeNull();
  });
});

describe('trackRequestHerd (hysteresis)', () => {
  const input = (sessions: EnsembleSession[], now: number): RequestHerdInput & { now: number } => ({ sessions, memberOutstanding: [0], now });

  it('keeps a named herd for 3 gatherings below the threshold, with the same sessions measured afresh, then clears', () => {
    const workers = Array.from({ length: 30 }, () => worker(10));
    let memory: RequestHerdMemory = NO_REQUEST_HERD;
    const step = (sessions: EnsembleSession[], now: number) => {
      const out = trackRequestHerd(memory, input(sessions, now));
      memory = out.memory;
      return out.herd;
    };
    expect(step(workers, 1_000)).toMatchObject({ sessions: 30, namedSince: 1_000, gatheringsBelow: 0, clearsAfter: 3 });
    // Their latency drops out of the gate, and together they send 15 req/s (under holdRate): below the
    // threshold, still named, with this gathering's figures.
    const calmer = workers.map((s) => ({ ...s, requestsPerSecond: 0.5, latencyAvg: 0.4, latencyMax: 3 }));
    expect(step(calmer, 11_000)).toMatchObject({ sessions: 30, requestsPerSecond: 15, gatheringsBelow: 1, namedSince: 1_000, measuredAt: 11_000 });
    expect(step(calmer, 21_000)?.gatheringsBelow).toBe(2);
    // Above again: counted from zero, named since the first time.
    expect(step(workers, 31_000)).toMatchObject({ gatheringsBelow: 0, namedSince: 1_000 });
    step(calmer, 41_000);
    step(calmer, 51_000);
    expect(step(calmer, 61_000)).toBeNull();
    expect(memory).toEqual(NO_REQUEST_HERD);
  });

  it('clears at once when none of its sessions is connected any more', () => {
    const workers = Array.from({ length: 30 }, () => worker(10));
    const named = trackRequestHerd(NO_REQUEST_HERD, input(workers, 1_000));
    expect(trackRequestHerd(named.memory, input(idle(3), 11_000)).herd).toBeNull();
  });

  it('says in the alert that it is below the threshold and when it clears', () => {
    const workers = Array.from({ length: 30 }, () => worker(10));
    const named = trackRequestHerd(NO_REQUEST_HERD, input(workers, 1_000));
    const fading = trackRequestHerd(
      named.memory,
      input(
        workers.map((s) => ({ ...s, requestsPerSecond: 0.5, latencyAvg: 0.1, latencyMax: 1 })),
        11_000,
      ),
    ).herd!;
    expect(herdAlert(fading).why).toContain('The last 1 gathering measured it below the threshold; it stays named until 3 gatherings in a row do.');
  });
});

describe('what the herd watches, from a wchp Keeper already has (item 14)', () => {
  const herdOf = (watches: RequestHerdInput['watches'], now = 100_000) => {
    const workers = Array.from({ length: 20 }, (_, i) => worker(10, { sessionId: `0x10${i.toString(16).padStart(2, '0')}` }));
    return detectRequestHerd({ sessions: workers, memberOutstanding: [0], watches, now })!;
  };
  const ids = Array.from({ length: 20 }, (_, i) => `0x10${i.toString(16).padStart(2, '0')}`);

  it('never says there is no watch herd without a wchp to show it', () => {
    const alert = herdAlert(herdOf(null));
    expect(alert.why).not.toMatch(/wchp shows nothing|not a watch herd/);
    expect(alert.why).toContain('Whether they also watch a path is not known: Keeper has no recent wchp');
  });

  it('names the path most of them watch in the latest wchp, with its age', () => {
    const watches = {
      gatheredAt: 60_000,
      complete: true,
      source: 'watches' as const,
      paths: [
        { path: '/app/queue/head', sessions: [...ids, '0x999'] },
        { path: '/other', sessions: ['0x999'] },
      ],
    };
    const herd = herdOf(watches);
    expect(herd.watched?.paths).toEqual([{ path: '/app/queue/head', herdWatchers: 20, watchers: 21 }]);
    const alert = herdAlert({ ...herd, measuredAt: 100_000 });
    expect(alert.why).toContain("In the Watches view's wchp, 40 s before this gathering, most of them watch /app/queue/head (20 of them, 21 watchers in all)");
  });

  it('says they hold no data watch only when a complete wchp showed none; an incomplete one says nothing', () => {
    const none = herdOf({ gatheredAt: 90_000, complete: true, source: 'locks', paths: [{ path: '/x', sessions: ['0x999'] }] });
    expect(herdAlert(none).why).toContain('none of them held a data watch');
    const partial = herdOf({ gatheredAt: 90_000, complete: false, source: 'locks', paths: [] });
    expect(herdAlert(partial).why).toContain('was incomplete (a member did not answer), so it says nothing of their watches');
    // An old wchp is not evidence of this gathering.
    expect(herdOf({ gatheredAt: 0, complete: true, source: 'watches', paths: [] }, 10 * 60_000).watched).toBeNull();
  });

  it('names the operation and the likely node: "getChildren, likely on /tasks/available"', () => {
    const workers = Array.from({ length: 20 }, () => worker(10));
    const herd = detectRequestHerd({
      sessions: workers,
      memberOutstanding: [0],
      knownLists: [{ path: '/tasks/available', numChildren: 5_000, pzxidChanging: true }],
    })!;
    expect(herdAlert(herd).title).toBe('Request herd: 20 sessions from 1 host send 200 req/s together, mostly getChildren, likely on /tasks/available');
    // No operation most of them share: each named with its count.
    const mixed = workers.map((s, i) => ({ ...s, lastOperation: i % 2 === 0 ? 'GETC' : 'CREA' }));
    expect(herdAlert(detectRequestHerd({ sessions: mixed, memberOutstanding: [0] })!).title).toContain('last sent create (10) and getChildren (10)');
  });

  it('links to the Sessions view', () => {
    expect(herdAlert(herdOf(null)).see).toEqual({ view: 'sessions', label: 'Sessions, busiest first' });
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
    expect(alert.title).toBe('Request herd: 120 sessions from 1 host send 1,920 req/s together, mostly getChildren, likely on /tasks/available');
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
