/**
 * When the sessions snapshot is read again, and when "Gather now" may be pressed. The server
 * gathers (cons and dump on every member: expensive) at most once per rate window per ensemble,
 * however many ask, and on a slow cadence while somebody looks; `nextGatherInSeconds` says when
 * its rate limit allows the next gathering. The browser re-reads the cached result at most that
 * often and never faster than MIN_REFETCH_MS, only while the view is open and the tab visible.
 */

/** Re-reading more often than this shows nothing new: the server's own cadence is slower. */
export const MIN_REFETCH_MS = 30_000;
/** Not later than this either: a view left open should not freeze for an hour. */
export const MAX_REFETCH_MS = 5 * 60_000;
/** A little after the window opens, so the answer can be the new gathering. */
export const AFTER_WINDOW_MS = 1_000;

export function refetchDelay(nextGatherInSeconds: number): number {
  const ms = Math.max(0, nextGatherInSeconds) * 1000 + AFTER_WINDOW_MS;
  return Math.min(MAX_REFETCH_MS, Math.max(MIN_REFETCH_MS, ms));
}

/** Without a Retry-After, wait this long after a refused request. */
export const DEFAULT_RATE_LIMIT_MS = 15_000;

/** Until when a rate-limited action stays disabled after the server refused it (429). */
export function blockedUntil(refusedAt: number, retryAfterSeconds: number | null): number {
  return refusedAt + (retryAfterSeconds === null ? DEFAULT_RATE_LIMIT_MS : Math.max(1, retryAfterSeconds) * 1000);
}

/**
 * When the next on-demand gathering is allowed (browser time): the server's window counted from
 * when its answer arrived, or a 429's, whichever is later. null = allowed now.
 */
export function allowedAt(receivedAt: number, nextGatherInSeconds: number, refusedUntil: number | null, now: number): number | null {
  const at = Math.max(receivedAt + Math.max(0, nextGatherInSeconds) * 1000, refusedUntil ?? 0);
  return at > now ? at : null;
}
