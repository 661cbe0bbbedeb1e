/**
 * Flushes every outbox that is due in one pass per turn of the event loop, so that an event
 * broadcast to a thousand sockets leaves in one pass where the frames that are the same for
 * several sockets are built once (FlushPass) and their bytes shared. Outboxes ask to be flushed
 * "soon" (this turn's pass) or at a time; timers due at the same millisecond share one timer and
 * one pass.
 */
import type { Frame } from './sharedEvent.js';

export interface Flushable {
  flush(pass: FlushPass): void;
}

/** What one pass shares between the outboxes it flushes: frames of several events, by the events they hold. */
export class FlushPass {
  private readonly frames = new Map<string, Frame>();

  get(key: string): Frame | undefined {
    return this.frames.get(key);
  }

  set(key: string, frame: Frame): void {
    this.frames.set(key, frame);
  }
}

export class FlushScheduler {
  private readonly due = new Set<Flushable>();
  private immediate: NodeJS.Immediate | null = null;
  private readonly timers = new Map<number, { timer: NodeJS.Timeout; outboxes: Set<Flushable> }>();

  /** Flushes `outbox` in this turn's pass. */
  soon(outbox: Flushable): void {
    this.due.add(outbox);
    this.immediate ??= setImmediate(() => this.run());
  }

  /** Flushes `outbox` at `dueAt` (ms since the epoch), together with every other outbox due then. */
  at(outbox: Flushable, dueAt: number): void {
    let slot = this.timers.get(dueAt);
    if (!slot) {
      const outboxes = new Set<Flushable>();
      const timer = setTimeout(
        () => {
          this.timers.delete(dueAt);
          for (const o of outboxes) this.due.add(o);
          this.run();
        },
        Math.max(0, dueAt - Date.now()),
      );
      slot = { timer, outboxes };
      this.timers.set(dueAt, slot);
    }
    slot.outboxes.add(outbox);
  }

  /** Forgets a timed flush (the outbox was flushed sooner, or closed). */
  cancel(outbox: Flushable, dueAt: number): void {
    const slot = this.timers.get(dueAt);
    if (!slot) return;
    slot.outboxes.delete(outbox);
    if (slot.outboxes.size > 0) return;
    clearTimeout(slot.timer);
    this.timers.delete(dueAt);
  }

  /** Drops `outbox` from this turn's pass (it closed). */
  forget(outbox: Flushable): void {
    this.due.delete(outbox);
  }

  private run(): void {
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = null;
    if (this.due.size === 0) return;
    const pass = new FlushPass();
    const outboxes = [...this.due];
    this.due.clear();
    for (const outbox of outboxes) outbox.flush(pass);
  }
}
