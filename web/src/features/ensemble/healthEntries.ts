/**
 * What the `ensembleHealth` topic keeps in the query cache: the poller's latest result and the
 * member history for the charts, each with the socket connection (`epoch`) it came from.
 */
import type { EnsembleHealth, MemberHistory, TopicEvent } from '@keeper/shared';

type MemberHistoryEvent = Extract<TopicEvent<'ensembleHealth'>, { kind: 'history' }>;

export interface HealthEntry {
  health: EnsembleHealth;
  epoch: number;
}

export interface MemberHistoryEntry {
  history: MemberHistory;
  epoch: number;
}

/** Points kept per member: the server sends ~15 min on watch; appends must not grow without bound in a tab left open for days. */
export const MEMBER_HISTORY_LIMIT = 2_000;

/** 'full' replaces the history; 'append' adds each member's new points (oldest first) and keeps the newest. */
export function reduceMemberHistory(prev: MemberHistoryEntry | undefined, event: MemberHistoryEvent, epoch: number): MemberHistoryEntry {
  if (event.mode === 'full' || prev === undefined) return { history: event.history, epoch };
  const history: MemberHistory = { ...prev.history };
  for (const [member, points] of Object.entries(event.history)) {
    history[member] = [...(history[member] ?? []), ...points].slice(-MEMBER_HISTORY_LIMIT);
  }
  return { history, epoch };
}
