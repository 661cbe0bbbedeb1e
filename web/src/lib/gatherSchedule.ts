/**
 * When the sessions snapshot is read again, and when "Gather now" may be pressed. The server
 * gathers (cons and dump on every member: expensive) when a read finds its last gathering a
 * cadence old (60 s), at most once per rate window per ensemble however many ask;
 * `nextGatherInSeconds` says when a read will gather again, `gatherAllowedInSeconds` when
 * "Gather now" is allowed. The browser re-reads just after the former, never faster than
 * MIN_REFETCH_MS, only while the view is open and the tab visible; opening the view (or coming
 * back to the tab) after that reads at once, so the server gathers then.
 */

/** Re-reading more often than this shows nothing new (and reading is cheap: the server decides when to gather). */
export const MIN_REFETCH_MS = 5_000;
/** Not later than this either: a view left open should not freeze for an hour. */
export const MAX_REFETCH_MS = 5 * 60_000;
/** A little after the data turns a cadence old, so the answer is the new gathering. */
export const AFTER_WINDOW_MS = 1_000;

export function refetchDelay(nextGatherInSeconds: number): number {
  const ms = Math.max(0, nextGatherInSeconds) * 1000 + AFTER_WINDOW_MS;
  return Math.min(MAX_REFETCH_MS, Math.max(MIN_REFETCH_MS, ms));
}

/**
 * How long from `now` until the answer received at `receivedAt` is re-read. A view opened again
 * with an answer nearly due re-reads when it falls due, not a whole delay after it opened (the
 * interval starts when the view mounts): otherwise a view opened a moment before its answer turned
 * a cadence old showed that answer for nearly a second cadence.
 */
export function refetchIn(receivedAt: number, nextGatherInSeconds: number, now: number): number {
  return Math.max(MIN_REMOUNT_REFETCH_MS, receivedAt + refetchDelay(nextGatherInSeconds) - now);
}

/** The soonest a remounted view re-reads an answer already due (it has just rendered it). */
export const MIN_REMOUNT_REFETCH_MS = 250;

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

/** The server's cadence when an older server does not say it. */
export const DEFAULT_CADENCE_S = 60;
/** The view re-reads a second after the data turns a cadence old; past this grace it is marked old. */
export const OUTDATED_GRACE_MS = 5_000;

/** Older than the server's cadence (and the re-read's grace): a read now brings a new gathering, and until then the view says so. */
export function isOutdated(gatheredAt: number | null, cadenceSeconds: number | undefined, now: number): boolean {
  if (gatheredAt === null) return false;
  return now - gatheredAt > (cadenceSeconds ?? DEFAULT_CADENCE_S) * 1000 + OUTDATED_GRACE_MS;
}
