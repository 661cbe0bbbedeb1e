/**
 * The words and color of the console-session badge. One tone per meaning (green serving, amber
 * degraded, red lost, grey stale/unknown) and always a word with it.
 */
import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { formatDuration } from '../../lib/time';
import { shortId } from '../../lib/zxid';

import type { Tone } from '../../ui/tone';

export type { Tone };

export interface SessionDescription {
  tone: Tone;
  /** The state in a word or two: "connected", "disconnected 4 s". */
  headline: string;
  /** Supporting facts, shown after the headline and dropped first on narrow screens. */
  details: string[];
}

/** How long after an expiry the badge adds that the session is a new one (after the current state, never before it). */
export const NEW_SESSION_NOTICE_MS = 5 * 60_000;

function lastExpiry(snap: ConsoleSessionSnapshot): number | null {
  for (let i = snap.timeline.length - 1; i >= 0; i--) {
    const e = snap.timeline[i];
    if (e?.state === 'expired') return e.at;
  }
  return null;
}

export function describeSession(snap: ConsoleSessionSnapshot | undefined, now: number, linkLive: boolean): SessionDescription {
  if (snap === undefined) return { tone: 'stale', headline: 'unknown', details: ['waiting for the server'] };
  const d = describeLive(snap, now);
  // Without the link the last known state may be long gone: keep the words, lose the color.
  return linkLive ? d : { ...d, tone: 'stale' };
}

function describeLive(snap: ConsoleSessionSnapshot, now: number): SessionDescription {
  const elapsed = now - snap.since;
  const id = snap.sessionId ? shortId(snap.sessionId) : null;
  switch (snap.state) {
    case 'connected': {
      // The age is the ZooKeeper session's own, unchanged by a move to another member or a browser reconnect.
      const age = snap.establishedAt === null ? null : `session ${formatDuration(now - snap.establishedAt)}`;
      const expiredAt = lastExpiry(snap);
      const renewed = expiredAt !== null && now - expiredAt < NEW_SESSION_NOTICE_MS ? `new after an expiry ${formatDuration(now - expiredAt)} ago` : null;
      const details = [snap.member ?? 'unknown member', ...(id ? [id] : []), ...(renewed ? [renewed] : []), ...(age ? [age] : [])];
      return { tone: 'live', headline: 'connected', details };
    }
    case 'readOnly': {
      const facts = snap.connection?.readOnly ?? null;
      const who = facts?.memberId !== null && facts?.memberId !== undefined ? `member ${facts.memberId}` : (snap.member ?? 'its member');
      return {
        tone: 'degraded',
        headline: 'read-only',
        details: [`${who} has lost quorum`, ...(snap.member && facts?.memberId !== null && facts?.memberId !== undefined ? [snap.member] : [])],
      };
    }
    case 'unconfirmed': {
      const quiet = snap.confirmedAt === null ? elapsed : now - snap.confirmedAt;
      return {
        tone: 'degraded',
        headline: `unconfirmed ${formatDuration(quiet)}`,
        details: [`no answer from ${snap.member ?? 'the member'}`, ...(id ? [id] : [])],
      };
    }
    case 'connecting':
      return { tone: 'degraded', headline: `connecting ${formatDuration(elapsed)}`, details: problem(snap) };
    case 'disconnected': {
      // A read-only session is local to the member that opened it and ends with its connection:
      // no timeout to wait out, nothing to save (the server says so in the timeline too).
      const readOnly = snap.connection?.readOnly ?? null;
      if (readOnly) {
        const who = readOnly.memberId !== null ? `member ${readOnly.memberId}` : (readOnly.member ?? 'its member');
        return {
          tone: 'degraded',
          headline: `disconnected ${formatDuration(elapsed)}`,
          details: [`the read-only session on ${who} ended with its connection`, 'reads wait for a new read-only session'],
        };
      }
      // Within the session timeout the session (and its ephemerals and watches) can still be saved.
      const left = snap.timeoutMs - elapsed;
      return left > 0
        ? {
            tone: 'degraded',
            headline: `disconnected ${formatDuration(elapsed)}`,
            details: [`session ${id ? `${id} ` : ''}expires in ≤ ${formatDuration(left)}`],
          }
        : { tone: 'lost', headline: `disconnected ${formatDuration(elapsed)}`, details: ['past the session timeout: likely expired'] };
    }
    case 'expired':
      return { tone: 'lost', headline: `expired ${formatDuration(elapsed)}`, details: ['opening a new session'] };
    case 'authFailed': {
      const said = problem(snap);
      return { tone: 'lost', headline: 'auth failed', details: said.length > 0 ? said : ['check the console’s credentials'] };
    }
    case 'closed':
      return { tone: 'stale', headline: 'closed', details: [] };
    default: {
      const never: never = snap.state;
      return { tone: 'stale', headline: String(never), details: [] };
    }
  }
}

/** The last TLS or SASL problem, as the badge's first detail ("SASL DIGEST-MD5: … refused user …"). */
function problem(snap: ConsoleSessionSnapshot): string[] {
  const message = snap.connection?.problem?.message;
  return message ? [message] : [];
}

/** The tone of a state word in the timeline, where no duration is involved. */
export function stateTone(state: ConsoleSessionSnapshot['state']): Tone {
  switch (state) {
    case 'connected':
      return 'live';
    case 'readOnly':
    case 'unconfirmed':
    case 'connecting':
    case 'disconnected':
      return 'degraded';
    case 'expired':
    case 'authFailed':
      return 'lost';
    case 'closed':
      return 'stale';
    default: {
      const never: never = state;
      return never;
    }
  }
}
