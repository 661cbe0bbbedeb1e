/**
 * One Keeper as a process of its own, for tests that kill it for real (SIGKILL: no close, its
 * ZooKeeper sessions live on until they expire). Two parts:
 * - run as a script (`node --import tsx keeperProcess.ts <spec.json>`), it starts Keeper with the
 *   spec's options and extras, logs to the spec's log file, and prints "Keeper is serving <url>";
 * - `launchKeeper(spec)`, from a test, writes the spec, spawns that script and answers its URL;
 *   `startReplicaPair(…)` launches two of them as replicas sharing a home ensemble, the way every
 *   replica test that kills one starts, so those files differ only in what they test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { replicasAnswerSchema, type Replica } from '@keeper/shared';
import type { KeeperOptions } from '../../src/config/types.js';
import type { StartExtras } from '../../src/app.js';
import { call } from './http.js';
import { waitFor } from './waitFor.js';

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

/** For a replica test that runs an upgrade: a poll a second, and a restarted member judged back within 45 s after 1 s of calm. */
export const QUICK_UPGRADES: KeeperProcessSpec['extras'] = {
  ensembleDefaults: { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000 },
  upgradeTimings: { settleMs: 1_000, backWithinMs: 45_000 },
};

export interface ReplicaPairOptions {
  /** Where each replica's spec, log and state directory go: a.json, a.log, a-XXXXXX/ (and b's). */
  dir: string;
  /** Both replicas' ensembles; the one named 'home' keeps their shared state under /keeper/replicas. */
  ensembles: KeeperOptions['ensembles'];
  auth: { adminToken: string; viewerToken?: string };
  secret: string;
  /** Every session of both replicas (console and state): a killed one's end this long after. */
  sessionTimeoutMs: number;
  /** More start-up extras (QUICK_UPGRADES); no rate limit gets in a test's way either way. */
  extras?: KeeperProcessSpec['extras'];
  /** More options both replicas carry (trustProxy behind nginx). */
  options?: Partial<KeeperOptions>;
}

export interface ReplicaPair {
  a: KeeperProcess;
  b: KeeperProcess;
  /** Each one's entry in GET /api/replicas: its id and name, as the hand-over sentences say them. */
  ids: { a: Replica; b: Replica };
}

/**
 * Two Keeper processes as replicas of one home ensemble, launched together; answers once each
 * lists both in GET /api/replicas. `started` receives each process as it serves, so that the
 * caller's afterAll stops it even when the other one fails to start.
 */
export async function startReplicaPair(pair: ReplicaPairOptions, started: KeeperProcess[]): Promise<ReplicaPair> {
  const spec = (name: string): KeeperProcessSpec => ({
    options: {
      host: '127.0.0.1',
      port: 0,
      ensembles: pair.ensembles,
      auth: { stateDir: mkdtempSync(join(pair.dir, `${name}-`)), ...pair.auth },
      replicas: { stateEnsemble: 'home', root: '/keeper/replicas', secret: pair.secret, sharedPolling: false },
      ...pair.options,
    },
    extras: { gatewayDefaults: { sessionTimeoutMs: pair.sessionTimeoutMs }, rateLimits: { api: 100_000, loginFailures: 1_000 }, ...pair.extras },
    logFile: join(pair.dir, `${name}.log`),
  });
  const launch = async (name: string) => {
    const keeper = await launchKeeper(spec(name), join(pair.dir, `${name}.json`));
    started.push(keeper);
    return keeper;
  };
  const [a, b] = await Promise.all([launch('a'), launch('b')]);
  const listed = async (on: KeeperProcess) => {
    const res = await call(on.url, 'GET', '/api/replicas', { token: pair.auth.adminToken });
    const list = res.status === 200 ? replicasAnswerSchema.parse(res.body).replicas : [];
    const [ra, rb] = [list.find((r) => r.url === a.url), list.find((r) => r.url === b.url)];
    return list.length === 2 && ra && rb ? { a: ra, b: rb } : null;
  };
  const ids = await waitFor(async () => ((await listed(a)) && (await listed(b))) || null, { what: 'both replicas registered on each', timeoutMs: 60_000 });
  return { a, b, ids };
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
