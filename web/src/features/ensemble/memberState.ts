/**
 * What a member and the quorum look like: one status color and the word that goes with it
 * (never color alone), plus the one-line reason an operator needs when it is not plainly fine.
 * Green serving, amber degraded (behind the leader, followers not synced), red down or not
 * serving, grey unknown or stale.
 */
import type { Alert, MemberState, MemberStatus, QuorumSummary } from '@keeper/shared';
import { isReadOnlyMode } from '@keeper/shared';
import { formatDuration } from '../../lib/time';

import type { Tone } from '../../ui/tone';

export type { Tone };

export interface Look {
  tone: Tone;
  word: string;
  /** Why it is not plainly fine, in the operator's words; null when it is. */
  reason: string | null;
}

const SERVING: ReadonlySet<MemberState> = new Set(['leader', 'follower', 'observer', 'standalone']);

export function isServingState(state: MemberState): boolean {
  return SERVING.has(state);
}

const WORD: Record<MemberState, string> = {
  leader: 'leader',
  follower: 'follower',
  observer: 'observer',
  standalone: 'standalone',
  'not-serving': 'not serving',
  down: 'down',
  unreachable: 'unreachable',
  'not-whitelisted': 'not whitelisted',
  unknown: 'unknown',
};

const TONE: Record<MemberState, Tone> = {
  leader: 'live',
  follower: 'live',
  observer: 'live',
  standalone: 'live',
  'not-serving': 'lost',
  down: 'lost',
  unreachable: 'lost',
  // It answers, but Keeper cannot tell what it is doing: unknown, not down.
  'not-whitelisted': 'stale',
  unknown: 'stale',
};

/** The alert that makes a serving member amber, if any: behind the leader, or (on the leader) followers not synced. */
function degradingAlert(m: MemberStatus, alerts: readonly Alert[]): Alert | undefined {
  return alerts.find((a) => a.severity !== 'info' && a.members.includes(m.address) && (a.id === `behind:${m.address}` || a.id === 'followers-not-synced'));
}

/** "member 2 (h:p) is behind the leader: zxid ..." -> "behind the leader: zxid ...": the card already names the member. */
function withoutMemberName(title: string, m: MemberStatus): string {
  const i = title.indexOf(m.address);
  if (i < 0) return title;
  const rest = title.slice(i + m.address.length).replace(/^\)?\s*(is\s+)?/, '');
  return rest === '' ? title : rest;
}

/**
 * "mntr not in 4lw.commands.whitelist" for a member that serves but refuses some words: its
 * card would otherwise show blank figures with no word on why or which setting fixes it.
 */
function whitelistGap(m: MemberStatus, alerts: readonly Alert[]): string | null {
  const alert = alerts.find((a) => a.id === `4lw:${m.address}`);
  if (!alert) return null;
  const afterName = withoutMemberName(alert.title, m).replace(/^:\s*/, '');
  return `${afterName}: some figures are missing`;
}

export function describeMember(m: MemberStatus, alerts: readonly Alert[], stale: boolean): Look {
  const word = WORD[m.state];
  if (isServingState(m.state)) {
    // Serving, but closing new connections from Keeper's address (maxClientCnxns): the server's sentence says so and why it counts as serving.
    if (m.connectionLimit && m.detail) return { tone: stale ? 'stale' : 'degraded', word, reason: m.detail };
    const alert = degradingAlert(m, alerts);
    if (alert) return { tone: stale ? 'stale' : 'degraded', word, reason: withoutMemberName(alert.title, m) };
    return { tone: stale ? 'stale' : 'live', word, reason: whitelistGap(m, alerts) };
  }
  const reason = m.detail ?? (m.state === 'unknown' ? 'not polled yet' : null);
  return { tone: stale ? 'stale' : TONE[m.state], word, reason };
}

/** "down for 40 s", "not serving for 3 min", or "not seen serving" when Keeper never saw it serve. */
export function outageText(m: Pick<MemberStatus, 'state' | 'lastServingAt'>, now: number): string | null {
  if (isServingState(m.state) || m.state === 'unknown' || m.state === 'not-whitelisted') return null;
  const word = WORD[m.state];
  if (m.lastServingAt === null) return `${word}; not seen serving since Keeper started watching`;
  return `${word} for ${formatDuration(now - m.lastServingAt)}`;
}

/** `members`: to say which still serve reads in read-only mode, as the header does. */
export function describeQuorum(q: QuorumSummary, alerts: readonly Alert[], stale: boolean, members: readonly MemberStatus[] = []): Look {
  const look = quorumLook(q, alerts, members);
  return stale ? { ...look, tone: 'stale' } : look;
}

function quorumLook(q: QuorumSummary, alerts: readonly Alert[], members: readonly MemberStatus[]): Look {
  if (q.voters === 0) return { tone: 'stale', word: 'unknown', reason: 'no voting member answered yet' };
  if (!q.hasQuorum) {
    const readOnly = members.filter(isReadOnlyMode).map((m) => (m.id === null ? m.address : `member ${m.id}`));
    if (readOnly.length === 0) return { tone: 'lost', word: 'no quorum', reason: 'no member serves reads or writes' };
    return {
      tone: 'lost',
      word: 'no quorum',
      reason: `no member serves writes; ${readOnly.join(', ')} ${readOnly.length === 1 ? 'serves' : 'serve'} reads only (read-only mode)`,
    };
  }
  if (q.votersServing < q.voters) {
    return q.canLoseNow === 0
      ? { tone: 'degraded', word: 'at the edge', reason: 'one more voter failure loses the quorum' }
      : { tone: 'degraded', word: 'degraded', reason: `${q.voters - q.votersServing} of ${q.voters} voters not serving` };
  }
  const notSynced = alerts.find((a) => a.id === 'followers-not-synced');
  if (notSynced) return { tone: 'degraded', word: 'not synced', reason: notSynced.title };
  const behind = alerts.filter((a) => a.id.startsWith('behind:'));
  if (behind.length > 0) return { tone: 'degraded', word: 'lagging', reason: `${behind.length} member${behind.length === 1 ? '' : 's'} behind the leader` };
  if (q.observersServing < q.observers) {
    return {
      tone: 'degraded',
      word: 'degraded',
      reason: `${q.observers - q.observersServing} of ${q.observers} observers not serving (the quorum is unaffected)`,
    };
  }
  if (q.tolerates === 0) return { tone: 'degraded', word: 'no margin', reason: 'any voter failure stops the ensemble' };
  // The quorum holds, but clients suffer: not "healthy" while a herd of requests slows everyone.
  const herd = alerts.find((a) => a.id === 'request-herd');
  if (herd) return { tone: 'degraded', word: 'request herd', reason: 'the quorum holds, but a request herd slows every client: see the alert below' };
  return { tone: 'live', word: 'healthy', reason: null };
}

/** Alerts about the quorum itself: the quorum banner says them (with what to do), so the alert list leaves them out. */
export const QUORUM_ALERT_IDS: ReadonlySet<string> = new Set(['no-quorum', 'at-edge']);

export function quorumAlert(alerts: readonly Alert[]): Alert | undefined {
  return alerts.find((a) => QUORUM_ALERT_IDS.has(a.id));
}

/** A member's check counts as late (shown so) past this many poll intervals, and never sooner than LATE_CHECK_MIN_MS. */
export const LATE_CHECK_INTERVALS = 3;
export const LATE_CHECK_MIN_MS = 15_000;

export interface CheckedAge {
  /** "checked 4 s ago", "checked just now". */
  text: string;
  /** Older than a few polls: the state shown may no longer be true. */
  late: boolean;
}

/**
 * How old a member's state is: from the poll that last checked it (`polledAt`, server clock,
 * like every other "ago" on screen), so "unreachable, checked 4 s ago" says how far to trust it.
 */
export function checkedAge(polledAt: number, now: number, pollIntervalMs: number): CheckedAge {
  const age = now - polledAt;
  return {
    text: age < 1_000 ? 'checked just now' : `checked ${formatDuration(age)} ago`,
    late: age > Math.max(LATE_CHECK_MIN_MS, LATE_CHECK_INTERVALS * pollIntervalMs),
  };
}
