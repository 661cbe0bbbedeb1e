/** Running scripts/lib/kazoo/driver.py with Debian's python3-kazoo (never a pip-installed copy). */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const PYTHON = '/usr/bin/python3';
export const DRIVER_PY = fileURLToPath(new URL('./driver.py', import.meta.url));

/**
 * Starts a long-lived driver.py command (or another script of this directory's, e.g. loadwriter.py). stdin stays an open pipe: the held sessions end when it
 * closes, so they also end when this process dies (never a stray Python holding sessions).
 */
export function spawnKazoo(args: string[], script: string = DRIVER_PY): { child: ChildProcess; stderr: () => string } {
  const child = spawn(PYTHON, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return { child, stderr: () => stderr };
}

/**
 * Resolves with the rest of the first stdout line starting with `prefix` (driver.py prints
 * "ready ..." once its sessions are open); every line goes to `onLine` as well.
 */
export function readyLine(
  child: ChildProcess,
  prefix: string,
  { withinMs, stderr, onLine }: { withinMs: number; stderr: () => string; onLine?: (line: string) => void },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kazoo not ready within ${withinMs} ms: ${stderr()}`)), withinMs);
    const exited = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`kazoo exited (${code}) before ready: ${stderr()}`));
    };
    child.once('exit', exited);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      onLine?.(line);
      if (!line.startsWith(prefix)) return;
      clearTimeout(timer);
      child.off('exit', exited);
      resolve(line.slice(prefix.length));
    });
  });
}

/** SIGKILL (unless it already ended), then waits for the exit. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}
