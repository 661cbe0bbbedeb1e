/**
 * How long to wait before the next reconnect attempt. Quick while someone is looking (an operator
 * watching an incident wants the console back within seconds), patient while the tab is hidden
 * (a hundred forgotten tabs must not hammer a recovering server). Jittered so browsers that lost
 * the server together do not all come back in the same millisecond.
 */
export const VISIBLE_MIN_MS = 500;
export const VISIBLE_MAX_MS = 2_000;
export const HIDDEN_MAX_MS = 30_000;

/**
 * @param attempt 0 for the first retry after a drop.
 * @param random a number in [0, 1), injectable for tests.
 */
export function reconnectDelay(attempt: number, visible: boolean, random: number): number {
  const max = visible ? VISIBLE_MAX_MS : HIDDEN_MAX_MS;
  const base = Math.min(max, VISIBLE_MIN_MS * 2 ** Math.max(0, Math.min(attempt, 16)));
  // +-20 % around the base: enough to spread a herd, small enough to keep the 0.5 s promise.
  return Math.round(base * (0.8 + 0.4 * random));
}
