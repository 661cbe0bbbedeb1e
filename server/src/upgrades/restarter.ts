/**
 * The three ways a member is restarted (issue 13, item 3): the config's `restartCommand` (run as
 * an argv with no shell unless the config asks for one, with a deadline, in its own process group
 * whose pid the step records, its output's tail kept for admins), the sandbox's own restarter
 * (`npm start` and the tests hand it in), or the operator by hand (nothing runs: the step shows
 * what to do and waits for evidence or "mark done").
 */
import { spawn } from 'node:child_process';
import { fillRestartCommand, manualInstruction, type CommandProcess, type RestartCommandConfig, type RestartMethod, type UpgradeStep } from '@keeper/shared';
import { describeProcess } from './commandProcess.js';

/** Bytes of a command's output kept in the step's log (its end: where the error usually is). */
export const OUTPUT_TAIL_BYTES = 4 * 1024;
export const DEFAULT_RESTART_COMMAND_TIMEOUT_SECONDS = 120;

export interface RestartOutcome {
  exitCode: number | null;
  outputTail: string;
  timedOut?: boolean;
  processChanged?: boolean;
}

/** What the sandbox offers: restart member `id` of `ensemble`; resolves once it serves again (or throws). */
export type SandboxRestart = (ensemble: string, memberId: number) => Promise<{ message?: string; processChanged?: boolean }>;

/** What the step records before the restart is issued: the filled command line and its deadline, or the operator's instruction. */
export interface RestartDescription {
  commandLine?: string;
  commandDeadlineAt?: number;
  instruction?: string;
}

export interface Restarter {
  method: RestartMethod;
  describe(step: UpgradeStep, at: number): RestartDescription;
  /** Issues the restart; null when nothing runs (manual): the polls alone tell what happened. `onSpawn` hears of a command's process. */
  run(step: UpgradeStep, onSpawn?: (process: CommandProcess) => void): Promise<RestartOutcome> | null;
}

/** Keeps the last `max` bytes of a stream of chunks. */
export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max = OUTPUT_TAIL_BYTES) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= this.max) this.size -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    const cut = all.length > this.max;
    // A cut may fall inside a UTF-8 sequence: the decoder replaces the torn character.
    return `${cut ? '…' : ''}${all.subarray(Math.max(0, all.length - this.max)).toString('utf8')}`;
  }
}

/**
 * Runs `argv` (no shell: the program and its arguments as they are) in its own process group; at
 * the deadline the whole group is killed. `onSpawn` gets the process, for the durable state.
 */
export function runCommand(
  argv: readonly string[],
  timeoutMs: number,
  { tailBytes = OUTPUT_TAIL_BYTES, onSpawn }: { tailBytes?: number; onSpawn?: (process: CommandProcess) => void } = {},
): Promise<RestartOutcome> {
  return new Promise((resolve) => {
    const tail = new OutputTail(tailBytes);
    let timedOut = false;
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (child.pid !== undefined) onSpawn?.(describeProcess(child.pid));
    child.stdout.on('data', (c: Buffer) => tail.push(c));
    child.stderr.on('data', (c: Buffer) => tail.push(c));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      tail.push(Buffer.from(`\n${error.message}`));
      resolve({ exitCode: null, outputTail: tail.text() });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: timedOut ? null : code, outputTail: tail.text(), ...(timedOut ? { timedOut } : {}) });
    });
  });
}

/** Runs `line` in /bin/sh (the config's explicit `"shell": true`); see runCommand. */
export const runShell = (line: string, timeoutMs: number, tailBytes = OUTPUT_TAIL_BYTES): Promise<RestartOutcome> =>
  runCommand(['/bin/sh', '-c', line], timeoutMs, { tailBytes });

export function commandRestarter(template: RestartCommandConfig, timeoutSeconds = DEFAULT_RESTART_COMMAND_TIMEOUT_SECONDS): Restarter {
  return {
    method: 'command',
    describe: (step, at) => ({ commandLine: fillRestartCommand(template, step).display, commandDeadlineAt: at + timeoutSeconds * 1000 }),
    run: (step, onSpawn) => runCommand(fillRestartCommand(template, step).argv, timeoutSeconds * 1000, onSpawn ? { onSpawn } : {}),
  };
}

export function sandboxRestarter(ensemble: string, restart: SandboxRestart): Restarter {
  return {
    method: 'sandbox',
    describe: () => ({}),
    run: async (step) => {
      if (step.memberId === null) return { exitCode: null, outputTail: `${step.address} has no server id: the sandbox restarts members by id` };
      try {
        const outcome = await restart(ensemble, step.memberId);
        return { exitCode: 0, outputTail: outcome.message ?? '', ...(outcome.processChanged ? { processChanged: true } : {}) };
      } catch (error) {
        return { exitCode: 1, outputTail: (error as Error).message.slice(-OUTPUT_TAIL_BYTES) };
      }
    },
  };
}

export const manualRestarter: Restarter = {
  method: 'manual',
  describe: (step) => ({ instruction: manualInstruction(step) }),
  run: () => null,
};
