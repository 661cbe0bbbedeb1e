/**
 * Caps requests in flight to one ensemble. Callers beyond the cap wait in a FIFO queue,
 * and give up when their own deadline passes, so a burst from many browsers turns into
 * a bounded trickle to ZooKeeper instead of a herd.
 */
import { ZkError } from './errors.js';

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

export class RequestLimiter {
  private inFlight = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly maxInFlight: number,
    /** Beyond this many waiting, refuse at once: the ensemble is not keeping up. */
    readonly maxQueued: number,
  ) {}

  get outstanding(): number {
    return this.inFlight;
  }

  get queued(): number {
    return this.queue.length;
  }

  async run<T>(deadlineAt: number, task: () => Promise<T>): Promise<T> {
    await this.acquire(deadlineAt);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(deadlineAt: number): Promise<void> {
    if (this.inFlight < this.maxInFlight) {
      this.inFlight++;
      return Promise.resolve();
    }
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(new ZkError('OVERLOADED', `${this.queue.length} requests already waiting for this ensemble`));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          this.inFlight++;
          resolve();
        },
        timer: setTimeout(
          () => {
            const i = this.queue.indexOf(waiter);
            if (i >= 0) this.queue.splice(i, 1);
            reject(new ZkError('DEADLINE_EXCEEDED', 'deadline passed while waiting for a free request slot'));
          },
          Math.max(0, deadlineAt - Date.now()),
        ),
      };
      this.queue.push(waiter);
    });
  }

  private release(): void {
    this.inFlight--;
    const next = this.queue.shift();
    if (next) next.grant();
  }
}
