/**
 * Scans for lock directories as admin jobs: one at a time per ensemble (a second is refused
 * with SCAN_IN_PROGRESS, whoever asks), progress on the `jobs` topic like any long operation,
 * cancellable, audited at its start. What a scan finds is tracked (watched live) up to the
 * tracker's bound; the last scan's summary is shown in the Locks list, and the last
 * LOCK_SCANS_KEPT are listed by GET .../lock-scans.
 *
 * With replicas (docs/replicas.md) a scan's record lives in the home ensemble (sharedScans.ts):
 * one scan at a time across replicas (an owner znode), its progress stored about once a second
 * by compare-and-set, every replica showing the newest scan and tracking what finished scans
 * found. When the running replica's session ends, another takes the scan over and scans again
 * from the start, saying so in the record; the dead replica's partial counts are set aside.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import {
  backoffDelay,
  isScanFinished,
  LOCK_DEFAULTS,
  LOCK_SCANS_KEPT,
  lastScanOf,
  recordScanHandover,
  type Backoff,
  type JobSnapshot,
  type LockScanRecord,
} from '@keeper/shared';
import type { Admin, Caller } from '../admin/admin.js';
import { OpError } from '../admin/opError.js';
import { randomToken } from '../auth/secrets.js';
import type { Ensemble } from '../ensemble/ensemble.js';
import { WorkflowWriter } from '../upgrades/workflowWriter.js';
import { TooManyLocksError } from './lockTracker.js';
import { scanForLocks, type ScanResult } from './scan.js';
import type { SharedScans, StoredScan } from './sharedScans.js';

/** A running shared scan's progress is stored at most this often (its start and end always). */
const PROGRESS_WRITE_MS = 1_000;
/** Found paths a record lists in memory; the stored one is cut to its 64 KiB (fitScanRecord). */
const FOUND_LISTED = 5_000;
/** How long a shared scan's end waits for its record to be stored before its job ends anyway. */
const END_WRITE_WAIT_MS = 10_000;
const SHARED_RETRY: Backoff = { baseMs: 500, capMs: 10_000, jitter: [0.5, 1] };

interface Running {
  id: string;
}

/** One ensemble's lock scans (`Ensemble.lockScans`): at most one runs at a time. */
export class LockScans {
  private running: Running | 'starting' | null = null;
  /** A single Keeper's last scans, newest first. */
  private readonly recent: LockScanRecord[] = [];
  private shared: SharedScans | null = null;
  private sharedOpen = false;
  private takingOver = false;
  /** Finished scans of other replicas whose finds this replica tracks already. */
  private readonly adopted = new Set<string>();
  /** Running scans of other replicas seen so far (each once checked for an owner). */
  private readonly seenRunning = new Set<string>();
  private closed = false;

  constructor(
    private readonly admin: Admin,
    private readonly ensemble: Ensemble,
    private readonly log: Logger,
  ) {}

  /** With replicas: the scans live in the home ensemble, opened once the ensemble's identity is known. */
  configure(settings: { shared?: SharedScans }): void {
    this.shared = settings.shared ?? null;
    if (this.shared) void this.openShared(this.shared);
  }

  /** Newest first; with replicas, every replica's. */
  list(): { shared: boolean; scans: LockScanRecord[] } {
    if (this.shared && !this.sharedOpen)
      throw new OpError('NOT_READY', `the lock scans of ${this.ensemble.name} are not read from the home ensemble yet: try again in a few seconds`);
    return { shared: this.shared !== null, scans: this.shared ? this.shared.list() : [...this.recent] };
  }

  close(): void {
    this.closed = true;
    this.shared?.close();
  }

  async start(caller: Caller, root: string): Promise<JobSnapshot> {
    const { name: ensembleName, gateway } = this.ensemble;
    return this.admin.audited(caller, { action: 'lock.scan', ensemble: ensembleName, path: root, details: { phase: 'start' } }, async (record) => {
      if (this.running || this.takingOver) throw new OpError('SCAN_IN_PROGRESS', `a lock scan of ${ensembleName} is running already: wait for it or cancel it`);
      const shared = this.shared;
      if (shared && !this.sharedOpen)
        throw new OpError('NOT_READY', `the lock scans of ${ensembleName} are not read from the home ensemble yet: try again in a few seconds`);
      // One at a time across replicas, a scan whose replica died included (another replica takes it over).
      const other = shared?.list().find((s) => !isScanFinished(s));
      if (other)
        throw new OpError(
          'SCAN_IN_PROGRESS',
          `a lock scan of ${ensembleName} is running on replica ${other.runBy?.name ?? 'another replica'} already: wait for it or cancel it there`,
        );
      this.running = 'starting';
      let claimed: string | null = null;
      try {
        if (!(await gateway.exists(root))) throw new OpError('NO_NODE', `${root} does not exist`);
        const now = Date.now();
        let scan: LockScanRecord = {
          id: randomToken(9),
          ensemble: ensembleName,
          path: root,
          state: 'running',
          startedBy: caller.identity.name,
          startedAt: now,
          finishedAt: null,
          updatedAt: now,
          visited: 0,
          found: 0,
          foundPaths: [],
          requests: 0,
          skipped: [],
          skippedTotal: 0,
          error: null,
          runBy: null,
          handovers: [],
        };
        let version: number | null = null;
        if (shared) {
          const claim = await shared.claim(scan.id);
          if (!claim.won)
            throw new OpError(
              'SCAN_IN_PROGRESS',
              `a lock scan of ${ensembleName} is running on replica ${claim.owner?.name ?? 'another replica'} already: wait for it or cancel it there`,
            );
          claimed = scan.id;
          await shared.prune();
          scan = { ...scan, runBy: { ...shared.self, since: claim.since } };
          const created = await shared.write(scan, null);
          if (!created.ok) throw new OpError('SCAN_IN_PROGRESS', `a lock scan ${scan.id} of ${ensembleName} exists already`);
          version = created.version;
          this.showShared();
        }
        const job = this.run(scan, version);
        record.details = { ...record.details, jobId: job.id, ...(shared ? { scanId: scan.id } : {}) };
        return job;
      } catch (error) {
        if (this.running === 'starting') this.running = null;
        if (shared && claimed) await shared.release(claimed).catch(() => undefined);
        throw error;
      }
    });
  }

  /** Runs `scan` here as a job; with replicas its record is stored as it goes (from `version`). */
  private run(initial: LockScanRecord, version: number | null): JobSnapshot {
    const { name: ensembleName, locks, gateway } = this.ensemble;
    const config = this.ensemble.config.locks;
    const shared = this.shared;
    let lost: string | null = null;
    let current = initial;
    let lastWrite = 0;
    const writer =
      shared && version !== null
        ? new WorkflowWriter<LockScanRecord>(
            version,
            (s, v) => shared.write(s, v),
            { stored: () => this.showShared(), conflict: () => void this.onConflict(current.id, (why) => (lost = why)) },
            this.log,
            'scan',
          )
        : null;
    const store = (next: LockScanRecord, force: boolean): Promise<boolean> | null => {
      current = next;
      if (!writer || lost !== null || (!force && Date.now() - lastWrite < PROGRESS_WRITE_MS)) return null;
      lastWrite = Date.now();
      return writer.submit(next);
    };
    this.running = { id: initial.id };
    const notTracked: string[] = [];
    const foundPaths: string[] = [];
    const siblingsOf = new Map<string, readonly string[] | null>();
    return this.admin.jobs.start({ kind: 'lockScan', ensemble: ensembleName, path: initial.path, startedBy: initial.startedBy }, async (control) => {
      const startedAt = shared ? initial.startedAt : Date.now();
      if (!shared)
        locks.lastScan = {
          path: initial.path,
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
      let outcome: Partial<JobSnapshot> & Pick<JobSnapshot, 'state'> = { state: 'failed' };
      const summary = (r: { visited: number; found: number; requests: number; skippedTotal?: number }) => ({
        visited: r.visited,
        found: r.found,
        requests: r.requests,
        skipped: r.skippedTotal ?? 0,
        notTracked: notTracked.length,
      });
      try {
        result = await scanForLocks({
          root: initial.path,
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
          cancelled: () => control.cancelled || lost !== null,
          onProgress: (p) => {
            control.progress({ done: p.visited, total: p.visited + p.queued, current: p.current, summary: summary(p) });
            void store({ ...current, visited: p.visited, found: p.found, requests: p.requests, foundPaths: [...foundPaths], updatedAt: Date.now() }, false);
          },
          onFound: (path) => {
            if (foundPaths.length < FOUND_LISTED) foundPaths.push(path);
            try {
              locks.track(path, 'scan', siblingsOf.get(path) ?? null);
              siblingsOf.delete(path);
            } catch (error) {
              if (error instanceof TooManyLocksError) notTracked.push(path);
              else throw error;
            }
          },
        });
        outcome = {
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
        if (lost !== null) outcome = { ...outcome, state: 'cancelled', error: { code: 'SCAN_TAKEN_OVER', message: lost } };
        return outcome;
      } catch (error) {
        outcome = { state: 'failed', error: { code: 'SCAN_FAILED', message: error instanceof Error ? error.message : String(error) } };
        throw error;
      } finally {
        const finishedAt = Date.now();
        const end: LockScanRecord = {
          ...current,
          state: result === null ? 'failed' : result.state === 'cancelled' ? 'cancelled' : 'done',
          finishedAt,
          updatedAt: finishedAt,
          visited: result?.visited ?? 0,
          found: result?.found.length ?? 0,
          foundPaths,
          requests: result?.requests ?? 0,
          skipped: [
            ...(result?.skipped ?? []),
            ...notTracked.slice(0, 20).map((path) => ({ path, reason: `found, not watched: Keeper watches ${locks.maxTracked} lock directories at most` })),
          ],
          skippedTotal: (result?.skippedTotal ?? 0) + notTracked.length,
          error: outcome.error ?? null,
        };
        await this.finish(end, control.snapshot.id, startedAt, store, lost !== null);
        if (lost !== null)
          this.log.warn({ scan: initial.id, why: lost }, 'a lock scan this replica ran is run by another replica now: its partial result is not stored');
      }
    });
  }

  /** The scan's end: stored (with replicas) and shown; the ownership given up. */
  private async finish(
    end: LockScanRecord,
    jobId: string,
    startedAt: number,
    store: (next: LockScanRecord, force: boolean) => Promise<boolean> | null,
    lost: boolean,
  ): Promise<void> {
    const shared = this.shared;
    if (!shared) {
      this.running = null;
      this.ensemble.locks.lastScan = { ...lastScanOf(end), jobId, startedAt };
      this.recent.unshift(end);
      this.recent.splice(LOCK_SCANS_KEPT);
      return;
    }
    if (!lost) {
      // The writer keeps trying while the home ensemble is away; the job ends after END_WRITE_WAIT_MS at most.
      const stored = (store(end, true) ?? Promise.resolve(false)).then(async (ok) => {
        if (ok) await shared.release(end.id).catch((error: unknown) => this.log.warn({ err: error, scan: end.id }, 'lock scan ownership not released'));
        return ok;
      });
      await Promise.race([stored, sleep(END_WRITE_WAIT_MS)]);
    }
    this.running = null;
    this.showShared();
  }

  /** A write of the running scan found another version: another replica took it over (this one then stops). */
  private async onConflict(id: string, lose: (why: string) => void): Promise<void> {
    const shared = this.shared!;
    try {
      const stored = await shared.read(id);
      const by = stored?.scan.runBy;
      lose(
        by && by.replica !== shared.self.replica
          ? (stored.scan.handovers.at(-1)?.sentence ?? `replica ${by.name} runs this scan now`)
          : `the stored scan changed under this replica (${stored ? `now ${stored.scan.state}` : 'deleted'})`,
      );
    } catch (error) {
      lose(`the stored scan could not be read after a conflicting write: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async openShared(shared: SharedScans): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        const id = await this.ensemble.identity.whenKnown();
        await shared.open(id, { changed: (s) => this.onStored(s), ownerGone: () => void this.takeOverIfUnowned() });
        this.sharedOpen = true;
        for (const scan of shared.list()) this.adoptFinds(scan);
        this.showShared();
        void this.takeOverIfUnowned();
        return;
      } catch (error) {
        if (attempt === 0 || attempt % 10 === 0)
          this.log.warn({ err: error, ensemble: this.ensemble.name }, 'lock scans not read from the home ensemble yet: retrying');
        await sleep(backoffDelay(attempt, SHARED_RETRY));
      }
    }
  }

  private onStored(stored: StoredScan): void {
    if (this.closed) return;
    this.adoptFinds(stored.scan);
    this.showShared();
    // A running scan first seen here: its owner may have gone before this replica read it (nobody would say so again).
    if (!isScanFinished(stored.scan) && !this.seenRunning.has(stored.scan.id)) {
      this.seenRunning.add(stored.scan.id);
      if (this.running === null) void this.takeOverIfUnowned();
    }
  }

  /** What another replica's finished scan found is watched here too (as this replica's own finds are). */
  private adoptFinds(scan: LockScanRecord): void {
    if (!isScanFinished(scan) || this.adopted.has(scan.id) || scan.runBy?.replica === this.shared?.self.replica) return;
    this.adopted.add(scan.id);
    for (const path of scan.foundPaths) {
      try {
        this.ensemble.locks.track(path, 'scan');
      } catch (error) {
        if (!(error instanceof TooManyLocksError)) this.log.warn({ err: error, path }, 'a lock directory found by another replica is not watched');
        break;
      }
    }
  }

  /** The Locks view's line: the newest stored scan. */
  private showShared(): void {
    const newest = this.shared?.list()[0];
    if (newest) this.ensemble.locks.lastScan = lastScanOf(newest);
  }

  /** A running scan nobody owns (its replica's session ended): claimed, and if won, run here from the start. */
  private async takeOverIfUnowned(): Promise<void> {
    const shared = this.shared;
    if (!shared || !this.sharedOpen || this.takingOver || this.closed) return;
    this.takingOver = true;
    try {
      for (let attempt = 0; !this.closed; attempt++) {
        const orphan = shared.list().find((s) => !isScanFinished(s));
        if (!orphan) return;
        const mine = this.running !== null && this.running !== 'starting' && this.running.id === orphan.id;
        if (this.running !== null && !mine) return;
        try {
          const claim = await shared.claim(orphan.id);
          // This replica's own state session ended and it claimed its scan again: it goes on (a takeover meanwhile shows at its next write).
          if (mine || !claim.won) return;
          const stored = await shared.read(orphan.id);
          if (!stored || isScanFinished(stored.scan) || this.running !== null) {
            await shared.release(orphan.id);
            return;
          }
          const next = recordScanHandover(stored.scan, shared.self, claim.since);
          const written = await shared.write(next, stored.version);
          if (!written.ok) {
            await shared.release(orphan.id);
            continue;
          }
          this.log.warn({ scan: next.id, from: stored.scan.runBy?.name ?? null, at: claim.since }, next.handovers.at(-1)!.sentence);
          this.showShared();
          this.run(next, written.version);
          return;
        } catch (error) {
          if (attempt === 0 || attempt % 10 === 0) this.log.warn({ err: error, scan: orphan.id }, 'could not take the lock scan over yet: retrying');
          await sleep(backoffDelay(attempt, SHARED_RETRY));
        }
      }
    } finally {
      this.takingOver = false;
    }
  }
}
