/**
 * The collector's rates and herd: counters read at one gathering are subtracted at the next
 * (same cadence for every browser, nothing asked beyond cons and dump), and the herd comes and
 * goes with the rates. Members answer canned cons text whose counters grow as the test says.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { RequestCounters } from '../../../src/members/counters.js';
import { SessionsCollector, type HeldList } from '../../../src/members/sessionsCollector.js';
import type { MemberTarget } from '../../../src/members/memberTargets.js';
import type { MemberTransport } from '../../../src/members/transport.js';
import type { WireResult } from '../../../src/members/wire.js';

const member: MemberTarget = { host: '127.0.0.1', clientPort: 2181, adminPort: null, address: '127.0.0.1:2181', id: 1, configuredRole: 'participant' };
const WORKERS = 20;

function setup() {
  let now = 1_000_000;
  let loop = 0;
  let asked = 0;
  let lists: HeldList[] = [{ path: '/tasks/available', numChildren: 5_000, pzxid: '0x100000001' }];
  // Worker i has sent `loop * 100` requests (GETC, 8 ms average latency); one idle session pings once per 10 rounds.
  const cons = () =>
    [
      ...Array.from(
        { length: WORKERS },
        (_, i) =>
          ` /10.0.0.5:${5000 + i}[1](queued=0,recved=${loop * 100},sent=${loop * 100},sid=0x${(i + 1).toString(16)},lop=GETC,est=1,to=30000,lresp=1000,llat=0,minlat=0,avglat=8,maxlat=90)`,
      ),
      ` /10.0.0.9:6000[1](queued=0,recved=${Math.floor(loop / 10)},sent=${Math.floor(loop / 10)},sid=0x99,lop=PING,est=1,to=30000,lresp=1000,llat=0,minlat=0,avglat=0,maxlat=1)`,
    ].join('\n');
  const transport = {
    counters: new RequestCounters(),
    deadlineMs: 2_000,
    async fourLetterWord(_m: unknown, word: string): Promise<WireResult> {
      asked++;
      return { ok: true, text: word === 'cons' ? cons() : 'SessionTracker dump:\n' };
    },
    async admin(): Promise<WireResult> {
      return { ok: false, kind: 'failed', message: 'none' };
    },
  } as unknown as MemberTransport;
  const collector = new SessionsCollector({
    ensemble: 'unit',
    members: { targets: () => [member], statuses: () => [] },
    transport,
    consoleSessionId: () => null,
    heldLists: () => lists,
    minIntervalMs: 10_000,
    cadenceMs: 60_000,
    log: pino({ level: 'silent' }),
    now: () => now,
  });
  return {
    collector,
    /** `ms` later, the loop has run `loops` more rounds. */
    advance(ms: number, loops: number) {
      now += ms;
      loop += loops;
    },
    setLists: (next: HeldList[]) => (lists = next),
    asked: () => asked,
  };
}

describe('SessionsCollector rates and herd', () => {
  it('has no rate on the first gathering, then requests per second over the time between gatherings', async () => {
    const { collector, advance } = setup();
    const first = await collector.get(false);
    expect(first.ratesOverSeconds).toBeNull();
    expect(first.sessions.every((s) => s.requestsPerSecond === null)).toBe(true);
    expect(first.herd).toBeNull();
    // 10 s later each worker sent 1,000 more requests: 100 req/s; the idle one 1 ping: 0.1/s.
    advance(10_000, 10);
    const second = await collector.get(true);
    expect(second.ratesOverSeconds).toBe(10);
    const rates = Object.fromEntries(second.sessions.map((s) => [s.sessionId, s.requestsPerSecond]));
    expect(rates['0x1']).toBe(100);
    expect(rates['0x99']).toBe(0.1);
  });

  it('names the herd with the held list whose pzxid changes, asks nothing more, and clears it 3 gatherings after the loop stops', async () => {
    const { collector, advance, setLists, asked } = setup();
    await collector.get(false);
    const before = asked();
    advance(10_000, 10);
    setLists([{ path: '/tasks/available', numChildren: 4_990, pzxid: '0x100000009' }]);
    const during = await collector.get(true);
    // cons and dump, as any gathering: the rates and the herd cost ZooKeeper nothing more.
    expect(asked() - before).toBe(2);
    expect(during.herd).toMatchObject({
      sessions: WORKERS,
      requestsPerSecond: 2_000,
      operation: 'GETC',
      target: { path: '/tasks/available', pzxidChanging: true },
    });
    expect(during.alerts?.map((a) => a.id)).toEqual(['request-herd']);
    expect(during.alerts?.[0]?.title).toContain('herd');
    // The ensemble's alerts carry it too, with the gathering's time.
    expect(collector.recentHerdAlert(60_000)).toMatchObject({ id: 'request-herd', asOf: during.gatheredAt, see: { view: 'sessions' } });
    // The loop stopped (no new requests since), its sessions stay connected: named while below the threshold twice, gone at the third.
    advance(10_000, 0);
    const below = await collector.get(true);
    expect(below.herd).toMatchObject({ sessions: WORKERS, requestsPerSecond: 0, gatheringsBelow: 1, clearsAfter: 3 });
    advance(10_000, 0);
    expect((await collector.get(true)).herd?.gatheringsBelow).toBe(2);
    advance(10_000, 0);
    const after = await collector.get(true);
    expect(after.herd).toBeNull();
    expect(after.alerts).toEqual([]);
    expect(collector.recentHerdAlert(60_000)).toBeNull();
  });

  it('gathers once per cadence while the ensemble view keeps it, and stops when released', async () => {
    const { collector } = setup();
    const release = collector.keepGathering();
    await new Promise((r) => setTimeout(r, 20));
    expect(collector.gatherings).toBe(1);
    release();
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(collector.gatherings).toBe(1);
    collector.close();
  });
});
