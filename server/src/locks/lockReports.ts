/**
 * Every tracked lock's report, computed once per change and kept (issue 25, item 1). With 1,000
 * directories of 200 contenders a full analysis takes about 1.6 s: run on every GET and every
 * subscribe, four viewers froze an admin's requests for seconds. Here:
 *  - a change a watch brings marks its directory; a watch gathering marks them all;
 *  - a pump analyses the marked directories, at most SLICE_MS of work at a time, then hands the
 *    event loop back (setImmediate) so requests and socket frames are served between slices;
 *  - readers (GET, subscribers, an admin's Clean) read the kept reports and never analyse;
 *  - the list reads a published snapshot, sorted worst first, renewed at most every PUBLISH_MS
 *    when something changed (and for each list push): pages (and their JSON) built for one
 *    snapshot serve every reader until the next, instead of being rebuilt after each of 1,000
 *    analyses.
 * A directory marked again while waiting is analysed once. Each report says when it was computed.
 */
import { analyzeLockWithEvidence, compareLocksWorstFirst, sessionsById, type LockReport, type OwnerSession } from '@keeper/shared';
import type { LockDirectory } from './lockDirectory.js';
import type { WatchGatherer } from './watchGatherings.js';

/** Work per turn of the event loop before it is handed back. */
export const SLICE_MS = 5;
/** A burst of changes (a release, a herd of creates) is gathered this long before the pump starts. */
const COALESCE_MS = 20;
/** During a long pass, the list's snapshot is renewed at most this often. */
const PUBLISH_MS = 250;

export interface LockReportsOptions {
  gatherer: Pick<WatchGatherer, 'gatherings' | 'sessions' | 'sessionsAsOf'>;
  directory(path: string): LockDirectory | null;
  configuredPermits(path: string): number | null;
  heldLongMs: number;
  now: () => number;
  /** A directory's report was (re)computed or it stopped being a lock. */
  onReport(path: string): void;
  /** The pump ran dry; `changed`: some report changed since the last call. */
  onPassDone(changed: boolean): void;
}

export class LockReports {
  private readonly reports = new Map<string, LockReport>();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private published: LockReport[] | null = null;
  private publishedAt = 0;
  private changedSincePublish = false;
  private changedSincePass = false;
  private closed = false;
  /** Counts the list's snapshots (and what it shows besides): an answer built from an older one is out of date. */
  listVersion = 0;
  /** Analyses run (tests and the bench count them: never one per request), and the time they took. */
  analyses = 0;
  analysisMs = 0;
  private sessionsIndex: { of: readonly OwnerSession[]; byId: ReadonlyMap<string, OwnerSession> } | null = null;

  constructor(private readonly options: LockReportsOptions) {}

  /** The directory changed: analyse it soon. */
  mark(path: string): void {
    if (this.closed) return;
    this.dirty.add(path);
    this.schedule();
  }

  markAll(paths: Iterable<string>): void {
    for (const path of paths) this.dirty.add(path);
    this.schedule();
  }

  /** Something the list shows beside the reports changed (the last scan). */
  touchList(): void {
    this.listVersion += 1;
  }

  forget(path: string): void {
    this.dirty.delete(path);
    if (this.reports.delete(path)) this.listChanged();
  }

  /**
   * The directory's report: the kept one when it is up to date, else computed now (one
   * directory: the first answer for a lock just opened need not wait for the pump).
   */
  current(path: string): LockReport | null {
    if (this.dirty.has(path) || !this.reports.has(path)) {
      this.dirty.delete(path);
      this.compute(path);
      // The list follows at the end of a (here empty) pass: its push says so.
      this.schedule();
    }
    return this.reports.get(path) ?? null;
  }

  /** Every kept report, worst first, as of the latest snapshot (at most PUBLISH_MS behind the changes). */
  sorted(): LockReport[] {
    if (this.published === null || (this.changedSincePublish && performance.now() - this.publishedAt >= PUBLISH_MS)) this.publish();
    return this.published!;
  }

  /** A snapshot with every change so far (a list push). */
  publishNow(): void {
    if (this.published === null || this.changedSincePublish) this.publish();
  }

  private publish(): void {
    this.published = [...this.reports.values()].sort(compareLocksWorstFirst);
    this.publishedAt = performance.now();
    this.changedSincePublish = false;
    this.listVersion += 1;
  }

  /** Directories waiting for their analysis. */
  get pending(): number {
    return this.dirty.size;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.dirty.clear();
  }

  private schedule(): void {
    if (this.timer !== null || this.immediate !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, COALESCE_MS);
  }

  private pump(): void {
    this.immediate = null;
    const until = performance.now() + SLICE_MS;
    for (const path of this.dirty) {
      this.dirty.delete(path);
      this.compute(path);
      if (performance.now() >= until && this.dirty.size > 0) {
        this.immediate = setImmediate(() => this.pump());
        return;
      }
    }
    const changed = this.changedSincePass;
    this.changedSincePass = false;
    this.options.onPassDone(changed);
  }

  private compute(path: string): void {
    const dir = this.options.directory(path);
    if (!dir || dir.state.kind !== 'lock') {
      if (this.reports.delete(path)) this.listChanged();
      this.options.onReport(path);
      return;
    }
    const { gatherer } = this.options;
    const began = performance.now();
    const now = this.options.now();
    this.analyses += 1;
    const { report, evidence } = analyzeLockWithEvidence({
      lock: dir.state.lock,
      facts: dir.factsForAnalysis(),
      sessions: this.sessionsById(gatherer.sessions),
      sessionsAsOf: gatherer.sessionsAsOf,
      evidence: dir.leakEvidence(),
      gatherings: gatherer.gatherings,
      now,
      directoryData: dir.directoryData,
      configuredPermits: this.options.configuredPermits(path),
      heldLongMs: this.options.heldLongMs,
    });
    dir.keepEvidence(evidence);
    dir.markLeaked(
      report.contenders.filter((c) => c.status === 'leaked').map((c) => c.name),
      now,
    );
    this.reports.set(path, report);
    this.analysisMs += performance.now() - began;
    this.listChanged();
    this.options.onReport(path);
  }

  /** The owners by id, indexed once per sessions gathering (not once per lock). */
  private sessionsById(sessions: readonly OwnerSession[] | null): ReadonlyMap<string, OwnerSession> | null {
    if (sessions === null) return null;
    if (this.sessionsIndex?.of !== sessions) this.sessionsIndex = { of: sessions, byId: sessionsById(sessions) };
    return this.sessionsIndex.byId;
  }

  private listChanged(): void {
    this.changedSincePublish = true;
    this.changedSincePass = true;
  }
}
