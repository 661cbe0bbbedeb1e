/**
 * The herd of seed 000 as real kazoo clients (herd.py under Debian's python3-kazoo, the
 * project's one kazoo): workers looping getChildren on one big list, spread over a few Python
 * processes (one process is bound by its interpreter lock long before the members are), each
 * worker's session pinned to one member so its requests can be taken out of that member's count.
 * pause() stops every worker between two requests and answers their exact counts, so the
 * members' own counters can be read against them without a running herd moving them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { killHard, PYTHON } from '../../scripts/lib/kazoo/process.js';
import type { Scope } from './lifecycle.js';

const HERD_PY = fileURLToPath(new URL('./herd.py', import.meta.url));

export interface RequestHerdCounts {
  /** member host:port -> getChildren answered since the start. */
  requests: Map<string, number>;
  /** Seconds the answered getChildren took, all workers together (over `requests`: their mean latency). */
  waitedSeconds: number;
  /** Calls that failed (timeout, connection loss): not counted in `requests`. */
  errors: number;
  lastError: string;
}

export interface KazooRequestHerdPlan {
  members: readonly string[];
  workers: number;
  processes: number;
  path: string;
  sessionTimeoutS: number;
}

/** One herd.py process: its stdout lines are answers to the commands written to its stdin, in order. */
class RequestHerdProcess {
  private readonly waiting: { prefix: string; resolve: (rest: string) => void; reject: (error: Error) => void }[] = [];
  private stderr = '';

  constructor(readonly child: ChildProcess) {
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-4000)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const next = this.waiting[0];
      if (!next || !line.startsWith(next.prefix)) return;
      this.waiting.shift();
      next.resolve(line.slice(next.prefix.length));
    });
    child.once('exit', (code, signal) => {
      for (const w of this.waiting.splice(0)) w.reject(new Error(`herd.py exited (${code ?? signal}): ${this.stderr}`));
    });
  }

  expect(prefix: string, withinMs: number, command?: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`herd.py: no "${prefix.trim()}" within ${withinMs} ms: ${this.stderr}`)), withinMs);
      this.waiting.push({
        prefix,
        resolve: (rest) => {
          clearTimeout(timer);
          resolve(rest);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      if (command) this.child.stdin!.write(`${command}\n`);
    });
  }
}

export class KazooRequestHerd {
  private constructor(
    private readonly processes: RequestHerdProcess[],
    /** Session ids, as ZooKeeper prints them. */
    readonly sessionIds: string[],
  ) {}

  /** Opens every session (the loops wait for resume()); the processes are killed by the scope's cleanup at the latest. */
  static async start(scope: Scope, plan: KazooRequestHerdPlan): Promise<KazooRequestHerd> {
    const processes: RequestHerdProcess[] = [];
    for (let p = 0; p < plan.processes; p++) {
      const workers = Math.floor(plan.workers / plan.processes) + (p < plan.workers % plan.processes ? 1 : 0);
      // Rotated so that every member gets its share whatever the split.
      const members = plan.members.map((_, i) => plan.members[(i + p) % plan.members.length]!);
      const config = { members, workers, path: plan.path, timeoutS: plan.sessionTimeoutS };
      // stdin stays an open pipe: closing it (or this process dying) ends the sessions.
      const child = spawn(PYTHON, [HERD_PY, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'pipe'] });
      scope.defer(`stop herd process ${p}`, () => killHard(child));
      processes.push(new RequestHerdProcess(child));
    }
    const ids = await Promise.all(processes.map((p) => p.expect('ready ', 120_000)));
    return new KazooRequestHerd(
      processes,
      ids.flatMap((line) => JSON.parse(line) as string[]),
    );
  }

  async resume(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.expect('resumed', 30_000, 'resume')));
  }

  /** Every worker done with its request in flight and waiting; the counts since the start. */
  async pause(): Promise<RequestHerdCounts> {
    const answers = await Promise.all(this.processes.map((p) => p.expect('paused ', 60_000, 'pause')));
    const counts: RequestHerdCounts = { requests: new Map(), waitedSeconds: 0, errors: 0, lastError: '' };
    for (const answer of answers) {
      const one = JSON.parse(answer) as { requests: Record<string, number>; waitedS: number; errors: number; lastError: string };
      for (const [member, n] of Object.entries(one.requests)) counts.requests.set(member, (counts.requests.get(member) ?? 0) + n);
      counts.waitedSeconds += one.waitedS;
      counts.errors += one.errors;
      if (one.lastError) counts.lastError = one.lastError;
    }
    return counts;
  }

  /** Closes the sessions (stdin EOF) and waits for the processes, killing any that lingers. */
  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.stdin!.end();
        const timer = setTimeout(() => void killHard(child), 20_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
}
