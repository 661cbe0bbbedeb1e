/**
 * Scans for lock directories as admin jobs: one at a time per ensemble (a second is refused
 * with SCAN_IN_PROGRESS, whoever asks), progress on the `jobs` topic like any long operation,
 * cancellable, audited at its start. What a scan finds is tracked (watched live) up to the
 * tracker's bound; the last scan's summary is shown in the Locks list, and the last
 * LOCK_SCANS_KEPT are listed by GET .../lock-scans.
 *
 * With replicas (docs/operating/replicas.md) a scan's record lives in the home ensemble (sharedScans.ts):
 * one scan at a time across replicas (an owner znode), its progress stored about once a second
 * by compare-and-set, every replica showing the newest scan and tracking what finished scans
 * found. When the running replica's session ends, another takes the scan over and scans again
 * from the start, saying so in the record and the audit trail; the dead replica's partial counts
 * are set aside.
 *
 * A scan is cancelled from any replica (POST .../locks/scan/cancel): the replica asked writes a
 * cancel request into the scan's record (compare-and-set); the replica running it follows its
 * record with a watch, stops, and stores the scan `cancelled` with the request kept, which is what
 * the asking replica waits for before it says "stopped" (5 s by default, the request's `waitMs` up
 * to 10 s; past it, it says the request is not confirmed yet). A running replica's progress write that meets the
 * request (the request moved the version) keeps it and writes again at the new version.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import {
  backoffDelay,
  isScanFinished,
  LOCK_DEFAULTS,
  LOCK_SCAN_CANCEL_WAIT_MS,
  LOCK_SCANS_KEPT,
  lastScanOf,
  recordScanHandover,
  type Backoff,
  scanCancelSentence,
  type JobSnapshot,
  type LockScanCancelAnswer,
  type LockScanRecord,
  type ScanCancelRequest,
} from '@keeper/shared';
import type { Admin, Caller } from '../admin/admin.js';
import { OpError } from '../admin/opError.js';
import { randomToken } from '../auth/secrets.js';
import type { ZkGateway } from '../zk/gateway.js';
import type { EnsembleConfig } from '../config/types.js';
import type { EnsembleIdentityReader } from '../config/ensembleState.js';
import type { LockTracker } from './lockTracker.js';
import { WorkflowWriter } from '../workflows/workflowWriter.js';
import { TooManyLocksError } from './lockTracker.js';
import { scanForLocks, type ScanResult } from './scan.js';
import { scanCancelledEntry, scanHandoverEntry } from './scanAudit.js';
import type { ScanWriteOutcome, SharedScans, StoredScan } from './sharedScans.js';

/** What the lock scans use of an ensemble (ensemble/ensemble.ts is one), not the whole of it. */
export interface LockScansEnsemble {
  readonly name: string;
  readonly gateway: ZkGateway;
  readonly locks: LockTracker;
  readonly config: Pick<EnsembleConfig, 'locks'>;
  readonly identity: EnsembleIdentityReader;
}

/** A running shared scan's progress is stored at most this often (its start and end always). */
const PROGRESS_WRITE_MS = 1_000;
/** Found paths a record lists in memory; the stored one is cut to its 64 KiB (fitScanRecord). */
const FOUND_LISTED = 5_000;
/** How long a shared scan's end waits for its record to be stored before its job ends anyway. */
const END_WRITE_WAIT_MS = 10_000;
const SHARED_RETRY: Backoff = { baseMs: 500, capMs: 10_000, jitter: [0.5, 1] };
/** A cancel request's compare-and-set meeting the runner's progress writes is tried this many times. */
const CANCEL_WRITE_ATTEMPTS = 5;
const CANCEL_RETRY: Backoff = { baseMs: 50, capMs: 500, jitter: [0.5, 1] };

interface Running {
  id: string;
  /** The job running it here (set as soon as it starts). */
  jobId: string | null;
  /** A cancel asked for on any replica: kept in every later write of the record. */
  cancelRequest: ScanCancelRequest | null;
  /** The scan as this replica last made it. */
  current: LockScanRecord;
}

export type CancelAnswer = { status: 200 | 202; answer: LockScanCancelAnswer };

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
  /** Cancels waiting for a scan's record to say it ended: called whenever the scans shown change. */
  private readonly endWaiters = new Set<() => void>();

  constructor(
    private readonly admin: Admin,
    private readonly ensemble: LockScansEnsemble,
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
          `a lock scan of ${ensembleName} is running on replica ${other.runBy?.name ?? 'another replica'} already: wait for it or cancel it (from any replica)`,
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
              `a lock scan of ${ensembleName} is running on replica ${claim.owner?.name ?? 'another replica'} already: wait for it or cancel it (from any replica)`,
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
    const running: Running = { id: initial.id, jobId: null, cancelRequest: initial.cancelRequest ?? null, current: initial };
    let current = initial;
    let lastWrite = 0;
    const writer =
      shared && version !== null
        ? new WorkflowWriter<LockScanRecord>(
            version,
            (s, v) => this.writeKeepingRequest(shared, s, v, running),
            { stored: () => this.showShared(), conflict: () => void this.onConflict(current.id, (why) => (lost = why)) },
            this.log,
            'scan',
          )
        : null;
    const store = (next: LockScanRecord, force: boolean): Promise<boolean> | null => {
      current = { ...next, cancelRequest: running.cancelRequest };
      running.current = current;
      if (!writer || lost !== null || (!force && Date.now() - lastWrite < PROGRESS_WRITE_MS)) return null;
      lastWrite = Date.now();
      return writer.submit(current);
    };
    this.running = running;
    const notTracked: string[] = [];
    const foundPaths: string[] = [];
    const siblingsOf = new Map<string, readonly string[] | null>();
    const job = this.admin.jobs.start({ kind: 'lockScan', ensemble: ensembleName, path: initial.path, startedBy: initial.startedBy }, async (control) => {
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
          cancelRequest: running.cancelRequest,
        };
        await this.finish(end, control.snapshot.id, startedAt, store, lost !== null);
        if (lost !== null)
          this.log.warn({ scan: initial.id, why: lost }, 'a lock scan this replica ran is run by another replica now: its partial result is not stored');
        else if (end.state === 'cancelled' && running.cancelRequest) void this.admin.note(scanCancelledEntry(ensembleName, end));
      }
    });
    running.jobId = job.id;
    if (running.cancelRequest) this.requestedHere(running, running.cancelRequest);
    return job;
  }

  /**
   * A write of the running scan's record. When it meets another version, that may be a cancel
   * request written by another replica (the record still run by this one): the request is kept,
   * honoured, and the write tried again at the version read. Anything else is a conflict.
   */
  private async writeKeepingRequest(shared: SharedScans, scan: LockScanRecord, version: number | null, running: Running): Promise<ScanWriteOutcome> {
    const first = await shared.write(scan, version);
    if (first.ok || version === null) return first;
    const stored = await shared.read(scan.id);
    const asked = stored?.scan.cancelRequest;
    const stillMine = stored?.scan.runBy?.replica === shared.self.replica && stored.scan.runBy.since === scan.runBy?.since;
    if (!stored || !asked || !stillMine || isScanFinished(stored.scan)) return first;
    this.requestedHere(running, asked);
    return shared.write({ ...scan, cancelRequest: running.cancelRequest }, stored.version);
  }

  /** A cancel request for the scan running here: kept (the first one) and its job cancelled. */
  private requestedHere(running: Running, asked: ScanCancelRequest): void {
    running.cancelRequest ??= asked;
    if (running.jobId === null) return;
    if (this.admin.jobs.get(running.jobId)?.state !== 'running') return;
    this.log.info({ scan: running.id, by: asked.by, on: asked.replica.name }, 'lock scan cancelled on request');
    this.admin.jobs.cancel(running.jobId);
  }

  /**
   * Stops a running scan, wherever it runs (the route checked identity and role before the body):
   * the answer says it stopped only once its record does.
   */
  async cancel(caller: Caller, scanId: string, waitMs: number = LOCK_SCAN_CANCEL_WAIT_MS.default): Promise<CancelAnswer> {
    const ensembleName = this.ensemble.name;
    return this.admin.audited(caller, { action: 'lock.scan', ensemble: ensembleName, details: { phase: 'cancel', scanId } }, async (record) => {
      const result = await this.requestCancel(caller, scanId, waitMs);
      const { scan } = result.answer;
      record.path = scan.path;
      record.note = result.answer.message;
      record.details = { ...record.details, outcome: result.answer.outcome, runBy: scan.runBy?.name ?? null };
      return result;
    });
  }

  /** `waitMs`: how long the answer waits for the scan's record to say it stopped. */
  private async requestCancel(caller: Caller, scanId: string, waitMs: number): Promise<CancelAnswer> {
    const shared = this.shared;
    const r = this.running;
    const here = r !== null && r !== 'starting' && r.id === scanId ? r : null;
    if (!shared) {
      if (here?.jobId) {
        this.requestedHere(here, { by: caller.identity.name, replica: { replica: '', name: 'this Keeper' }, at: Date.now() });
        await Promise.race([this.admin.jobs.settled(here.jobId), sleep(waitMs)]);
      }
      const ended = this.recent.find((s) => s.id === scanId);
      if (ended) return answerOf(ended, here !== null);
      if (here) return answerOf(here.current, true);
      throw new OpError('UNKNOWN_SCAN', `no lock scan ${JSON.stringify(scanId)} of ${this.ensemble.name} is kept`);
    }
    if (!this.sharedOpen)
      throw new OpError('NOT_READY', `the lock scans of ${this.ensemble.name} are not read from the home ensemble yet: try again in a few seconds`);
    const asked: ScanCancelRequest = { by: caller.identity.name, replica: shared.self, at: Date.now() };
    if (here) this.requestedHere(here, asked);
    else {
      for (let attempt = 0; ; attempt++) {
        const stored = await shared.read(scanId);
        if (!stored) throw new OpError('UNKNOWN_SCAN', `no lock scan ${JSON.stringify(scanId)} of ${this.ensemble.name} is kept`);
        if (isScanFinished(stored.scan)) return answerOf(stored.scan, false);
        // Asked already (another admin, another replica): wait for its end like the first asker.
        if (stored.scan.cancelRequest) break;
        if ((await shared.write({ ...stored.scan, cancelRequest: asked }, stored.version)).ok) {
          // This replica's Locks line says the request at once (its own write brings no watch event here).
          this.showShared();
          break;
        }
        if (attempt + 1 >= CANCEL_WRITE_ATTEMPTS)
          throw new OpError('BAD_VERSION', `the record of lock scan ${scanId} kept changing: the cancel request was not written; try again`);
        await sleep(backoffDelay(attempt, CANCEL_RETRY));
      }
    }
    const end = await this.waitForEnd(shared, scanId, waitMs);
    if (end) return answerOf(end, true);
    const now = shared.get(scanId) ?? (here ? here.current : null);
    if (!now) throw new OpError('UNKNOWN_SCAN', `lock scan ${scanId} of ${this.ensemble.name} is no longer kept`);
    const runner = now.runBy ? `replica ${now.runBy.name}` : 'the replica running it';
    return {
      status: 202,
      answer: {
        outcome: 'requested',
        message: `cancel requested, not yet confirmed: ${runner} had not stored the scan stopped within ${waitMs / 1_000} s (the scan's record will say when it does)`,
        scan: now,
      },
    };
  }

  /** The scan's record once it says the scan ended (read here through the watch, or once more at the end of the wait); null if not by then. */
  private async waitForEnd(shared: SharedScans, id: string, ms: number): Promise<LockScanRecord | null> {
    const ended = (): LockScanRecord | null => {
      const scan = shared.get(id);
      return scan && isScanFinished(scan) ? scan : null;
    };
    let check: () => void = () => undefined;
    const seen = new Promise<void>((resolve) => (check = () => ended() && resolve()));
    this.endWaiters.add(check);
    try {
      check();
      await Promise.race([seen, sleep(ms)]);
    } finally {
      this.endWaiters.delete(check);
    }
    if (ended()) return ended();
    const stored = await shared.read(id).catch(() => null);
    return stored && isScanFinished(stored.scan) ? stored.scan : null;
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
    // A cancel asked for on another replica, of the scan running here: it stops now (its end is stored with the request).
    const r = this.running;
    const asked = stored.scan.cancelRequest;
    if (asked && r !== null && r !== 'starting' && r.id === stored.scan.id && stored.scan.runBy?.replica === this.shared?.self.replica)
      this.requestedHere(r, asked);
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
    for (const check of this.endWaiters) check();
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
          // A cancel asked for before its replica stopped it: taken over only to be ended, not scanned again.
          const taken = recordScanHandover(stored.scan, shared.self, claim.since);
          const endedAt = Date.now();
          const next: LockScanRecord = taken.cancelRequest ? { ...taken, state: 'cancelled', finishedAt: endedAt, updatedAt: endedAt } : taken;
          const written = await shared.write(next, stored.version);
          if (!written.ok) {
            await shared.release(orphan.id);
            continue;
          }
          const handover = next.handovers.at(-1)!;
          this.log.warn({ scan: next.id, from: stored.scan.runBy?.name ?? null, at: claim.since }, handover.sentence);
          void this.admin.note(scanHandoverEntry(this.ensemble.name, next, handover));
          this.showShared();
          if (isScanFinished(next)) {
            void this.admin.note(scanCancelledEntry(this.ensemble.name, next));
            await shared.release(orphan.id);
            return;
          }
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

/** A cancel's answer from the scan's record: `stopped` says whether this cancel stopped it (or found it ended already). */
function answerOf(scan: LockScanRecord, stopped: boolean): CancelAnswer {
  if (stopped && scan.state === 'cancelled')
    return { status: 200, answer: { outcome: 'cancelled', message: `cancel requested; ${scanCancelSentence(scan)}`, scan } };
  if (stopped && isScanFinished(scan)) return { status: 200, answer: { outcome: 'finished', message: `cancel requested; ${scanCancelSentence(scan)}`, scan } };
  const already = scan.state === 'cancelled' ? `it was cancelled already: ${scanCancelSentence(scan)}` : `not cancelled: ${scanCancelSentence(scan)}`;
  return { status: 200, answer: { outcome: 'finished', message: already, scan } };
}
