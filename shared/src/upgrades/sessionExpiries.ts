/**
 * Sessions the ensemble expired during an upgrade: a rolling restart done right expires none, so
 * one is worth saying. Only the leader expires global sessions, and its mntr counts them
 * (`zk_stale_sessions_expired`, a counter that starts at zero with the process). Keeper reads
 * it on every poll it already makes and adds up the leader's increases. When the leader changes,
 * the new one's whole count belongs to the upgrade if its process started after the upgrade did
 * (in a rolling restart it did: it was restarted as a follower); otherwise its reading becomes
 * the new baseline and the gap is counted, so the sentence can say it may have missed some.
 * A leader is a process, not an address: the leader restarted last in a rolling restart may win
 * the election again, with a counter started anew, so its start (from its uptime) tells it apart.
 */
import type { EnsembleHealth } from '../ensemble/types.js';
import { leaderOf } from './members.js';
import type { SessionExpiries } from './schemas.js';

export const NO_EXPIRIES: SessionExpiries = { count: 0, keeper: 0, leader: null, leaderSince: null, last: null, gaps: 0 };

/** Two readings of one process's start (poll time less a whole-second uptime) differ by the rounding and the poll's latency. */
const SAME_PROCESS_MS = 5_000;

export function trackExpiries(t: SessionExpiries, health: EnsembleHealth, startedAt: number): SessionExpiries {
  const leader = leaderOf(health);
  const value = leader?.metrics.sessionsExpired ?? null;
  if (!leader || value === null) return t;
  const uptime = leader.metrics.uptimeSeconds;
  const since = uptime === null ? null : health.polledAt - uptime * 1000;
  // Unknown starts (no uptime) cannot tell a restart apart: the counter going down still does.
  const sameProcess = t.leaderSince === null || since === null || Math.abs(since - t.leaderSince) <= SAME_PROCESS_MS;
  if (t.leader === leader.address && sameProcess && t.last !== null && value >= t.last) {
    return value === t.last ? t : { ...t, count: t.count + value - t.last, last: value };
  }
  const reading = { leader: leader.address, leaderSince: since, last: value };
  if (t.leader === null) return { ...t, ...reading };
  const startedSince = since !== null && since >= startedAt;
  return startedSince ? { ...t, ...reading, count: t.count + value } : { ...t, ...reading, gaps: t.gaps + 1 };
}

/**
 * "No session expired (the leader's count)" / "2 sessions expired, maybe more: ...". A Keeper
 * process killed mid-upgrade leaves its session to expire: the leader counts it like any other,
 * so it is told apart, never called a client's.
 */
export function expiriesSentence(t: SessionExpiries): string {
  if (t.leader === null) return 'Session expiries not known: the leader does not report zk_stale_sessions_expired';
  const keeper = Math.min(t.keeper, t.count);
  const clients = t.count - keeper;
  const noun = (n: number) => (n === 1 ? 'session' : 'sessions');
  const counted =
    keeper === 0
      ? clients === 0
        ? 'No session expired'
        : `${clients} ${noun(clients)} expired`
      : clients === 0
        ? 'No other session expired'
        : `${clients} other ${noun(clients)} expired`;
  const apart =
    keeper === 0
      ? ''
      : `; counted apart: ${keeper === 1 ? "the previous Keeper process's session" : `${keeper} previous Keeper processes' sessions`}, which expired after ${keeper === 1 ? 'that process' : 'they'} stopped`;
  return t.gaps === 0
    ? `${counted} during the upgrade (the leader's count)${apart}`
    : `${counted} during the upgrade, as far as Keeper saw: the leader changed ${t.gaps === 1 ? 'once' : `${t.gaps} times`} without a count in between${apart}`;
}
