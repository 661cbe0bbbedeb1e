/**
 * Long operations (recursive delete, import) run as jobs: a snapshot anyone can poll
 * (GET /api/jobs/<id>), progress pushed to admins' sockets (throttled: at most one update per
 * job every UPDATE_INTERVAL_MS, plus the final one), and cancellation that the job honours
 * between nodes.
 */
import { EventEmitter } from 'node:events';
import type { JobSnapshot } from '@keeper/shared';
import { randomToken } from '../auth/secrets.js';
import { OpError } from './opError.js';

const UPDATE_INTERVAL_MS = 100;
const KEEP_FINISHED = 200;

export interface JobControl {
  readonly snapshot: JobSnapshot;
  /** True once cancellation was asked for: stop taking new work. */
  readonly cancelled: boolean;
  /** Settles once cancellation was asked for. */
  readonly whenCancelled: Promise<void>;
  progress(change: Partial<Pick<JobSnapshot, 'done' | 'total' | 'current' | 'summary'>>): void;
}

type JobRun = (control: JobControl) => Promise<Partial<JobSnapshot> & Pick<JobSnapshot, 'state'>>;

interface JobEvents {
  update: [snapshot: JobSnapshot];
}

class Job implements JobControl {
  snapshot: JobSnapshot;
  cancelled = false;
  private cancel!: () => void;
  readonly whenCancelled = new Promise<void>((resolve) => (this.cancel = resolve));
  private timer: NodeJS.Timeout | null = null;
  private lastEmit = 0;
  finished: Promise<void> = Promise.resolve();

  constructor(
    init: Pick<JobSnapshot, 'kind' | 'ensemble' | 'path' | 'startedBy'>,
    private readonly emit: (snapshot: JobSnapshot) => void,
  ) {
    this.snapshot = { id: randomToken(9), ...init, state: 'running', done: 0, total: 0, current: null, startedAt: Date.now(), cancelRequested: false };
  }

  progress(change: Partial<Pick<JobSnapshot, 'done' | 'total' | 'current' | 'summary'>>): void {
    this.snapshot = { ...this.snapshot, ...change };
    this.schedule();
  }

  finish(result: Partial<JobSnapshot>): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.snapshot = { ...this.snapshot, ...result, current: null, finishedAt: Date.now() };
    this.emit(this.snapshot);
  }

  requestCancel(): void {
    this.cancelled = true;
    this.cancel();
    this.snapshot = { ...this.snapshot, cancelRequested: true };
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, UPDATE_INTERVAL_MS - (Date.now() - this.lastEmit));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.lastEmit = Date.now();
      if (this.snapshot.state === 'running') this.emit(this.snapshot);
    }, wait);
  }
}

export class JobRegistry extends EventEmitter<JobEvents> {
  private readonly jobs = new Map<string, Job>();

  start(
    init: Pick<JobSnapshot, 'kind' | 'ensemble' | 'path' | 'startedBy'>,
    run: JobRun,
    onFinished?: (snapshot: JobSnapshot) => void | Promise<void>,
  ): JobSnapshot {
    const job = new Job(init, (snapshot) => this.emit('update', snapshot));
    this.jobs.set(job.snapshot.id, job);
    this.prune();
    job.finished = (async () => {
      try {
        job.finish(await run(job));
      } catch (error) {
        const e = error instanceof OpError ? error : new OpError('INTERNAL', error instanceof Error ? error.message : String(error));
        job.finish({ state: 'failed', error: { code: e.code, message: e.message } });
      }
      await onFinished?.(job.snapshot);
    })();
    this.emit('update', job.snapshot);
    return job.snapshot;
  }

  get(id: string): JobSnapshot | null {
    return this.jobs.get(id)?.snapshot ?? null;
  }

  list(): JobSnapshot[] {
    return [...this.jobs.values()].map((j) => j.snapshot).reverse();
  }

  /** Asks a running job to stop; it reports what remains when it has. */
  cancel(id: string): JobSnapshot {
    const job = this.jobs.get(id);
    if (!job) throw new OpError('UNKNOWN_JOB', `no job ${JSON.stringify(id)}`);
    if (job.snapshot.state !== 'running') throw new OpError('JOB_FINISHED', `job ${id} already ended (${job.snapshot.state})`);
    job.requestCancel();
    return job.snapshot;
  }

  /** Waits for a job to end (tests, shutdown). */
  async settled(id: string): Promise<JobSnapshot | null> {
    const job = this.jobs.get(id);
    if (!job) return null;
    await job.finished;
    return job.snapshot;
  }

  /** Cancels running jobs and waits for them to report, at most `graceMs` (shutdown must not hang on a dead ensemble). */
  async close(graceMs = 5_000): Promise<void> {
    for (const job of this.jobs.values()) if (job.snapshot.state === 'running') job.requestCancel();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.jobs.values()].map((j) => j.finished)), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
  }

  private prune(): void {
    const finished = [...this.jobs.values()].filter((j) => j.snapshot.state !== 'running');
    for (const job of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(job.snapshot.id);
  }
}
