/**
 * Exponential back-off with jitter, the one formula behind every retry in Keeper: the gateway's
 * reads and session reopening, the watch registry, mutations' read-backs, the member poller
 * and the browser's reconnects. The models are kazoo's KazooRetry, Curator's
 * ExponentialBackoffRetry and AWS's "Exponential Backoff And Jitter".
 *
 * Jitter matters: a console restarting against a struggling ensemble, or a hundred browsers
 * that lost the server together, must not synchronise their retries. Each caller picks how
 * much of the delay is random (`jitter`): full jitter [0, 1] spreads a herd best; a floor
 * above 0 keeps a minimum wait where retrying at once is pointless or a promise is made
 * (a poller never sooner than its cadence, a browser back within about 0.5 s).
 */
export interface Backoff {
  /** The delay before the first retry (attempt 0), before jitter. */
  baseMs: number;
  /** The un-jittered delay stops growing here. */
  capMs: number;
  /** Growth per attempt; 2 unless said. */
  factor?: number;
  /**
   * The delay is drawn uniformly from [low, high] times the un-jittered delay; [0, 1] (full
   * jitter) unless said. A high above 1 spreads around the delay ([0.8, 1.2] is +-20 %).
   */
  jitter?: readonly [low: number, high: number];
}

const FULL_JITTER = [0, 1] as const;

/**
 * The delay in whole milliseconds before retry number `attempt` (0-based).
 * @param random a number in [0, 1); injectable so tests can pin the draw.
 */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const { baseMs, capMs, factor = 2, jitter: [low, high] = FULL_JITTER } = backoff;
  // factor ** attempt reaches Infinity, never NaN, for huge attempts: the cap still holds.
  const delay = Math.min(capMs, baseMs * factor ** Math.max(0, attempt));
  return Math.round(delay * (low + (high - low) * random()));
}
