/** Runs a program (no shell) with a deadline; its failure says which program, and why, in one line. */
import { execFile } from 'node:child_process';

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** Thrown when the program is missing, timed out, or exited non-zero. */
export class RunError extends Error {
  constructor(
    message: string,
    readonly kind: 'missing' | 'timeout' | 'failed',
  ) {
    super(message);
    this.name = 'RunError';
  }
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .at(-1) ?? ''
  );
}

export function runWithDeadline(cmd: string, args: string[], opts: { timeoutMs: number; cwd?: string; env?: NodeJS.ProcessEnv }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      // SIGKILL: a stuck apt-get or JVM may ignore SIGTERM, and the deadline must hold.
      { cwd: opts.cwd, env: opts.env ?? process.env, timeout: opts.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number | null };
        if (e.code === 'ENOENT') return reject(new RunError(`${cmd} not found`, 'missing'));
        if (e.killed) return reject(new RunError(`${cmd} did not finish within ${Math.round(opts.timeoutMs / 1000)} s`, 'timeout'));
        const why = lastLine(stderr) || lastLine(stdout) || `exit code ${String(e.code)}`;
        reject(new RunError(`${cmd} failed: ${why}`, 'failed'));
      },
    );
  });
}
