/**
 * When to ask a member that is down or unreachable again: the poll interval doubled per
 * consecutive failure, capped, jittered so the members of several consoles do not get asked
 * in lock-step.
 *
 * The cap is short (DEFAULT_MEMBER_BACKOFF_MAX_MS, ~5 s) on purpose: while a member is down
 * its card says "down ... do not restart any voter", and a member that answers again must
 * lose that word within about one cap, not 30 s later. Asking a dead member costs it nothing
 * (a refused connection) and a hung one one connection per try, so a short cap is cheap.
 */
import { backoffDelay } from '@keeper/shared';

export interface RetryPolicy {
  intervalMs: number;
  maxDelayMs: number;
}

/** The default cap on the delay between two tries of a member that does not answer. */
export const DEFAULT_MEMBER_BACKOFF_MAX_MS = 5_000;

/** Delay before the next try after `failures` consecutive failures (1 = the first failure). */
export function retryDelay(failures: number, policy: RetryPolicy, random: () => number = Math.random): number {
  if (failures <= 0) return policy.intervalMs;
  const backoff = { baseMs: policy.intervalMs, capMs: Math.max(policy.intervalMs, policy.maxDelayMs), jitter: [0.75, 1] as const };
  // Never sooner than the regular cadence, whatever the draw.
  return Math.max(policy.intervalMs, backoffDelay(failures - 1, backoff, random));
}

/**
 * Is a member whose next try is `nextPollAt` due in the round starting at `roundStart`?
 * Members are asked in rounds every `intervalMs`, so a delay is rounded to the nearest round:
 * waiting for the round after would overshoot it by more than asking now undershoots it.
 * (Comparing `nextPollAt <= roundStart` would skip a whole round whenever the timer fires a
 * millisecond early relative to the try's own clock reading: a 5 s delay became 10 s.)
 */
export function isDue(nextPollAt: number, roundStart: number, intervalMs: number): boolean {
  return nextPollAt - roundStart <= intervalMs / 2;
}
