/**
 * Is the member health on screen live? It comes from Keeper's member poller, which asks every
 * member directly (four-letter words, AdminServer), not through the console's ZooKeeper session:
 * when the ensemble loses its quorum the console's session drops, and this is exactly the view
 * that must keep working. So it is live when the link to the Keeper server is up, the entry came
 * over this very socket, and the poller has reported recently; never because of the session.
 */
import type { ConnectionStatus } from '../../socket/connectionStatus';
import type { HealthEntry } from './healthEntries';
import type { Freshness } from '../../app/freshness/freshness';

/** Polls may be late by this many intervals (a slow member holds a poll up to its deadline) before the data counts as stale. */
export const LATE_POLLS = 3;
/** Never call data stale sooner than this, whatever the poll interval. */
export const MIN_SILENCE_MS = 15_000;

/** How long without a new poll before the shown health counts as stale. */
export function silenceLimit(pollIntervalMs: number): number {
  return Math.max(LATE_POLLS * pollIntervalMs, MIN_SILENCE_MS);
}

export function healthFreshness(
  status: ConnectionStatus,
  entry: HealthEntry | undefined,
  /** No new poll arrived for silenceLimit(...) of browser time (measured locally, so clock skew cannot fake it). */
  silent: boolean,
): Freshness {
  const polledAt = entry?.health.polledAt ?? null;
  if (status.phase !== 'live') {
    return {
      live: false,
      asOf: polledAt ?? status.lostAt,
      reason:
        status.phase === 'fatal'
          ? (status.fatalReason ?? 'this page is out of date; reload it')
          : status.phase === 'unanswered'
            ? 'Keeper is not answering'
            : 'no connection to the Keeper server; reconnecting',
    };
  }
  if (entry === undefined) return { live: false, asOf: null, reason: 'waiting for the first poll of the members' };
  if (entry.epoch !== status.epoch) return { live: false, asOf: polledAt, reason: 'refreshing after a reconnect' };
  // Another replica polls (sharedPolling) and its results stopped arriving: Keeper says so at once.
  if (entry.health.lateReason) return { live: false, asOf: polledAt, reason: entry.health.lateReason };
  if (silent) {
    return { live: false, asOf: polledAt, reason: 'no new poll has arrived since: the link to Keeper or its member poller is stuck' };
  }
  return { live: true };
}
