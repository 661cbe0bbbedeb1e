/** Request rates from successive counter readings: per session (cons) and per member (mntr). */
import { describe, expect, it } from 'vitest';
import { joinSessions, parseCons, ratesBetween, readingTime, roundRate, type CounterReading } from '../../src/ensemble/index.js';

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const reading = (over: Partial<CounterReading> = {}): CounterReading => ({ member: 'a:2181', received: 100, sent: 90, at: T0, ...over });

describe('ratesBetween', () => {
  it('divides the counters’ growth by the time between the readings', () => {
    expect(ratesBetween(reading(), reading({ received: 1_100, sent: 590, at: T0 + 10_000 }))).toEqual({ receivedPerSecond: 100, sentPerSecond: 50 });
  });

  it('has no rate on the first reading, after a move to another member, a reset, or readings too close together', () => {
    const later = reading({ received: 200, at: T0 + 10_000 });
    expect(ratesBetween(undefined, later)).toEqual({ receivedPerSecond: null, sentPerSecond: null });
    expect(ratesBetween(reading(), { ...later, member: 'b:2181' })).toEqual({ receivedPerSecond: null, sentPerSecond: null });
    expect(ratesBetween(reading(), reading({ received: 5, sent: 95, at: T0 + 10_000 }))).toEqual({ receivedPerSecond: null, sentPerSecond: 0.5 });
    expect(ratesBetween(reading(), reading({ received: 200, at: T0 + 400 }))).toEqual({ receivedPerSecond: null, sentPerSecond: null });
    expect(ratesBetween(reading({ received: null }), later).receivedPerSecond).toBeNull();
  });

  it('rounds to tenths below 10/s and to whole numbers above', () => {
    expect(roundRate(0.1234)).toBe(0.1);
    expect(roundRate(9.96)).toBe(10);
    expect(roundRate(1234.5)).toBe(1235);
    expect(roundRate(null)).toBeNull();
    expect(readingTime(1_000, 1_301)).toBe(1_151);
  });
});

describe('joinSessions rates', () => {
  const line = (recved: number, sent: number) =>
    `/127.0.0.1:45396[1](queued=0,recved=${recved},sent=${sent},sid=0x100002f75570004,lop=GETC,est=1795322333613,to=30000,lcxid=0x6,lzxid=0x10000003a,lresp=3239377,llat=1,minlat=0,avglat=3,maxlat=8)`;
  const join = (member: string, recved: number, sent: number, at: number, readings?: Map<string, CounterReading>) =>
    joinSessions({
      now: at,
      cons: [{ member, connections: parseCons(line(recved, sent)), askedAt: at, answeredAt: at }],
      dump: null,
      consIncomplete: false,
      consoleSessionId: null,
      sightings: new Map(),
      ...(readings ? { readings } : {}),
    });

  it('carries requestsPerSecond and sentPerSecond from the previous gathering, null on the first', () => {
    const first = join('a:2181', 10, 10, T0);
    expect(first.sessions[0]).toMatchObject({ requestsPerSecond: null, sentPerSecond: null, lastOperation: 'GETC' });
    const second = join('a:2181', 2_010, 1_010, T0 + 20_000, first.readings);
    expect(second.sessions[0]).toMatchObject({ requestsPerSecond: 100, sentPerSecond: 50 });
  });

  it('has no rate for a session that moved member (its counts restart there)', () => {
    const first = join('a:2181', 10, 10, T0);
    const moved = join('b:2181', 2_010, 1_010, T0 + 20_000, first.readings);
    expect(moved.sessions[0]!.requestsPerSecond).toBeNull();
  });
});
