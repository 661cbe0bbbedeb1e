/**
 * `npm start` as its own process, for tests that restart or kill Keeper for real: spawned with
 * the repository's tsx, answered once it prints the URL it serves. Every line it writes is kept
 * (stdout and stderr apart), so a test can read the JSON lines it logs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface KeeperProcess {
  url: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function launchKeeper(args: string[], env: Record<string, string> = {}, { timeoutMs = 60_000 } = {}): Promise<KeeperProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Keeper did not serve within ${timeoutMs} ms:\n${out}\n${err}`)), timeoutMs);
    child.stdout!.on('data', (d) => {
      out += String(d);
      const served = /Keeper is serving (http:\/\/\S+)/.exec(out)?.[1];
      if (served) {
        clearTimeout(timer);
        resolve(served);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Keeper exited (${code ?? signal}) before serving:\n${out}\n${err}`));
    });
  });
  return {
    url,
    child,
    stdout: () => out,
    stderr: () => err,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
