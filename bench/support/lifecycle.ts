/**
 * One benchmark's lifetime: a cleanup stack that runs on success, on error, on SIGINT /
 * SIGTERM and when the bench overruns its time budget, so no JVM, Keeper or socket
 * outlives the run. The body's result is printed and, under run-all, written as JSON.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { printResult, type BenchResult } from './report.js';

export interface Scope {
  /** Registers a cleanup; cleanups run last-in, first-out. */
  defer(what: string, fn: () => unknown): void;
  /** Aborted on a signal or when the time budget is spent. */
  signal: AbortSignal;
  /** A progress line on stderr (stdout carries the figures). */
  log(line: string): void;
}

export const RESULT_FILE_ENV = 'KEEPER_BENCH_RESULT_FILE';

const CLEANUP_BUDGET_MS = 20_000;

export async function runBench(name: string, opts: { timeoutMs: number }, body: (scope: Scope) => Promise<BenchResult>): Promise<never> {
  const cleanups: { what: string; fn: () => unknown }[] = [];
  const controller = new AbortController();
  const began = Date.now();
  const log = (line: string) => process.stderr.write(`[${name} ${((Date.now() - began) / 1000).toFixed(1).padStart(5)}s] ${line}\n`);
  const scope: Scope = { defer: (what, fn) => cleanups.push({ what, fn }), signal: controller.signal, log };

  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      const guard = setTimeout(() => {
        log(`cleanup still running after ${CLEANUP_BUDGET_MS} ms: exiting (the sandbox reaper kills the JVMs)`);
        process.exit(1);
      }, CLEANUP_BUDGET_MS);
      while (cleanups.length > 0) {
        const { what, fn } = cleanups.pop()!;
        try {
          await fn();
        } catch (error) {
          log(`cleanup "${what}" failed: ${String(error)}`);
        }
      }
      clearTimeout(guard);
    })());

  const stop = async (reason: string, code: number) => {
    log(reason);
    controller.abort(new Error(reason));
    await cleanup();
    process.exit(code);
  };
  let signalled = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (signalled) process.exit(130); // a second ^C: go now
    signalled = true;
    void stop(`${sig}: cleaning up`, 130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const overrun = setTimeout(() => void stop(`time budget of ${opts.timeoutMs / 1000} s exceeded: aborting`, 1), opts.timeoutMs);

  // Other work on the machine skews the figures (both sides alike, but noisier): say how busy it was.
  const loadAtStart = loadavg()[0]!;
  try {
    const result = await body(scope);
    result.lines.push(`load average (1 min) at start ${loadAtStart.toFixed(2)}, at end ${loadavg()[0]!.toFixed(2)}, on ${cpus().length} cores`);
    clearTimeout(overrun);
    await cleanup();
    printResult(result);
    const file = process.env[RESULT_FILE_ENV];
    if (file) writeFileSync(file, JSON.stringify(result, null, 2));
    log(`done in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    process.exit(0);
  } catch (error) {
    clearTimeout(overrun);
    if (controller.signal.aborted) await new Promise(() => {}); // stop() owns the exit
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanup();
    process.exit(1);
  }
}

/** Rejects when the bench is aborted, so long waits end promptly. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Polls until `check` is truthy; throws after timeoutMs with `what` in the message. */
export async function until(check: () => boolean, what: string, opts: { timeoutMs: number; intervalMs?: number; signal?: AbortSignal }): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}`);
    await sleep(opts.intervalMs ?? 20, opts.signal);
  }
}

/** Resolves true when `promise` settles within `ms`, false otherwise (no timer or listener left behind). */
export function within(promise: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const done = (value: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => done(false), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => done(true),
      () => done(true),
    );
  });
}
