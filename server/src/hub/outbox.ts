/**
 * Per-browser batching of server events (the tldraw pattern): after a quiet spell the
 * first event goes out at once (next tick, so a synchronous burst still shares a frame);
 * while busy, events are flushed together every `intervalMs`. An event whose topic gives it a
 * coalescing key replaces an unsent earlier one of the same subscription and key: only the
 * current state matters. An event its topic calls not urgent (a bare watch notification) waits
 * for the next flush: the new state it announces follows a read later, and must not be held
 * back by a flush the bare notification used up.
 */
import { subscriptionKey, topicDeclaration, type ServerEvent } from '@keeper/shared';

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
    this.schedule(topicDeclaration(event.topic).urgent?.(event.event) ?? true);
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
  const key = topicDeclaration(event.topic).coalesceKey(event.event);
  return key === null ? null : `${subscriptionKey(event.topic, event.ensemble, event.params)}\u0000${key}`;
}
