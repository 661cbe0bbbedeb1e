/**
 * Whether what a view shows is live, and if not, since when it is frozen and why. The rule the whole
 * product follows: a view never presents old data as live. Data is live only when the link to the
 * server is up, the console's ZooKeeper session is serving, and the entry came over this very socket.
 */
import { isLive, type ConsoleSessionState } from '@keeper/shared';
import type { ConnectionStatus } from '../../socket/connectionStatus';
import type { SessionEntry } from '../../socket/sessionEntry';

export type Freshness = { live: true } | { live: false; asOf: number | null; reason: string };

const SESSION_REASONS: Record<Exclude<ConsoleSessionState, 'connected' | 'readOnly'>, string> = {
  connecting: 'the console is connecting to ZooKeeper',
  disconnected: 'the console lost its ZooKeeper connection and is reconnecting',
  expired: 'the console’s ZooKeeper session expired; a new one is opening',
  authFailed: 'ZooKeeper refused the console’s credentials; check the server configuration',
  closed: 'the console closed its ZooKeeper session',
};

function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

export function computeFreshness(
  status: ConnectionStatus,
  session: SessionEntry | undefined,
  /** Epoch of the cache entry shown; undefined when the view shows no entry of its own. */
  entryEpoch?: number,
): Freshness {
  if (status.phase !== 'live') {
    const sessionDown = session && !isLive(session.snapshot.state) ? session.snapshot.since : null;
    const reason =
      status.phase === 'fatal'
        ? (status.fatalReason ?? 'this page is out of date; reload it')
        : 'no connection to the Keeper server; reconnecting';
    return { live: false, asOf: earliest(status.lostAt, sessionDown), reason };
  }
  if (session === undefined) {
    return { live: false, asOf: null, reason: 'waiting for the console’s ZooKeeper session' };
  }
  const state = session.snapshot.state;
  if (state !== 'connected' && state !== 'readOnly') {
    return { live: false, asOf: session.snapshot.since, reason: SESSION_REASONS[state] };
  }
  if (entryEpoch !== undefined && entryEpoch !== status.epoch) {
    return { live: false, asOf: status.lostAt, reason: 'refreshing after a reconnect' };
  }
  return { live: true };
}
