/**
 * A long-lived lock client process (kazoo_locks.py, CuratorLocks.java) that reports what it did
 * as JSON lines ({"event": ...}) and takes commands on stdin. Its stdin stays an open pipe: the
 * clients close their sessions when it ends, so they also end when this process dies. A frozen
 * (SIGSTOP) child cannot read that end, so every child still running when this process exits is
 * SIGKILLed: no stopped Python or JVM outlives a test run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface LockEvent {
  event: string;
  [field: string]: unknown;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of running) c.kill('SIGKILL');
  });
}

interface Waiter {
  match: (e: LockEvent) => boolean;
  resolve: (e: LockEvent) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class EventProcess {
  /** Every event so far, in order. */
  readonly events: LockEvent[] = [];
  readonly startedAt = Date.now();
  private readonly child: ChildProcess;
  private readonly waiters = new Set<Waiter>();
  private stderrTail = '';
  private frozen = false;

  constructor(
    readonly label: string,
    command: string,
    args: string[],
  ) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    track(this.child);
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4000)));
    // A write after the child ended must not crash the test run (EPIPE).
    this.child.stdin!.on('error', () => undefined);
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.receive(line));
    this.child.once('exit', (code, signal) => this.failAll(new Error(`${label} exited (${code ?? signal}) ${this.stderr()}`)));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  stderr(): string {
    return this.stderrTail.trim() ? `stderr: ${this.stderrTail.trim()}` : '';
  }

  private receive(line: string): void {
    let event: LockEvent;
    try {
      event = JSON.parse(line) as LockEvent;
    } catch {
      return; // not ours (a library printing to stdout)
    }
    this.events.push(event);
    if (event.event === 'error') {
      this.failAll(new Error(`${this.label}: ${String(event.message)} ${this.stderr()}`));
      return;
    }
    for (const w of this.waiters) {
      if (!w.match(event)) continue;
      this.waiters.delete(w);
      clearTimeout(w.timer);
      w.resolve(event);
    }
  }

  private failAll(error: Error): void {
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    this.waiters.clear();
  }

  /** The first event, already received or still to come, that matches. */
  event(match: (e: LockEvent) => boolean, { withinMs = 60_000, what = 'event' } = {}): Promise<LockEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    const failed = this.events.find((e) => e.event === 'error');
    if (failed) return Promise.reject(new Error(`${this.label}: ${String(failed.message)} ${this.stderr()}`));
    if (this.exited) return Promise.reject(new Error(`${this.label} has exited, no ${what} ${this.stderr()}`));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new Error(`${this.label}: no ${what} within ${withinMs} ms ${this.stderr()}`));
        }, withinMs),
      };
      this.waiters.add(waiter);
    });
  }

  send(command: string): void {
    if (this.frozen) throw new Error(`${this.label} is frozen: thaw it before "${command}"`);
    this.child.stdin!.write(`${command}\n`);
  }

  /** SIGSTOP: connected but silent, the hung process; its sessions stop pinging. */
  freeze(): void {
    this.child.kill('SIGSTOP');
    this.frozen = true;
  }

  thaw(): void {
    this.child.kill('SIGCONT');
    this.frozen = false;
  }

  /** Closes the sessions (their ephemerals go with them) and waits for the exit; SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.frozen) this.thaw();
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /** SIGKILL: the connections drop; the sessions and their ephemerals stay until they expire. */
  async kill(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await exited;
  }
}

/** Runs `start`; if it throws, stops what it started (`started`) before rethrowing. */
export async function orStop<T>(started: { stop(): Promise<void> }[], start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await Promise.all(started.map((s) => s.stop().catch(() => undefined)));
    throw error;
  }
}
