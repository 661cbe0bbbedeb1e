/**
 * Per-browser batching of server events (the tldraw pattern): after a quiet spell the
 * first event goes out at once (next tick, so a synchronous burst still shares a frame);
 * while busy, events are flushed together every `intervalMs`. The latest `znode` and
 * `session` event for the same key replaces an unsent earlier one: only the current state matters.
 * A `watchEvent` is never urgent on its own: the new state it announces follows a read
 * later, and must not be held back by a flush the bare notification used up.
 */
import type { ServerEvent } from '@keeper/shared';

export class Outbox {
  private events: ServerEvent[] = [];
  private replaceable = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private timerDueAt = 0;
  private immediate: NodeJS.Immediate | null = null;
  private lastFlushAt = 0;

  constructor(
    private readonly flush: (events: ServerEvent[]) => void,
    private readonly intervalMs = 25,
  ) {}

  push(event: ServerEvent): void {
    const key = replaceKey(event);
    if (key !== null) {
      const index = this.replaceable.get(key);
      if (index !== undefined) {
        this.events[index] = event;
        return;
      }
      this.replaceable.set(key, this.events.length);
    }
    this.events.push(event);
    this.schedule(event.type !== 'watchEvent');
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
    this.events = [];
    this.replaceable.clear();
  }

  private schedule(urgent: boolean): void {
    if (this.immediate) return;
    const now = Date.now();
    const wait = Math.max(0, this.intervalMs - (now - this.lastFlushAt));
    if (urgent && wait === 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.immediate = setImmediate(() => this.drain());
      return;
    }
    // A lone watchEvent waits at most one interval; an urgent event may pull a timer earlier.
    const dueAt = now + (urgent ? wait : this.intervalMs);
    if (this.timer && this.timerDueAt <= dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => this.drain(), dueAt - now);
  }

  private drain(): void {
    this.timer = null;
    this.immediate = null;
    if (this.events.length === 0) return;
    const events = this.events;
    this.events = [];
    this.replaceable.clear();
    this.lastFlushAt = Date.now();
    this.flush(events);
  }
}

function replaceKey(event: ServerEvent): string | null {
  switch (event.type) {
    case 'znode':
      return `znode\0${event.ensemble}\0${event.path}`;
    case 'session':
      return `session\0${event.ensemble}`;
    case 'ensembleHealth':
      return `health\0${event.ensemble}`;
    case 'job':
      // Only the latest progress of a job matters.
      return `job\0${event.job.id}`;
    case 'memberHistory':
    case 'children':
    case 'watchEvent':
    case 'subscriptionError':
      return null;
    default: {
      const never: never = event;
      return never;
    }
  }
}
