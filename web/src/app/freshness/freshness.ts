/**
 * Whether what a view shows is live, and if not, since when it is frozen and why. The rule the whole
 * product follows: a view never presents old data as live. Data is live only when the Keeper server
 * answers, the console's ZooKeeper session is confirmed by its member, and the entry came over this
 * very socket. "As of" is always the last confirmed contact (the last frame from the server, the last
 * answer from ZooKeeper): a change of state without new data never moves it forward.
 */
import { isLive, readOnlyReason, type ConsoleSessionSnapshot, type ConsoleSessionState } from '@keeper/shared';
import type { ConnectionStatus } from '../../socket/connectionStatus';
import type { SessionEntry } from '../consoleSession/consoleSessionTopic';

export type Freshness =
  | { live: true }
  | {
      live: false;
      asOf: number | null;
      reason: string;
      /**
       * How the time reads: "as of 14:02:31", "unconfirmed since 14:02:31" for a member that stopped
       * answering, or "unconfirmed, as of 14:02:31" for a reading whose refresh is not answered yet.
       */
      label?: 'as of' | 'unconfirmed since' | 'unconfirmed, as of';
      /** Served by a member that has lost quorum: reads work, writes wait (controls say "read-only"). */
      readOnly?: true;
    };

type NotLiveState = Exclude<ConsoleSessionState, 'connected' | 'readOnly'>;

const SESSION_REASONS: Record<NotLiveState, (snap: ConsoleSessionSnapshot) => string> = {
  connecting: () => 'the console is connecting to ZooKeeper',
  unconfirmed: (snap) => (snap.member ? `ZooKeeper member ${snap.member} is not answering the console` : 'the ZooKeeper member is not answering the console'),
  disconnected: () => 'the console lost its ZooKeeper connection and is reconnecting',
  expired: () => 'the console’s ZooKeeper session expired; a new one is opening',
  authFailed: () => 'ZooKeeper refused the console’s credentials; check the server configuration',
  closed: () => 'the console closed its ZooKeeper session',
};

export const NOT_ANSWERING_REASON = 'Keeper is not answering';

function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/** The last time ZooKeeper confirmed what the console shows, when the session is not live now. */
function sessionAsOf(session: SessionEntry | undefined): number | null {
  return session && !isLive(session.snapshot.state) ? session.snapshot.confirmedAt : null;
}

export function computeFreshness(
  status: ConnectionStatus,
  session: SessionEntry | undefined,
  /** Epoch of the cache entry shown; undefined when the view shows no entry of its own. */
  entryEpoch?: number,
): Freshness {
  if (status.phase === 'unanswered') {
    return { live: false, asOf: earliest(status.lostAt, sessionAsOf(session)), reason: NOT_ANSWERING_REASON };
  }
  if (status.phase !== 'live') {
    const reason =
      status.phase === 'fatal' || status.phase === 'ended'
        ? (status.fatalReason ?? 'this page is out of date; reload it')
        : 'no connection to the Keeper server; reconnecting';
    return { live: false, asOf: earliest(status.lostAt, sessionAsOf(session)), reason };
  }
  if (session === undefined) {
    return { live: false, asOf: null, reason: 'waiting for the console’s ZooKeeper session' };
  }
  const snap = session.snapshot;
  if (snap.state === 'readOnly') {
    // Served, but by a member without quorum: what it shows is as of when it last synced with the
    // others, which is when the console last had the ensemble read-write (unknown if it never had).
    const readOnly = snap.connection?.readOnly ?? null;
    return { live: false, asOf: readOnly?.lastReadWriteAt ?? null, reason: readOnlyReason(readOnly, snap.member), readOnly: true };
  }
  if (snap.state !== 'connected') {
    return {
      live: false,
      asOf: snap.confirmedAt,
      reason: SESSION_REASONS[snap.state](snap),
      ...(snap.state === 'unconfirmed' ? { label: 'unconfirmed since' as const } : {}),
    };
  }
  if (entryEpoch !== undefined && entryEpoch !== status.epoch) {
    return { live: false, asOf: status.lostAt, reason: status.refreshReason ?? 'refreshing after a reconnect' };
  }
  return { live: true };
}

/**
 * Why a write control is disabled now, for its title: "Writes are paused: read-only: member 3 has
 * lost quorum; data as of its last sync."; null while live. Every write control says the same.
 */
export function writesPausedReason(freshness: { live: true } | { live: false; reason: string }): string | null {
  return freshness.live ? null : `Writes are paused: ${freshness.reason}.`;
}
