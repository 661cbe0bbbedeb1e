/**
 * Writes one socket's frames, counting each against the socket's budget and the hub's before it
 * is built or sent: a frame that does not fit waits in the outbox (no copy is made), and the
 * socket's writes free room as they complete. Small events go out batched, at most
 * MAX_BATCH_FRAME_BYTES a frame, the same batch built once per flush pass for every socket that
 * sends it; an event of SOLO_FRAME_BYTES or more goes alone, in a frame built once for good.
 */
import type { SocketLike } from './socketLike.js';
import type { OutboxSink } from './outbox.js';
import type { FlushPass } from './flushScheduler.js';
import { Frame, batchFrame, type SharedEvent } from './sharedEvent.js';

/** Frames of batched events are cut at about this size. */
export const MAX_BATCH_FRAME_BYTES = 1024 * 1024;
/** Events this big or bigger go alone in a frame, whose bytes every socket shares. */
export const SOLO_FRAME_BYTES = 64 * 1024;

const RESYNC_REASON = 'Keeper could not send this page every change in time (it fell behind): subscribe again for the current state';

/**
 * Unsent bytes across every socket: a frame shared by many sockets counts once, until the last
 * of them has written it out. Writers refused for the total wait here to be woken when it drops.
 */
export class FrameLedger {
  total = 0;
  private readonly waiting = new Set<FrameWriter>();

  constructor(readonly max: number) {}

  allows(size: number): boolean {
    return this.total + size <= this.max;
  }

  hold(frame: Frame): void {
    if (frame.holders++ === 0) this.total += frame.size;
  }

  release(frame: Frame): void {
    if (--frame.holders > 0) return;
    this.total -= frame.size;
    if (this.waiting.size === 0) return;
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const writer of waiting) writer.roomMade();
  }

  waitFor(writer: FrameWriter): void {
    this.waiting.add(writer);
  }

  forget(writer: FrameWriter): void {
    this.waiting.delete(writer);
  }
}

export class FrameWriter implements OutboxSink {
  /** Bytes handed to the socket and not yet written out by it. */
  unsent = 0;
  /** When the socket last wrote something out (or started holding bytes). */
  lastProgressAt = Date.now();
  /** When a frame was last handed to the socket. */
  lastSentAt = 0;
  private readonly inflight: Frame[] = [];
  /** Size of the frame that did not fit, while one waits. */
  private needed = 0;
  private ended = false;

  constructor(
    private readonly socket: SocketLike,
    private readonly ledger: FrameLedger,
    private readonly maxBufferedBytes: number,
    /** Called when a frame that did not fit may fit now. */
    private readonly onRoom: () => void,
    /** Called with the events of each frame as it is handed to the socket (keeper_push_seconds). */
    private readonly onSent?: (events: readonly SharedEvent[]) => void,
  ) {}

  send(queue: readonly SharedEvent[], from: number, pass: FlushPass): number {
    if (this.ended || this.socket.readyState !== this.socket.OPEN) return queue.length;
    let i = from;
    while (i < queue.length) {
      const first = queue[i] as SharedEvent;
      if (first.bytes >= SOLO_FRAME_BYTES) {
        if (!this.fits(first.soloSize, first)) break;
        this.write(first.soloFrame());
        this.onSent?.([first]);
        i++;
        continue;
      }
      let end = i + 1;
      let size = first.soloSize;
      while (end < queue.length) {
        const next = queue[end] as SharedEvent;
        if (next.bytes >= SOLO_FRAME_BYTES || size + next.bytes + 1 > MAX_BATCH_FRAME_BYTES) break;
        size += next.bytes + 1;
        end++;
      }
      if (end === i + 1) {
        // One small event: its own frame, shared with every socket that sends it alone, in any pass.
        if (!this.fits(size, first)) break;
        this.write(first.soloFrame());
        this.onSent?.([first]);
      } else {
        const run = queue.slice(i, end);
        const key = run.map((e) => e.id).join(',');
        const known = pass.get(key);
        if (!this.fits(size, null, known)) break;
        const frame = known ?? batchFrame(run);
        if (!known) pass.set(key, frame);
        this.write(frame);
        this.onSent?.(run);
      }
      i = end;
    }
    return i;
  }

  resync(since: number): boolean {
    if (this.unsent > this.maxBufferedBytes / 2) {
      this.needed = this.maxBufferedBytes / 2;
      return false;
    }
    return this.control(JSON.stringify({ type: 'resync', reason: RESYNC_REASON, since }));
  }

  /**
   * A message outside the batches (welcome, ack, error, pong): sent unless the socket already
   * holds its whole budget unsent (it is not reading; the stall check will close it).
   */
  control(text: string): boolean {
    if (this.ended || this.socket.readyState !== this.socket.OPEN) return false;
    if (this.unsent > this.maxBufferedBytes) return false;
    this.write(new Frame(Buffer.from(text)));
    return true;
  }

  /** The hub's total dropped: try again. */
  roomMade(): void {
    if (this.ended || this.needed === 0) return;
    this.needed = 0;
    this.onRoom();
  }

  /** Stops writing and gives back what this socket held of the hub's total. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.ledger.forget(this);
    for (const frame of this.inflight.splice(0)) this.ledger.release(frame);
    this.unsent = 0;
  }

  /** Whether `size` more bytes fit this socket's budget and the hub's (a frame others already hold costs the hub nothing more). */
  private fits(size: number, event: SharedEvent | null, known?: Frame): boolean {
    if (this.unsent + size > this.maxBufferedBytes) {
      this.needed = size;
      return false;
    }
    const held = (known?.holders ?? 0) > 0 || (event !== null && event.soloHolders() > 0);
    if (held || this.ledger.allows(size)) return true;
    this.needed = size;
    this.ledger.waitFor(this);
    return false;
  }

  private write(frame: Frame): void {
    const now = Date.now();
    if (this.unsent === 0) this.lastProgressAt = now;
    this.lastSentAt = now;
    this.ledger.hold(frame);
    this.inflight.push(frame);
    this.unsent += frame.size;
    this.socket.send(frame.bytes, { binary: false }, () => this.written(frame));
  }

  private written(frame: Frame): void {
    if (this.ended) return;
    const index = this.inflight.indexOf(frame);
    if (index < 0) return;
    this.inflight.splice(index, 1);
    this.ledger.release(frame);
    this.unsent -= frame.size;
    this.lastProgressAt = Date.now();
    if (this.needed > 0 && this.unsent + this.needed <= this.maxBufferedBytes) {
      this.needed = 0;
      this.onRoom();
    }
  }
}
