/**
 * How long to wait before the next reconnect attempt. Quick while someone is looking (an operator
 * watching an incident wants the console back within seconds), patient while the tab is hidden
 * (a hundred forgotten tabs must not hammer a recovering server). Jittered so browsers that lost
 * the server together do not all come back in the same millisecond.
 */
import { backoffDelay, type Backoff } from '@keeper/shared';

export const VISIBLE_MIN_MS = 500;
export const VISIBLE_MAX_MS = 2_000;
export const HIDDEN_MAX_MS = 30_000;

// +-20 % around the delay: enough to spread a herd, small enough to keep the 0.5 s promise.
const SPREAD = [0.8, 1.2] as const;
const VISIBLE: Backoff = { baseMs: VISIBLE_MIN_MS, capMs: VISIBLE_MAX_MS, jitter: SPREAD };
const HIDDEN: Backoff = { baseMs: VISIBLE_MIN_MS, capMs: HIDDEN_MAX_MS, jitter: SPREAD };

/**
 * @param attempt 0 for the first retry after a drop.
 * @param random a number in [0, 1), injectable for tests.
 */
export function reconnectDelay(attempt: number, visible: boolean, random: number): number {
  return backoffDelay(attempt, visible ? VISIBLE : HIDDEN, () => random);
}
