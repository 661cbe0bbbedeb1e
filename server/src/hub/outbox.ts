/**
 * One socket's queue of events (the tldraw pattern for timing): after a quiet spell the first
 * event goes out at once (this turn's flush, so a synchronous burst still shares a frame); while
 * busy, events are flushed together every `intervalMs`. An event whose topic gives it a
 * coalescing key replaces an unsent earlier one of the same subscription and key: only the
 * current state matters. An event its topic calls not urgent (a bare watch notification) waits
 * for the next flush: the new state it announces follows a read later.
 *
 * The queue holds shared events (serialized once for every socket), never copies. A flush sends
 * what the socket has room for and keeps the rest; if the socket falls so far behind that the
 * queue passes its bounds, everything queued is dropped and nothing more is queued until the
 * socket has drained: then it is told to resync (its page subscribes again and gets the current
 * state). The pages of a child list wait without counting: the producer keeps them anyway.
 */
import type { SharedEvent } from './sharedEvent.js';
import { FlushScheduler, type Flushable, type FlushPass } from './flushScheduler.js';

export interface OutboxSink {
  /** Sends queued events in order, from `from`, as far as the socket has room; returns the index of the first one not sent. */
  send(queue: readonly SharedEvent[], from: number, pass: FlushPass): number;
  /** Tells the browser to resync (`since`: when the first event was dropped), if the socket has drained enough; false to be asked again later. */
  resync(since: number): boolean;
}

export interface OutboxBounds {
  /** Bytes of queued events (pages of child lists aside) past which the socket is behind. */
  maxQueuedBytes: number;
  /** Queued events past which the socket is behind. */
  maxQueuedEvents: number;
}

/** Events queued for one socket past which it is behind, whatever their size. */
export const MAX_QUEUED_EVENTS = 20_000;

const UNBOUNDED: OutboxBounds = { maxQueuedBytes: Number.POSITIVE_INFINITY, maxQueuedEvents: Number.POSITIVE_INFINITY };

export class Outbox implements Flushable {
  private queue: SharedEvent[] = [];
  private replaceable = new Map<string, number>();
  private queuedBytes = 0;
  private dueSoon = false;
  private timerDueAt: number | null = null;
  private lastFlushAt = 0;
  /** The socket had no room for the rest: wait for wake(). */
  private blocked = false;
  private behind = false;
  private behindSince = 0;
  private closed = false;
  /** Times the socket fell behind and dropped its queue. */
  dropped = 0;

  constructor(
    private readonly sink: OutboxSink,
    private readonly intervalMs = 25,
    private readonly scheduler = new FlushScheduler(),
    private readonly bounds: OutboxBounds = UNBOUNDED,
  ) {}

  get length(): number {
    return this.queue.length;
  }

  /** True while events are being dropped until the browser is told to resync. */
  get isBehind(): boolean {
    return this.behind;
  }

  push(event: SharedEvent): void {
    if (this.closed || this.behind) return;
    const key = event.replaceKey;
    if (key !== null) {
      const index = this.replaceable.get(key);
      if (index !== undefined) {
        this.queuedBytes += this.weight(event) - this.weight(this.queue[index] as SharedEvent);
        this.queue[index] = event;
        this.checkBounds();
        return;
      }
      this.replaceable.set(key, this.queue.length);
    }
    this.queue.push(event);
    this.queuedBytes += this.weight(event);
    if (this.checkBounds()) this.schedule(event.urgent);
  }

  /** The socket has room again. */
  wake(): void {
    if (this.closed || !this.blocked) return;
    this.blocked = false;
    this.flushSoon();
  }

  /** Drops what is queued and everything until the browser is told to resync. */
  fallBehind(): void {
    if (this.closed || this.behind) return;
    this.behind = true;
    this.behindSince = Date.now();
    this.dropped++;
    this.clearQueue();
    this.flushSoon();
  }

  close(): void {
    this.closed = true;
    this.cancelTimer();
    this.scheduler.forget(this);
    this.clearQueue();
  }

  flush(pass: FlushPass): void {
    this.dueSoon = false;
    this.cancelTimer();
    if (this.closed) return;
    this.lastFlushAt = Date.now();
    if (this.behind) {
      if (this.sink.resync(this.behindSince)) this.behind = false;
      else this.blocked = true;
      return;
    }
    if (this.queue.length === 0) return;
    const sent = this.sink.send(this.queue, 0, pass);
    if (sent >= this.queue.length) {
      this.clearQueue();
      return;
    }
    this.blocked = true;
    if (sent > 0) this.dropFirst(sent);
  }

  private weight(event: SharedEvent): number {
    return event.streamed ? 0 : event.bytes;
  }

  /** False when the push made the socket fall behind. */
  private checkBounds(): boolean {
    if (this.queuedBytes <= this.bounds.maxQueuedBytes && this.queue.length <= this.bounds.maxQueuedEvents) return true;
    this.fallBehind();
    return false;
  }

  private dropFirst(n: number): void {
    this.queue = this.queue.slice(n);
    this.replaceable.clear();
    this.queuedBytes = 0;
    this.queue.forEach((event, i) => {
      if (event.replaceKey !== null) this.replaceable.set(event.replaceKey, i);
      this.queuedBytes += this.weight(event);
    });
  }

  private clearQueue(): void {
    this.queue = [];
    this.replaceable.clear();
    this.queuedBytes = 0;
  }

  private schedule(urgent: boolean): void {
    if (this.dueSoon || this.blocked) return;
    const now = Date.now();
    const wait = Math.max(0, this.intervalMs - (now - this.lastFlushAt));
    if (urgent && wait === 0) {
      this.flushSoon();
      return;
    }
    // A lone watchEvent waits at most one interval; an urgent event may pull a timer earlier.
    const dueAt = now + (urgent ? wait : this.intervalMs);
    if (this.timerDueAt !== null && this.timerDueAt <= dueAt) return;
    this.cancelTimer();
    this.timerDueAt = dueAt;
    this.scheduler.at(this, dueAt);
  }

  private flushSoon(): void {
    if (this.dueSoon) return;
    this.cancelTimer();
    this.dueSoon = true;
    this.scheduler.soon(this);
  }

  private cancelTimer(): void {
    if (this.timerDueAt === null) return;
    this.scheduler.cancel(this, this.timerDueAt);
    this.timerDueAt = null;
  }
}
