/**
 * A herd across gatherings (hysteresis): once named, it stays named until it has measured below
 * the threshold for `clearAfter` gatherings in a row, so a herd the ensemble has slowed down, or
 * one that pauses between two gatherings, is not dropped while it goes on. While it fades, its
 * figures are those of the same sessions in the latest gathering, never the old ones presented as
 * new. While its sessions still send enough of the same request together, and most of all
 * requests (detect.ts `holdRate`), it is not fading at all: 200 workers slowed to 0.2 req/s each
 * were dropped while they still sent 40 req/s of identical getChildren (issue 34 item 7). It
 * clears at once when none of its sessions is connected any more (the workers are gone).
 */
import type { EnsembleSession } from '../types.js';
import { detectRequestHerd, remeasureRequestHerd, type RequestHerdInput } from './detect.js';
import type { RequestHerd } from './schema.js';

export const REQUEST_HERD_CLEAR_AFTER_GATHERINGS = 3;

export interface RequestHerdMemory {
  herd: RequestHerd | null;
}

export const NO_REQUEST_HERD: RequestHerdMemory = { herd: null };

function stillConnected(sessions: readonly EnsembleSession[], previous: RequestHerd): boolean {
  const ids = new Set(previous.sessionIds ?? []);
  return sessions.some((s) => ids.has(s.sessionId) && s.connected !== false);
}

export function trackRequestHerd(
  memory: RequestHerdMemory,
  input: RequestHerdInput & { now: number },
  clearAfter = REQUEST_HERD_CLEAR_AFTER_GATHERINGS,
): { herd: RequestHerd | null; memory: RequestHerdMemory } {
  const previous = memory.herd;
  const detected = detectRequestHerd(input);
  if (detected) {
    const herd = { ...detected, namedSince: previous?.namedSince ?? input.now, gatheringsBelow: 0, clearsAfter: clearAfter, measuredAt: input.now };
    return { herd, memory: { herd } };
  }
  if (!previous) return { herd: null, memory: NO_REQUEST_HERD };
  if (!stillConnected(input.sessions, previous)) return { herd: null, memory: NO_REQUEST_HERD };
  const again = remeasureRequestHerd(input, previous);
  if (again?.heldByAggregate) {
    const held = { ...again, namedSince: previous.namedSince ?? input.now, gatheringsBelow: 0, clearsAfter: clearAfter, measuredAt: input.now };
    return { herd: held, memory: { herd: held } };
  }
  const below = (previous.gatheringsBelow ?? 0) + 1;
  if (below >= clearAfter) return { herd: null, memory: NO_REQUEST_HERD };
  // No rate for any of them this time (moved member, first reading): the last figures, with their own time.
  const herd = again ? { ...again, measuredAt: input.now } : { ...previous };
  const tracked = { ...herd, namedSince: previous.namedSince ?? input.now, gatheringsBelow: below, clearsAfter: clearAfter };
  return { herd: tracked, memory: { herd: tracked } };
}
