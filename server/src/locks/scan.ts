/**
 * Finds lock directories under a root without hurting the ensemble (issue 12, item 7): a
 * breadth-first walk, one getChildren per node (an answer says nothing about its children's
 * children, so each node costs one request), under a budget of requests and time, with at
 * most `maxOutstanding` requests out, paced by ScanPacer so that other clients' latency
 * stays near idle. It knows nothing of HTTP, jobs or the gateway: it reads through
 * ScanReader (the gateway fits it) and reports through callbacks.
 *
 * What is not descended:
 *  - a lock directory: its children are contenders, which are leaves;
 *  - /zookeeper, ZooKeeper's own;
 *  - a directory with more than `maxChildrenDescended` children that is not a lock (seed
 *    000's 100,000 tasks): listed in `skipped`, since walking it would cost 100,000
 *    requests for nodes that hold no lock. The root itself is always descended: scanning
 *    such a directory directly is how one asks for it.
 */
import { backoffDelay, joinPath, type Backoff, type ZnodeStat } from '@keeper/shared';
import { ScanPacer, type PacerState, type PacingOptions, type SendTicket } from './scanPacer.js';

export interface ScanReader {
  getChildren(path: string, opts: { deadlineMs: number }): Promise<{ children: string[]; stat: ZnodeStat }>;
}

export interface ScanBudget {
  /** getChildren calls, retries included; default 200,000. */
  maxRequests?: number;
  /** The whole scan, ms; default 10 min. */
  deadlineMs?: number;
  /** A non-lock directory with more children than this is listed, not descended; default 10,000. */
  maxChildrenDescended?: number;
  /** `skipped` lists this many at most (skippedTotal counts them all); default 100. */
  maxSkippedListed?: number;
  /** Never more getChildren outstanding than this; default 2. */
  maxOutstanding?: number;
  /** One call's deadline, ms (cut to what is left of the scan's); default 10 s. */
  requestDeadlineMs?: number;
}

export interface ScanProgress {
  visited: number;
  found: number;
  requests: number;
  queued: number;
  current: string | null;
  /** The pacer now: its duty cycle, concurrency and idle baseline. */
  pacing: PacerState;
}

export interface ScanOptions {
  root: string;
  reader: ScanReader;
  /** True when `children` of `path` make a lock directory; siblings = the parent's children (null for the root). */
  isLockDirectory(path: string, children: readonly string[], siblings: readonly string[] | null): boolean;
  budget?: ScanBudget;
  pacing?: PacingOptions;
  /** Failed reads (other than NO_NODE) are tried this many times in all, with back-off; default 3. */
  retry?: { attempts?: number; backoff?: Backoff };
  cancelled(): boolean;
  /** At most every `progressIntervalMs` (default 250), and once at the end. */
  onProgress(p: ScanProgress): void;
  progressIntervalMs?: number;
  onFound(path: string, children: readonly string[]): void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface SkippedPath {
  path: string;
  reason: string;
}

export interface ScanResult {
  state: 'done' | 'cancelled' | 'deadline' | 'budget';
  /** Nodes whose children were read. */
  visited: number;
  found: string[];
  requests: number;
  /** The first maxSkippedListed paths not descended or not visited, each with why. */
  skipped: SkippedPath[];
  skippedTotal: number;
  durationMs: number;
  /** The pacer at the end: its duty cycle, idle baseline and slowdowns. */
  pacing: PacerState;
}

export const SCAN_DEFAULTS = {
  maxRequests: 200_000,
  deadlineMs: 10 * 60_000,
  maxChildrenDescended: 10_000,
  maxSkippedListed: 100,
  maxOutstanding: 2,
  requestDeadlineMs: 10_000,
  retryAttempts: 3,
} as const;

/** A failed read is retried after 0.2 s, 0.4 s... up to 2 s: the ensemble may be briefly struggling, and the scan is in no hurry. */
export const SCAN_RETRY: Backoff = { baseMs: 200, capMs: 2_000, jitter: [0.5, 1] };

/** Errors that another try cannot fix: skip the node at once. */
const PERMANENT = new Set(['NO_AUTH', 'INVALID_PATH', 'BAD_ARGUMENTS', 'AUTH_FAILED']);
/** The reader is gone (Keeper closing the ensemble): the scan cannot go on. */
const FATAL = new Set(['CLOSED']);
/** Long waits (back-off, pacing) are cut into slices this long, so a cancel is seen soon. */
const WAIT_SLICE_MS = 50;

const count = (n: number) => n.toLocaleString('en-US');

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'ERROR';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Pending {
  path: string;
  /** The parent's children (shared, not copied); null for the root. */
  siblings: readonly string[] | null;
}

const defined = <T extends object>(o: T | undefined): Partial<T> =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;

export async function scanForLocks(options: ScanOptions): Promise<ScanResult> {
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const budget = { ...SCAN_DEFAULTS, ...defined(options.budget) };
  const attempts = Math.max(1, options.retry?.attempts ?? SCAN_DEFAULTS.retryAttempts);
  const retryBackoff = options.retry?.backoff ?? SCAN_RETRY;
  const progressEvery = options.progressIntervalMs ?? 250;
  const cap = Math.max(1, Math.floor(budget.maxOutstanding));
  const pacer = new ScanPacer(cap, options.pacing, now());

  const started = now();
  const deadlineAt = started + budget.deadlineMs;
  const queue: Pending[] = [{ path: options.root, siblings: null }];
  let head = 0;
  const found: string[] = [];
  const skipped: SkippedPath[] = [];
  let skippedTotal = 0;
  let visited = 0;
  let requests = 0;
  let current: string | null = null;
  let stopped = false;
  let fatal: unknown = null;
  /** Visits running (a visit holds its slot through its retries' back-off too, so slots >= requests outstanding). */
  const running = new Set<Pending>();
  let wake: () => void = () => undefined;
  let woken = new Promise<void>((resolve) => (wake = resolve));
  const signal = () => {
    wake();
    woken = new Promise<void>((resolve) => (wake = resolve));
  };

  const skip = (path: string, reason: string) => {
    skippedTotal++;
    if (skipped.length < budget.maxSkippedListed) skipped.push({ path, reason });
  };

  let lastProgressAt = Number.NEGATIVE_INFINITY;
  const progress = (force = false) => {
    const t = now();
    if (!force && t - lastProgressAt < progressEvery) return;
    lastProgressAt = t;
    options.onProgress({ visited, found: found.length, requests, queued: queue.length - head + running.size, current, pacing: pacer.state });
  };

  const outOfTime = () => now() >= deadlineAt;
  const stopping = () => stopped || options.cancelled() || outOfTime();

  /** Sleeps up to `ms`, waking early to look at cancellation and the deadline. */
  const pause = async (ms: number) => {
    const until = now() + ms;
    while (!stopping()) {
      const left = until - now();
      if (left <= 0) return;
      await sleep(Math.min(left, WAIT_SLICE_MS));
    }
  };

  const settle = (item: Pending, children: string[]) => {
    visited++;
    const isRoot = item.siblings === null;
    if (options.isLockDirectory(item.path, children, item.siblings)) {
      found.push(item.path);
      options.onFound(item.path, children);
      return;
    }
    if (!isRoot && children.length > budget.maxChildrenDescended) {
      skip(item.path, `${count(children.length)} children, not descended: scan it directly`);
      return;
    }
    for (const child of children) {
      const path = joinPath(item.path, child);
      if (path === '/zookeeper') continue;
      queue.push({ path, siblings: children });
    }
  };

  /** Reads one node, retrying failures; true when it is done with (read, vanished or skipped), false when the scan stopped first. */
  const visit = async (item: Pending): Promise<boolean> => {
    for (let attempt = 0; ; attempt++) {
      if (stopping()) return false;
      if (requests >= budget.maxRequests) return false;
      requests++;
      current = item.path;
      const ticket: SendTicket = pacer.onSend(now());
      try {
        const callDeadline = Math.max(1, Math.min(budget.requestDeadlineMs, deadlineAt - now()));
        const { children } = await options.reader.getChildren(item.path, { deadlineMs: callDeadline });
        if (stopped) {
          pacer.onAbandon(now());
          return false;
        }
        pacer.onAnswer(ticket, now(), children.length);
        settle(item, children);
        return true;
      } catch (error) {
        const code = errorCode(error);
        if (stopped) {
          pacer.onAbandon(now());
          return false;
        }
        if (code === 'NO_NODE') {
          // Deleted since its parent was listed: normal on a live tree. The root is another matter.
          pacer.onAbandon(now());
          if (item.siblings === null) skip(item.path, 'it does not exist');
          return true;
        }
        pacer.onFailure(now());
        if (FATAL.has(code)) {
          fatal = error;
          return true;
        }
        if (PERMANENT.has(code)) {
          skip(item.path, `${code}: ${errorMessage(error)}`);
          return true;
        }
        if (attempt + 1 >= attempts) {
          skip(item.path, `${code} after ${attempts} tries: ${errorMessage(error)}`);
          return true;
        }
        await pause(backoffDelay(attempt, retryBackoff));
      }
    }
  };

  const unvisited: Pending[] = [];
  const launch = (item: Pending) => {
    running.add(item);
    const finish = (done: boolean) => {
      running.delete(item);
      if (!done) unvisited.push(item);
      progress();
      signal();
    };
    // A callback that throws (isLockDirectory, onFound) ends the scan with its error.
    void visit(item).then(finish, (error: unknown) => {
      fatal ??= error;
      finish(true);
    });
  };

  let state: ScanResult['state'] = 'done';
  progress(true);
  for (;;) {
    if (fatal !== null) break;
    if (options.cancelled()) {
      state = 'cancelled';
      break;
    }
    if (outOfTime()) {
      state = 'deadline';
      break;
    }
    const more = head < queue.length;
    if (!more && running.size === 0) break;
    if (more && requests >= budget.maxRequests) {
      state = 'budget';
      // Answers already paid for are worth waiting for (each is bounded by its own deadline).
      while (running.size > 0) await woken;
      break;
    }
    const slotFree = more && running.size < Math.min(cap, pacer.concurrency);
    const wait = slotFree ? pacer.waitMs(now()) : Number.POSITIVE_INFINITY;
    if (wait === 0) {
      launch(queue[head++]!);
      continue;
    }
    // Wait for an answer, or for the pacer's credit, looking at cancel and deadline every slice.
    const nap = Math.min(Number.isFinite(wait) ? wait : WAIT_SLICE_MS, WAIT_SLICE_MS);
    await Promise.race([woken, sleep(Math.max(nap, 0))]);
  }
  stopped = true;
  if (fatal !== null) throw fatal;
  // Reads that gave up for the request budget while the queue was already empty.
  if (state === 'done' && unvisited.length > 0) state = 'budget';

  const why =
    state === 'budget'
      ? `not visited: the scan's budget of ${count(budget.maxRequests)} requests was spent`
      : state === 'deadline'
        ? `not visited: the scan's deadline (${Math.round(budget.deadlineMs / 1000)} s) passed`
        : 'not visited: the scan was cancelled';
  // Requests still out are abandoned: their answers are ignored, their nodes count as not visited.
  for (const item of [...unvisited, ...running, ...queue.slice(head)]) skip(item.path, why);
  progress(true);
  return { state, visited, found, requests, skipped, skippedTotal, durationMs: now() - started, pacing: pacer.state };
}
