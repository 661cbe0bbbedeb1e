/**
 * The console's own ZooKeeper session for one ensemble, as a state machine with a timeline.
 * Pure: the server feeds it client events, the browser renders what it produces.
 */

export const CONSOLE_SESSION_STATES = [
  'connecting',
  'connected',
  /**
   * Connected as far as the TCP link and the client library know, but the member has not
   * answered the console's liveness probe for a while: a hung (SIGSTOPped) or overloaded member.
   * The library only gives up on it at 2/3 of the session timeout; until then this says so.
   */
  'unconfirmed',
  'readOnly',
  'disconnected',
  'expired',
  'authFailed',
  'closed',
] as const;

export type ConsoleSessionState = (typeof CONSOLE_SESSION_STATES)[number];

export interface SessionTimelineEntry {
  /** Epoch milliseconds. */
  at: number;
  state: ConsoleSessionState;
  sessionId: string | null;
  /** host:port of the member the console is connected to, when connected. */
  member: string | null;
  /** Why, in the operator's words ("no answer from 127.0.0.1:2191 for 6.7 s"). */
  note?: string;
}

export interface ConsoleSessionSnapshot {
  state: ConsoleSessionState;
  sessionId: string | null;
  member: string | null;
  /** When the current state began (epoch ms). */
  since: number;
  /** Negotiated session timeout in ms (what the ensemble granted). */
  timeoutMs: number;
  /** Sessions opened so far by this console for this ensemble (1 + expiries). */
  sessionsOpened: number;
  /**
   * The last time the ensemble confirmed the console's session by answering it (epoch ms), or null
   * before the first answer. Only ever moves forward, and only on an answer: a change of state
   * (disconnected, connecting, a new member) never advances it. Views say "as of" this time.
   */
  confirmedAt: number | null;
  /** When the current ZooKeeper session was established (not when the browser or the member changed). */
  establishedAt: number | null;
  timeline: SessionTimelineEntry[];
  /** How the console reaches the ensemble and who it is there (absent from a server before TLS and SASL). */
  connection?: ConsoleConnectionFacts;
}

/** One identity a member holds for the console's connection, as whoAmI answers it: `sasl keeper`, `ip 127.0.0.1`. */
export interface ConsoleIdentityEntry {
  scheme: string;
  id: string;
}

export const CONNECTION_PROBLEM_KINDS = ['tls', 'sasl', 'handshake'] as const;

/**
 * Facts about the console's connection that are not states of the session: how it is secured,
 * the identity ZooKeeper sees, the last TLS or SASL problem, and what read-only means now.
 */
export interface ConsoleConnectionFacts {
  /** whoAmI on the current connection; null before its answer, or when the member cannot say (identityNote). */
  identity: ConsoleIdentityEntry[] | null;
  /** Why identity is null after a connect (a member before 3.7 has no whoAmI); else null. */
  identityNote: string | null;
  /** "TLS, server certificate checked against …", or null for plain TCP. */
  tls: string | null;
  /** "DIGEST-MD5 as keeper", or null without SASL. */
  sasl: string | null;
  /** A configuration the operator should know is unsafe (TLS without verification), else null. */
  warning: string | null;
  /** The last TLS, SASL or handshake problem in plain words; cleared when a session opens. */
  problem: { kind: (typeof CONNECTION_PROBLEM_KINDS)[number]; message: string; member: string; at: number } | null;
  /**
   * While the session is read-only: the member serving it, its server id when known, and when the
   * console last had the ensemble read-write (what "as of its last sync" means), else null.
   */
  readOnly: { member: string | null; memberId: number | null; lastReadWriteAt: number | null } | null;
}

/** The words every view uses for a read-only session: "read-only: member 3 has lost quorum; data as of its last sync". */
export function readOnlyReason(facts: ConsoleConnectionFacts['readOnly'], member: string | null): string {
  const who = facts?.memberId !== null && facts?.memberId !== undefined ? `member ${facts.memberId}` : `member ${facts?.member ?? member ?? '(unknown)'}`;
  return `read-only: ${who} has lost quorum; data as of its last sync`;
}

/**
 * What the gateway tells the state machine. `confirmedAt` on any event is the last answer the
 * gateway had from the ensemble when it happened; `connected` is itself an answer (the handshake).
 */
export type SessionEvent = { confirmedAt?: number } & (
  | { kind: 'connecting'; at: number; note?: string }
  | { kind: 'connected'; at: number; sessionId: string; member: string | null; timeoutMs: number; readOnly?: boolean }
  | { kind: 'unconfirmed'; at: number; note?: string }
  | { kind: 'disconnected'; at: number; note?: string }
  | { kind: 'expired'; at: number; note?: string }
  | { kind: 'authFailed'; at: number; note?: string }
  | { kind: 'closed'; at: number }
);

export const TIMELINE_LIMIT = 200;

export function initialSessionSnapshot(at: number, timeoutMs: number): ConsoleSessionSnapshot {
  return {
    state: 'connecting',
    sessionId: null,
    member: null,
    since: at,
    timeoutMs,
    sessionsOpened: 0,
    confirmedAt: null,
    establishedAt: null,
    timeline: [{ at, state: 'connecting', sessionId: null, member: null }],
  };
}

function nextState(event: SessionEvent): ConsoleSessionState {
  switch (event.kind) {
    case 'connecting':
      return 'connecting';
    case 'connected':
      return event.readOnly ? 'readOnly' : 'connected';
    case 'unconfirmed':
      return 'unconfirmed';
    case 'disconnected':
      return 'disconnected';
    case 'expired':
      return 'expired';
    case 'authFailed':
      return 'authFailed';
    case 'closed':
      return 'closed';
    default: {
      const never: never = event;
      throw new Error(`unhandled session event ${JSON.stringify(never)}`);
    }
  }
}

/** Applies one event. Repeats of the same state with the same session and member are ignored. */
export function applySessionEvent(snap: ConsoleSessionSnapshot, event: SessionEvent): ConsoleSessionSnapshot {
  if (snap.state === 'closed') return snap;
  // Only a session that was answering can stop answering; anything else already says it is not live.
  if (event.kind === 'unconfirmed' && !isLive(snap.state)) return snap;
  const state = nextState(event);
  const isNewSession = event.kind === 'connected' && event.sessionId !== snap.sessionId;
  const sessionId = event.kind === 'connected' ? event.sessionId : event.kind === 'expired' || event.kind === 'closed' ? null : snap.sessionId;
  // Unconfirmed is still on that member: naming it is the point ("no answer from zk2:2181").
  const member = event.kind === 'connected' ? event.member : event.kind === 'unconfirmed' ? snap.member : null;
  const timeoutMs = event.kind === 'connected' ? event.timeoutMs : snap.timeoutMs;
  const confirmedAt = latest(snap.confirmedAt, event.kind === 'connected' ? Math.max(event.at, event.confirmedAt ?? event.at) : (event.confirmedAt ?? null));
  const establishedAt = isNewSession ? event.at : sessionId === null ? null : snap.establishedAt;
  if (state === snap.state && sessionId === snap.sessionId && member === snap.member) {
    return confirmedAt === snap.confirmedAt ? snap : { ...snap, confirmedAt };
  }
  const note = 'note' in event ? event.note : undefined;
  const entry: SessionTimelineEntry = { at: event.at, state, sessionId, member, ...(note ? { note } : {}) };
  const timeline = [...snap.timeline, entry].slice(-TIMELINE_LIMIT);
  return {
    state,
    sessionId,
    member,
    since: event.at,
    timeoutMs,
    sessionsOpened: snap.sessionsOpened + (isNewSession ? 1 : 0),
    confirmedAt,
    establishedAt,
    timeline,
  };
}

function latest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

/** Whether data shown while in this state is live or only "as of" the last update. */
export function isLive(state: ConsoleSessionState): boolean {
  return state === 'connected' || state === 'readOnly';
}
