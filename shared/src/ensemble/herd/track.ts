/**
 * A herd across gatherings (hysteresis): once named, it stays named until it has measured below
 * the threshold for `clearAfter` gatherings in a row, so a herd the ensemble has slowed down, or
 * one that pauses between two gatherings, is not dropped while it goes on. While it fades, its
 * figures are those of the same sessions in the latest gathering, never the old ones presented as
 * new. It clears at once when none of its sessions is connected any more (the workers are gone).
 */
import type { EnsembleSession } from '../types.js';
import { detectRequestHerd, remeasureHerd, type HerdInput } from './detect.js';
import type { RequestHerd } from './schema.js';

export const HERD_CLEAR_AFTER_GATHERINGS = 3;

export interface HerdMemory {
  herd: RequestHerd | null;
}

export const NO_HERD: HerdMemory = { herd: null };

function stillConnected(sessions: readonly EnsembleSession[], previous: RequestHerd): boolean {
  const ids = new Set(previous.sessionIds ?? []);
  return sessions.some((s) => ids.has(s.sessionId) && s.connected !== false);
}

export function trackHerd(
  memory: HerdMemory,
  input: HerdInput & { now: number },
  clearAfter = HERD_CLEAR_AFTER_GATHERINGS,
): { herd: RequestHerd | null; memory: HerdMemory } {
  const previous = memory.herd;
  const detected = detectRequestHerd(input);
  if (detected) {
    const herd = { ...detected, namedSince: previous?.namedSince ?? input.now, gatheringsBelow: 0, clearsAfter: clearAfter, measuredAt: input.now };
    return { herd, memory: { herd } };
  }
  if (!previous) return { herd: null, memory: NO_HERD };
  const below = (previous.gatheringsBelow ?? 0) + 1;
  if (below >= clearAfter || !stillConnected(input.sessions, previous)) return { herd: null, memory: NO_HERD };
  const again = remeasureHerd(input, previous);
  // No rate for any of them this time (moved member, first reading): the last figures, with their own time.
  const herd = again ? { ...again, measuredAt: input.now } : { ...previous };
  const tracked = { ...herd, namedSince: previous.namedSince ?? input.now, gatheringsBelow: below, clearsAfter: clearAfter };
  return { herd: tracked, memory: { herd: tracked } };
}
