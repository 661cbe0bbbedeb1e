/**
 * How long has a session been silent? `cons` gives `lresp` on the member's MONOTONIC clock
 * (ms since its host booted), which Keeper cannot read directly. Three lower bounds, the
 * largest wins, so a live session is never reported silent:
 *  1. the member's freshest lresp over all its connections is at or before its "now";
 *  2. if this connection's lresp has not changed since an earlier gathering, it has been
 *     silent at least since then (Keeper's own clock measures that part);
 *  3. the leader's dump says when the session expires; expiry = last heard + timeout
 *     (rounded up to a tick), so now - (expiresAt - timeout) has passed since (minus 1 s:
 *     the dump prints whole seconds).
 */
export interface SilenceSighting {
  lastResponseMono: number;
  /** Keeper's clock when this lresp value was first seen. */
  firstSeenAt: number;
  /** The silence estimated then. */
  silenceThen: number;
}

export interface SilenceInput {
  now: number;
  lastResponseMono: number | null;
  /** max(lresp) over the member's connections in the same cons answer. */
  memberFreshestMono: number | null;
  previous: SilenceSighting | undefined;
  expiresAt: number | null;
  timeoutMs: number | null;
}

const DUMP_PRECISION_MS = 1000;

export function estimateSilence(input: SilenceInput): { silentMs: number | null; sighting: SilenceSighting | null } {
  const bounds: number[] = [];
  if (input.lastResponseMono !== null && input.memberFreshestMono !== null) {
    bounds.push(Math.max(0, input.memberFreshestMono - input.lastResponseMono));
  }
  const previous = input.previous;
  if (previous && input.lastResponseMono !== null && previous.lastResponseMono === input.lastResponseMono) {
    bounds.push(previous.silenceThen + Math.max(0, input.now - previous.firstSeenAt));
  }
  if (input.expiresAt !== null && input.timeoutMs !== null) {
    bounds.push(Math.max(0, input.now - (input.expiresAt - input.timeoutMs) - DUMP_PRECISION_MS));
  }
  if (bounds.length === 0) return { silentMs: null, sighting: null };
  const silentMs = Math.max(...bounds);
  let sighting: SilenceSighting | null = null;
  if (input.lastResponseMono !== null) {
    sighting =
      previous && previous.lastResponseMono === input.lastResponseMono
        ? previous
        : { lastResponseMono: input.lastResponseMono, firstSeenAt: input.now, silenceThen: silentMs };
  }
  return { silentMs, sighting };
}
