/**
 * The replica running a shared upgrade stores each change of its workflow in the home ensemble,
 * one compare-and-set after the other at the version it last wrote (sharedWorkflows.ts). Changes
 * made while a write is under way are coalesced: only the newest is written next (each state
 * holds everything before it). A write that could not be sent or answered is tried again, with
 * jittered backoff, until it is stored or another replica is found to have written first; then
 * the writer stops and every change still waiting is said not stored, so the restart it carried
 * is never run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { backoffDelay, type Backoff, type UpgradeWorkflow } from '@keeper/shared';
import type { WriteOutcome } from './sharedWorkflows.js';

const RETRY: Backoff = { baseMs: 200, capMs: 5_000, jitter: [0.5, 1] };

/**
 * What `stored` says once it settles, or null when `waitMs` passes first: an answer to a user waits
 * for the write so long and no longer, while the writer goes on retrying. The timer goes with the
 * answer (a wait that ended early leaves nothing pending).
 */
export async function storedWithin(stored: Promise<boolean>, waitMs: number): Promise<boolean | null> {
  const done = new AbortController();
  try {
    return await Promise.race([stored, sleep(waitMs, null, { signal: done.signal })]);
  } finally {
    done.abort();
  }
}

/** Any record with an id (an upgrade workflow; a lock scan's record, locks/lockScans.ts). */
export class WorkflowWriter<T extends { id: string } = UpgradeWorkflow> {
  private pending: T | null = null;
  private waiters: ((stored: boolean) => void)[] = [];
  private writing = false;
  private stopped = false;

  constructor(
    /** The version stored now; null before the workflow's first write (it is created then). */
    private version: number | null,
    private readonly write: (wf: T, version: number | null) => Promise<WriteOutcome>,
    private readonly events: { stored(version: number): void; conflict(): void },
    private readonly log: Logger,
    /** What the log calls the record. */
    private readonly what: 'upgrade' | 'scan' = 'upgrade',
  ) {}

  /** True while a write is under way or waiting. */
  get busy(): boolean {
    return this.writing || this.pending !== null;
  }

  get storedVersion(): number | null {
    return this.version;
  }

  /** Resolves true once this state (or a later one) is stored; false when another replica wrote first, or the writer stopped. */
  submit(wf: T): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    this.pending = wf;
    const stored = new Promise<boolean>((resolve) => this.waiters.push(resolve));
    if (!this.writing) void this.drain();
    return stored;
  }

  /** Nothing more is written; what waits is said not stored. */
  stop(): void {
    this.stopped = true;
    this.pending = null;
    for (const resolve of this.waiters.splice(0)) resolve(false);
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      for (let attempt = 0; this.pending !== null && !this.stopped;) {
        const wf = this.pending;
        const waiting = this.waiters.splice(0);
        this.pending = null;
        let outcome: WriteOutcome;
        try {
          outcome = await this.write(wf, this.version);
        } catch (error) {
          // Not known to be stored: written again (the newest state, if one came meanwhile).
          this.pending ??= wf;
          this.waiters.unshift(...waiting);
          if (attempt === 0 || attempt % 10 === 0)
            this.log.warn({ err: error, [this.what]: wf.id }, `${this.what} state not stored in the home ensemble yet: retrying`);
          await sleep(backoffDelay(attempt++, RETRY));
          continue;
        }
        attempt = 0;
        if (!outcome.ok) {
          for (const resolve of waiting) resolve(false);
          this.stop();
          this.events.conflict();
          return;
        }
        this.version = outcome.version;
        for (const resolve of waiting) resolve(true);
        this.events.stored(outcome.version);
      }
    } finally {
      this.writing = false;
      if (this.stopped) for (const resolve of this.waiters.splice(0)) resolve(false);
    }
  }
}
