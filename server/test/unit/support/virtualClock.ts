/**
 * Timers and Date on a virtual clock while sockets stay real: between steps of STEP_MS the clock
 * stands still and real I/O (connects, refusals, bytes, resets on loopback) runs for a few turns
 * of the event loop. A deadline, a poll cadence or a back-off then fires when the virtual clock
 * reaches it, whatever else loads the machine (unit files run in parallel): what is counted per
 * virtual second is exact, where a wall-clock budget counts how much CPU the machine lent.
 */
import { vi } from 'vitest';

export const STEP_MS = 10;

/** Loopback I/O completes within a few turns of the event loop, however slow each turn is. */
async function realTurns(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((r) => setImmediate(r));
}

/** Fakes timers (and, with `date`, Date) from now on; undo with vi.useRealTimers(). */
export function useVirtualClock({ date = false } = {}): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', ...(date ? (['Date'] as const) : [])] });
}

/** Moves the virtual clock `ms` forward in steps, letting real I/O run between them. */
export async function advanceVirtual(ms: number): Promise<void> {
  for (let at = 0; at < ms; at += STEP_MS) {
    await realTurns();
    await vi.advanceTimersByTimeAsync(Math.min(STEP_MS, ms - at));
  }
  await realTurns();
}

/**
 * Runs `fn` on the virtual clock (Date included: a stall-aware deadline compares the two) to its
 * end; returns its value and the virtual time it took.
 */
export async function onVirtualClock<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  useVirtualClock({ date: true });
  try {
    let outcome: { value: T } | null = null;
    const running = fn().then((value) => (outcome = { value }));
    let ms = 0;
    while (outcome === null) {
      await realTurns();
      if (outcome !== null) break;
      if (ms >= 60_000) throw new Error('still running after 60 s of virtual time');
      await vi.advanceTimersByTimeAsync(STEP_MS);
      ms += STEP_MS;
    }
    await running;
    return { value: (outcome as { value: T }).value, ms };
  } finally {
    vi.useRealTimers();
  }
}
