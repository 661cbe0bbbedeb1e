/**
 * Exponential back-off with full jitter, bounded by a deadline (kazoo's KazooRetry and
 * Curator's ExponentialBackoffRetry are the models: delay 0.1 s, x2, capped, jittered).
 * Jitter matters: a console restarting against a struggling ensemble must not
 * synchronise its retries with everyone else's.
 */
export interface BackoffPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  multiplier: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialDelayMs: 100, maxDelayMs: 2000, multiplier: 2 };

/** The delay before retry number `attempt` (0-based), uniformly jittered in [cap/2, cap]. */
export function backoffDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** attempt);
  return Math.round(cap / 2 + (random() * cap) / 2);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
