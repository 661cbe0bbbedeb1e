/**
 * The three ways a member is restarted (issue 13, item 3): the config's `restartCommand` (a shell
 * command run with a deadline, its output's tail kept in the step's log), the sandbox's own
 * restarter (`npm start` and the tests hand it in), or the operator by hand (nothing runs: the
 * step shows what to do and waits for evidence or "mark done").
 */
import { spawn } from 'node:child_process';
import { fillRestartCommand, manualInstruction, type RestartMethod, type UpgradeStep } from '@keeper/shared';

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

export interface Restarter {
  method: RestartMethod;
  /** What the step records before the restart is issued: the filled command line, or the operator's instruction. */
  describe(step: UpgradeStep): { commandLine?: string; instruction?: string };
  /** Issues the restart; null when nothing runs (manual): the polls alone tell what happened. */
  run(step: UpgradeStep): Promise<RestartOutcome> | null;
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

/** Runs `line` in /bin/sh in its own process group; at the deadline the whole group is killed. */
export function runShell(line: string, timeoutMs: number, tailBytes = OUTPUT_TAIL_BYTES): Promise<RestartOutcome> {
  return new Promise((resolve) => {
    const tail = new OutputTail(tailBytes);
    let timedOut = false;
    const child = spawn('/bin/sh', ['-c', line], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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

export function commandRestarter(template: string, timeoutSeconds = DEFAULT_RESTART_COMMAND_TIMEOUT_SECONDS): Restarter {
  return {
    method: 'command',
    describe: (step) => ({ commandLine: fillRestartCommand(template, step) }),
    run: (step) => runShell(fillRestartCommand(template, step), timeoutSeconds * 1000),
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
