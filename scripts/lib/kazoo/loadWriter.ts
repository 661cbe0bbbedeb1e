/**
 * A write load whose acks are the truth (issue 13, items 9 and 10): kazoo writers, each one
 * session creating `<root>/w-<n>` one after another (loadwriter.py), that record every
 * acknowledged write, their session's states (LOST = expired) and the member they are on.
 * `missingWrites` reads the nodes back through a fresh session: an acked write not there was lost.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AckedWrite } from './writer.js';
import { longestGap } from './writeGaps.js';
import { killHard, PYTHON, readyLine, spawnKazoo } from './process.js';

const LOAD_WRITER_PY = fileURLToPath(new URL('./loadwriter.py', import.meta.url));

export interface LoadWriterPlan {
  /** A connection string; kazoo tries its hosts in this order, so put the member to start on first. */
  hosts: string;
  /** Writes go to `<root>/w-<n>`; the root is made if missing and should be empty. */
  root: string;
  sessionTimeoutMs?: number;
  /** Pause between one ack and the next write (0: back to back). */
  intervalMs?: number;
  /** How long one write is retried before it counts as failed (never as acked). */
  retryDeadlineMs?: number;
  readyWithinMs?: number;
}

/** An acknowledged write of the load: `sentAt` is when it was first sent (at - sentAt: its latency, retries included). */
export interface LoadAck extends AckedWrite {
  sentAt: number;
}

export interface LoadReport {
  root: string;
  /** In ack order; `value` is n of `<root>/w-<n>`. */
  acks: LoadAck[];
  /** Writes not acknowledged within the retry deadline (applied or not: unknown). */
  fails: { value: number; error: string; at: number }[];
  /** kazoo's session states as they changed (SUSPENDED: disconnected, LOST: expired, CONNECTED). */
  states: { state: string; at: number }[];
  /** The member the session was on, each time it changed. */
  peers: { peer: string; at: number }[];
  /** Every session id it had: more than one means its session expired and kazoo opened another. */
  sessionIds: string[];
  /** True when the session expired (kazoo saw LOST). */
  expired: boolean;
}

export interface RunningLoadWriter {
  root: string;
  sessionId: string;
  /** Live, in ack order. */
  readonly acks: readonly LoadAck[];
  /** Ends the loop after the write in flight; resolves with everything it recorded. */
  stop(): Promise<LoadReport>;
}

export async function startLoadWriter({
  hosts,
  root,
  sessionTimeoutMs = 15_000,
  intervalMs = 20,
  retryDeadlineMs = 30_000,
  readyWithinMs = 60_000,
}: LoadWriterPlan): Promise<RunningLoadWriter> {
  const config = { hosts, root, sessionTimeoutS: sessionTimeoutMs / 1000, intervalS: intervalMs / 1000, retryDeadlineS: retryDeadlineMs / 1000 };
  const { child, stderr } = spawnKazoo(['write', JSON.stringify(config)], LOAD_WRITER_PY);
  const report: LoadReport = { root, acks: [], fails: [], states: [], peers: [], sessionIds: [], expired: false };
  let done: Record<string, unknown> | null = null;
  const onLine = (line: string) => {
    const [kind, a, b, c] = line.split(' ');
    if (kind === 'ack') report.acks.push({ value: Number(a), at: Number(b), sentAt: Number(c) });
    else if (kind === 'fail') report.fails.push({ value: Number(a), error: b ?? '', at: Number(c) });
    else if (kind === 'state') report.states.push({ state: a ?? '', at: Number(b) });
    else if (kind === 'peer') report.peers.push({ peer: a ?? '', at: Number(b) });
    else if (kind === 'done') done = JSON.parse(line.slice('done '.length)) as Record<string, unknown>;
  };
  let sessionId: string;
  try {
    sessionId = await readyLine(child, 'ready ', { withinMs: readyWithinMs, stderr, onLine });
  } catch (error) {
    await killHard(child);
    throw error;
  }
  return {
    root,
    sessionId,
    acks: report.acks,
    stop: async () => {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
      child.stdin!.end();
      // The write in flight may be retrying for up to its deadline.
      const timer = setTimeout(() => void killHard(child), retryDeadlineMs + 10_000);
      await exited;
      clearTimeout(timer);
      const summary = done as { sessionIds?: string[] } | null;
      if (!summary) throw new Error(`load writer on ${root} ended without its report: ${stderr()}`);
      report.sessionIds = summary.sessionIds ?? [sessionId];
      report.expired = report.states.some((s) => s.state === 'LOST') || report.sessionIds.length > 1;
      return report;
    },
  };
}

/** The acknowledged writes of each report that a fresh session does not find: lost writes (none, if all is well). */
export async function missingWrites(hosts: string, reports: readonly LoadReport[]): Promise<Map<string, number[]>> {
  const config = { hosts, roots: reports.map((r) => r.root) };
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(PYTHON, [LOAD_WRITER_PY, 'list', JSON.stringify(config)], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, out, err) =>
      error ? reject(new Error(`${error.message}: ${err}`)) : resolve(out),
    ),
  );
  const found = JSON.parse(stdout) as Record<string, number[]>;
  return new Map(
    reports.map((r) => {
      const there = new Set(found[r.root] ?? []);
      return [r.root, r.acks.map((a) => a.value).filter((n) => !there.has(n))];
    }),
  );
}

/** `hosts` rotated so that writer `i` starts on member `i` (kazoo keeps the order: randomize_hosts is off). */
export function startingOn(connectionString: string, index: number): string {
  const hosts = connectionString.split(',');
  const k = index % hosts.length;
  return [...hosts.slice(k), ...hosts.slice(0, k)].join(',');
}

/** The longest wait any writer had between two acks over [from, to] (see longestGap). */
export function longestGapAcross(reports: readonly { acks: readonly AckedWrite[] }[], from: number, to: number): number {
  return Math.max(
    0,
    ...reports.map((r) =>
      longestGap(
        r.acks.map((a) => a.at),
        from,
        to,
      ),
    ),
  );
}
