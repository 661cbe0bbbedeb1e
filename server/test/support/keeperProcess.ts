/**
 * One Keeper as a process of its own, for tests that kill it for real (SIGKILL: no close, its
 * ZooKeeper sessions live on until they expire). Two parts:
 * - run as a script (`node --import tsx keeperProcess.ts <spec.json>`), it starts Keeper with the
 *   spec's options and extras, logs to the spec's log file, and prints "Keeper is serving <url>";
 * - `launchKeeper(spec)`, from a test, writes the spec, spawns that script and answers its URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, writeFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { KeeperOptions } from '../../src/config/types.js';
import type { StartExtras } from '../../src/app.js';

const REPO = resolve(import.meta.dirname, '../../..');

/** What crosses to the child: JSON only (no logger, no functions). */
export interface KeeperProcessSpec {
  options: KeeperOptions;
  extras: Pick<StartExtras, 'gatewayDefaults' | 'ensembleDefaults' | 'rateLimits' | 'upgradeTimings'>;
  /** Where the child's log goes (JSON lines at `logLevel`, default info). */
  logFile: string;
  logLevel?: string;
}

export interface KeeperProcess {
  url: string;
  child: ChildProcess;
  /** SIGKILL, and resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a graceful close) unless already gone. */
  stop(): Promise<void>;
}

const gone = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

export async function launchKeeper(spec: KeeperProcessSpec, specFile: string): Promise<KeeperProcess> {
  writeFileSync(specFile, JSON.stringify(spec));
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'server', 'test', 'support', 'keeperProcess.ts'), specFile], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (d) => (out += String(d)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout!.on('data', (d) => {
      out += String(d);
      const found = /Keeper is serving (http:\/\/\S+)/.exec(out)?.[1];
      if (found) resolveUrl(found);
    });
    child.once('exit', (code, signal) => reject(new Error(`Keeper exited (${code ?? signal}) before serving:\n${out}`)));
  });
  const exited = new Promise<void>((r) => (gone(child) ? r() : child.once('exit', () => r())));
  return {
    url,
    child,
    async kill() {
      if (!gone(child)) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!gone(child)) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function main(specFile: string): Promise<void> {
  const { startKeeper } = await import('../../src/app.js');
  const { createLogger } = await import('../../src/logger.js');
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as KeeperProcessSpec;
  const logger = createLogger(spec.logLevel ?? 'info', createWriteStream(spec.logFile, { flags: 'a' }));
  const keeper = await startKeeper(spec.options, { ...spec.extras, logger });
  const stop = () => void keeper.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.log(`Keeper is serving ${keeper.url}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv[2] ?? '').catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
