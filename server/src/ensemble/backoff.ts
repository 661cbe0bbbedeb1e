/**
 * When to ask a member that is down or unreachable again: the poll interval doubled per
 * consecutive failure, capped (~30 s), jittered so the members of several consoles do not
 * get asked in lock-step. A dead member is not hammered every 5 s forever, yet one that
 * comes back is seen within the cap.
 */
export interface RetryPolicy {
  intervalMs: number;
  maxDelayMs: number;
}

/** Delay before the next try after `failures` consecutive failures (1 = the first failure). */
export function retryDelay(failures: number, policy: RetryPolicy, random: () => number = Math.random): number {
  if (failures <= 0) return policy.intervalMs;
  const cap = Math.max(policy.intervalMs, Math.min(policy.maxDelayMs, policy.intervalMs * 2 ** (failures - 1)));
  // Jitter in [cap * 0.75, cap]: never sooner than the regular cadence.
  return Math.max(policy.intervalMs, Math.round(cap * (0.75 + random() * 0.25)));
}
