/**
 * Scans for lock directories as admin jobs: one at a time per ensemble (a second is refused
 * with SCAN_IN_PROGRESS, whoever asks), progress on the `jobs` topic like any long operation,
 * cancellable, audited at its start and end. What a scan finds is tracked (watched live) up to
 * the tracker's bound; the last scan's summary is shown in the Locks list.
 */
import { LOCK_DEFAULTS, type JobSnapshot } from '@keeper/shared';
import type { Admin, Caller } from '../admin/admin.js';
import { OpError } from '../admin/opError.js';
import type { Ensemble } from '../ensemble/ensemble.js';
import { TooManyLocksError } from './lockTracker.js';
import { scanForLocks, type ScanResult } from './scan.js';

/** One ensemble's lock scans (`Ensemble.lockScans`): at most one runs at a time. */
export class LockScans {
  private running = false;

  constructor(
    private readonly admin: Admin,
    private readonly ensemble: Ensemble,
  ) {}

  async start(caller: Caller, root: string): Promise<JobSnapshot> {
    const { name: ensembleName, locks, gateway } = this.ensemble;
    const config = this.ensemble.config.locks;
    return this.admin.audited(caller, { action: 'lock.scan', ensemble: ensembleName, path: root, details: { phase: 'start' } }, async (record) => {
      if (this.running) throw new OpError('SCAN_IN_PROGRESS', `a lock scan of ${ensembleName} is running already: wait for it or cancel it`);
      if (!(await gateway.exists(root))) throw new OpError('NO_NODE', `${root} does not exist`);
      this.running = true;
      const notTracked: string[] = [];
      const siblingsOf = new Map<string, readonly string[] | null>();
      const job = this.admin.jobs.start({ kind: 'lockScan', ensemble: ensembleName, path: root, startedBy: caller.identity.name }, async (control) => {
        const startedAt = Date.now();
        locks.lastScan = {
          path: root,
          jobId: control.snapshot.id,
          state: 'running',
          startedAt,
          finishedAt: null,
          visited: 0,
          found: 0,
          requests: 0,
          skipped: [],
          skippedTotal: 0,
        };
        let result: ScanResult | null = null;
        const summary = (r: { visited: number; found: number; requests: number; skippedTotal?: number }) => ({
          visited: r.visited,
          found: r.found,
          requests: r.requests,
          skipped: r.skippedTotal ?? 0,
          notTracked: notTracked.length,
        });
        try {
          result = await scanForLocks({
            root,
            reader: gateway,
            isLockDirectory: (path, children, siblings) => {
              const found = locks.recognizeWith(path, children, siblings);
              if (found) siblingsOf.set(path, siblings);
              return found;
            },
            budget: {
              maxRequests: config?.scanMaxRequests ?? LOCK_DEFAULTS.scanMaxRequests,
              deadlineMs: config?.scanDeadlineMs ?? LOCK_DEFAULTS.scanDeadlineMs,
              maxChildrenDescended: config?.scanMaxChildrenDescended ?? LOCK_DEFAULTS.scanMaxChildrenDescended,
            },
            cancelled: () => control.cancelled,
            onProgress: (p) => control.progress({ done: p.visited, total: p.visited + p.queued, current: p.current, summary: summary(p) }),
            onFound: (path) => {
              try {
                locks.track(path, 'scan', siblingsOf.get(path) ?? null);
                siblingsOf.delete(path);
              } catch (error) {
                if (error instanceof TooManyLocksError) notTracked.push(path);
                else throw error;
              }
            },
          });
          return {
            state: result.state === 'cancelled' ? 'cancelled' : 'done',
            done: result.visited,
            total: result.visited,
            summary: summary({ ...result, found: result.found.length }),
            ...(result.state === 'deadline' || result.state === 'budget'
              ? {
                  error: {
                    code: result.state === 'deadline' ? 'SCAN_DEADLINE' : 'SCAN_BUDGET',
                    message: `stopped at its ${result.state}: ${result.skippedTotal} paths not visited`,
                  },
                }
              : {}),
          };
        } finally {
          this.running = false;
          locks.lastScan = {
            path: root,
            jobId: control.snapshot.id,
            state: result === null ? 'failed' : result.state === 'cancelled' ? 'cancelled' : 'done',
            startedAt,
            finishedAt: Date.now(),
            visited: result?.visited ?? 0,
            found: result?.found.length ?? 0,
            requests: result?.requests ?? 0,
            skipped: [
              ...(result?.skipped ?? []),
              ...notTracked.slice(0, 20).map((path) => ({ path, reason: `found, not watched: Keeper watches ${locks.maxTracked} lock directories at most` })),
            ],
            skippedTotal: (result?.skippedTotal ?? 0) + notTracked.length,
          };
        }
      });
      record.details = { ...record.details, jobId: job.id };
      return job;
    });
  }
}
