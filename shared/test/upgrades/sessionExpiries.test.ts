/** Sessions expired during an upgrade, from the leader's zk_stale_sessions_expired counter. */
import { describe, expect, it } from 'vitest';
import { expiriesSentence, NO_EXPIRIES, trackExpiries, type EnsembleHealth } from '../../src/index.js';
import { threeVoters } from './support.js';

const T = 1_700_000_000_000;

/** Three voters with `leader` leading, its counter at `expired` and its process `uptime` s old (by default started an hour before T). */
function withLeader(at: number, leader: 1 | 3, expired: number | null, uptime = 3600 + (at - T) / 1000): EnsembleHealth {
  const h =
    leader === 1
      ? threeVoters(at, { 1: { uptimeSeconds: uptime } })
      : threeVoters(at, { 1: { state: 'follower' }, 3: { state: 'leader', syncedFollowers: 2, uptimeSeconds: uptime } });
  return { ...h, members: h.members.map((m) => (m.state === 'leader' ? { ...m, metrics: { ...m.metrics, sessionsExpired: expired } } : m)) };
}

describe('trackExpiries', () => {
  it("adds up the leader's increases, from its reading at the start", () => {
    let t = trackExpiries(NO_EXPIRIES, withLeader(T, 1, 40), T);
    expect(t).toEqual({ count: 0, keeper: 0, leader: 'zk1:2181', leaderSince: T - 3_600_000, last: 40, gaps: 0 });
    t = trackExpiries(t, withLeader(T + 2000, 1, 40), T);
    expect(expiriesSentence(t)).toBe("No session expired during the upgrade (the leader's count)");
    t = trackExpiries(t, withLeader(T + 4000, 1, 42), T);
    expect(t.count).toBe(2);
    expect(expiriesSentence(t)).toBe("2 sessions expired during the upgrade (the leader's count)");
  });

  it('counts all of a new leader whose process started during the upgrade, and marks a gap otherwise', () => {
    const start = trackExpiries(NO_EXPIRIES, withLeader(T, 1, 5), T);
    // Member 3 was restarted 60 s into the upgrade and leads now: each of its expiries is the upgrade's.
    const restarted = trackExpiries(start, withLeader(T + 120_000, 3, 1, 60), T);
    expect(restarted).toEqual({ count: 1, keeper: 0, leader: 'zk3:2181', leaderSince: T + 60_000, last: 1, gaps: 0 });
    // A leader that was up before the upgrade: its count is a baseline, and Keeper says it may have missed some.
    const older = trackExpiries(start, withLeader(T + 120_000, 3, 7, 7200), T);
    expect(older).toEqual({ count: 0, keeper: 0, leader: 'zk3:2181', leaderSince: T + 120_000 - 7_200_000, last: 7, gaps: 1 });
    expect(expiriesSentence(older)).toBe('No session expired during the upgrade, as far as Keeper saw: the leader changed once without a count in between');
  });

  it('treats the same leader with a lower count as restarted, and a leader without the counter as unknown', () => {
    const start = trackExpiries(NO_EXPIRIES, withLeader(T, 1, 9), T);
    expect(trackExpiries(start, withLeader(T + 30_000, 1, 0, 10), T)).toEqual({
      count: 0,
      keeper: 0,
      leader: 'zk1:2181',
      leaderSince: T + 20_000,
      last: 0,
      gaps: 0,
    });
    expect(trackExpiries(start, withLeader(T + 30_000, 1, null), T)).toBe(start);
    expect(expiriesSentence(NO_EXPIRIES)).toMatch(/not known/);
  });

  it('tells the leader restarted and elected again from the process before it, by its start, even when its new count is higher', () => {
    // Member 1 led with 2 expiries counted before the upgrade; restarted last, it won the election again (its
    // vote was back before the two others agreed) and has expired 3 sessions since: all 3 are the upgrade's.
    const start = trackExpiries(NO_EXPIRIES, withLeader(T, 1, 2), T);
    const again = trackExpiries(start, withLeader(T + 90_000, 1, 3, 30), T);
    expect(again).toEqual({ count: 3, keeper: 0, leader: 'zk1:2181', leaderSince: T + 60_000, last: 3, gaps: 0 });
    // The same process read again, its uptime a second less than the poll's gap would say (rounding, the poll's latency): one process.
    expect(trackExpiries(again, withLeader(T + 100_000, 1, 4, 39), T)).toMatchObject({ count: 4, leaderSince: T + 60_000, gaps: 0 });
    // A leader whose uptime is not reported is judged by its counter alone, as before.
    const unknown = (at: number, expired: number) => {
      const h = withLeader(at, 1, expired);
      return { ...h, members: h.members.map((m) => (m.state === 'leader' ? { ...m, metrics: { ...m.metrics, uptimeSeconds: null } } : m)) };
    };
    expect(trackExpiries(trackExpiries(NO_EXPIRIES, unknown(T, 2), T), unknown(T + 90_000, 3), T)).toMatchObject({ count: 1, leaderSince: null });
  });

  it("counts the previous Keeper process's session apart, in those words, never as a client's", () => {
    let t = trackExpiries(NO_EXPIRIES, withLeader(T, 1, 40), T);
    // Keeper was killed mid-upgrade; its session expired on its own, and the leader counted it.
    t = { ...trackExpiries(t, withLeader(T + 30_000, 1, 41), T), keeper: 1 };
    expect(t.count).toBe(1);
    expect(expiriesSentence(t)).toBe(
      "No other session expired during the upgrade (the leader's count); counted apart: the previous Keeper process's session, which expired after that process stopped",
    );
    t = trackExpiries(t, withLeader(T + 40_000, 1, 43), T);
    expect(expiriesSentence(t)).toBe(
      "2 other sessions expired during the upgrade (the leader's count); counted apart: the previous Keeper process's session, which expired after that process stopped",
    );
    // Never more apart than the leader counted (a session that was closed, not expired, is not counted at all).
    expect(expiriesSentence({ ...NO_EXPIRIES, leader: 'zk1:2181', last: 40, keeper: 1 })).toBe("No session expired during the upgrade (the leader's count)");
  });
});
