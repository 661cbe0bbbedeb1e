/**
 * Every tracked lock's report, computed once per change and kept (issue 25, item 1). With 1,000
 * directories of 200 contenders a full analysis takes about 1.6 s: run on every GET and every
 * subscribe, four viewers froze an admin's requests for seconds. Here:
 *  - a change a watch brings marks its directory; a watch gathering marks them all;
 *  - a pump analyses the marked directories, at most SLICE_MS of work at a time, then hands the
 *    event loop back (setImmediate) so requests and socket frames are served between slices;
 *  - readers (GET, subscribers, an admin's Clean) read the kept reports and never analyse;
 *  - the list's order (worst first) is sorted once per batch of changed reports.
 * A directory marked again while waiting is analysed once. Each report says when it was computed.
 */
import { analyzeLockWithEvidence, compareLocksWorstFirst, sessionsById, type LockReport } from '@keeper/shared';
import type { LockDirectory } from './lockDirectory.js';
import type { WatchGatherer } from './watchGatherings.js';

/** Work per turn of the event loop before it is handed back. */
export const SLICE_MS = 8;
/** A burst of changes (a release, a herd of creates) is gathered this long before the pump starts. */
const COALESCE_MS = 20;

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
  private sortedCache: LockReport[] | null = null;
  private changedSincePass = false;
  private closed = false;
  /** Counts changes to the list (reports, order): an answer built from an older version is out of date. */
  listVersion = 0;
  /** Analyses run (tests and the bench count them: never one per request). */
  analyses = 0;

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
    }
    return this.reports.get(path) ?? null;
  }

  /** Every kept report, worst first. */
  sorted(): LockReport[] {
    this.sortedCache ??= [...this.reports.values()].sort(compareLocksWorstFirst);
    return this.sortedCache;
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
    const sessions = gatherer.sessions;
    const now = this.options.now();
    this.analyses += 1;
    const { report, evidence } = analyzeLockWithEvidence({
      lock: dir.state.lock,
      facts: dir.factsForAnalysis(),
      sessions: sessions ? sessionsById(sessions) : null,
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
    this.listChanged();
    this.options.onReport(path);
  }

  private listChanged(): void {
    this.sortedCache = null;
    this.changedSincePass = true;
    this.listVersion += 1;
  }
}
