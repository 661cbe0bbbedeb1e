/**
 * A deadline that Keeper's own stall does not spend. When Keeper's process is frozen (SIGSTOP, a
 * long GC pause, a blocked event loop) with a request out, the member's answer waits unread in
 * the socket; on waking, Node runs due timers before it reads sockets, so a plain timeout would
 * call a member that answered in 3 ms "no answer within 2 s". So a deadline that fires late by
 * more than `slackMs` (the event loop's own lateness) gives the member `graceMs` of Keeper's
 * running time first, in which the waiting answer is read; only a deadline that fires on time
 * expires.
 */
export interface StallAwareDeadline {
  clear(): void;
}

export const STALL_SLACK_MS = 500;

export function stallAwareDeadline(onExpire: () => void, ms: number, slackMs = STALL_SLACK_MS): StallAwareDeadline {
  const graceMs = Math.min(ms, 1_000);
  let timer: NodeJS.Timeout;
  const arm = (delayMs: number) => {
    const dueAt = Date.now() + delayMs;
    timer = setTimeout(() => {
      if (Date.now() - dueAt > slackMs) arm(graceMs);
      else onExpire();
    }, delayMs);
  };
  arm(ms);
  return { clear: () => clearTimeout(timer) };
}
