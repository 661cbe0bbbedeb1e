/** The browser's link to the Keeper server, separate from each ensemble's ZooKeeper session. */
export type ConnectionPhase =
  /** Opening the WebSocket. */
  | 'connecting'
  /** Open, hello sent, waiting for welcome. */
  | 'handshaking'
  /** Welcomed: events flow. */
  | 'live'
  /**
   * Welcomed, and the socket is still open, but the server has sent nothing (not even a pong) for
   * UNANSWERED_AFTER_MS: a frozen or overloaded Keeper server. Nothing on screen is live; the
   * first frame that arrives makes the link live again, without a reconnect.
   */
  | 'unanswered'
  /** Dropped; a retry is scheduled at retryAt. */
  | 'waiting'
  /** The server speaks another protocol version: only a reload helps, so retrying stops. */
  | 'fatal'
  /**
   * The identity behind the socket ended (close code 4003: share link revoked or expired, signed
   * out, session expired): retrying cannot help, so it stops; `fatalReason` says why.
   */
  | 'ended'
  /** Stopped by the app (unmount). */
  | 'stopped';

export interface ConnectionStatus {
  phase: ConnectionPhase;
  /** When this phase began (browser time). */
  since: number;
  /** Counts welcomes: cache entries from an older epoch came over a previous socket and are stale. */
  epoch: number;
  /**
   * The last message received before the link was lost or stopped answering; the "as of" time for
   * everything on screen. Never the moment the loss was noticed: that is later than anything known.
   */
  lostAt: number | null;
  /** Since when the link has not been live (null while live): "server unreachable for 12 s". */
  downSince: number | null;
  retryAt: number | null;
  attempt: number;
  /** Why the last attempt ended, for the operator ("closed 1006"). */
  lastError: string | null;
  fatalReason: string | null;
  serverVersion: string | null;
  /** Why entries of an older epoch are being refreshed (a reconnect, or the server telling this page to resync). */
  refreshReason: string | null;
}

/** Events flow over the socket in these phases (an unanswered server may still be reading what it is sent). */
export function isOpenPhase(phase: ConnectionPhase): boolean {
  return phase === 'live' || phase === 'unanswered';
}

export function initialConnectionStatus(now: number): ConnectionStatus {
  return {
    phase: 'connecting',
    since: now,
    epoch: 0,
    lostAt: null,
    downSince: now,
    retryAt: null,
    attempt: 0,
    lastError: null,
    fatalReason: null,
    serverVersion: null,
    refreshReason: null,
  };
}
