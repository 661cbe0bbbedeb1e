/**
 * Scale: what 1, 100, 500 and 1,000 browsers cost one Keeper process. N viewers, each signed in
 * with the viewer token in its own session (Keeper's default limits: none raised), follow the
 * same 50 znodes and ping once a second; a plain ZooKeeper client in its own process writes one
 * of them 10 times a second, stamping each value with its clock. The browsers live in a few
 * child processes that find the stamp without parsing the frame, so their own work weighs as
 * little as it can on the figures. Printed for each N:
 *  - write→socket p50 and p99 over every socket and every write, and their ratio to 1 browser;
 *  - Keeper's RSS (peak during the writes) and CPU (share of one core);
 *  - ZooKeeper's packets a second from Keeper: the members' srvr `Received`, less the writer's
 *    writes and srvr's own, against 1 browser.
 * Targets at 1,000: p99 ≤ 3× one browser's, RSS ≤ 1 GB, ZooKeeper cost 1.0×.
 *
 *   npx tsx bench/scale.ts            (SCALE_COUNTS=1,100 for a shorter run)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ENSEMBLE, PORT_OFFSETS, startBenchEnv, type BenchEnv } from './support/benchEnv.js';
import { runBench, sleep, until, type Scope } from './support/lifecycle.js';
import { ensemblePackets } from './support/memberCounters.js';
import { openRaw } from './support/rawZk.js';
import { percentile } from './support/stats.js';
import type { SummaryRow } from './support/report.js';

const COUNTS = (process.env.SCALE_COUNTS ?? '1,100,500,1000').split(',').map(Number);
const ZNODES = 50;
const WRITES_PER_SECOND = 10;
const WARMUP_MS = 3_000;
const MEASURE_MS = 10_000;
const CLIENT_PROCESSES = 4;
const ROOT = '/bench/scale';
const VIEWER = 'viewer-token-for-the-scale-bench-0123456789';
const ADMIN = 'admin-token-for-the-scale-bench-0123456789';

interface Phase {
  browsers: number;
  writes: number;
  writeErrors: number;
  seconds: number;
  samples: number[];
  expectedSamples: number;
  p50: number;
  p99: number;
  peakRssMiB: number;
  cpuShare: number;
  zkPacketsPerSecond: number;
  /** The writer's own write round trips (ZooKeeper's latency in the same moment), p50 and p99. */
  ackP50: number;
  ackP99: number;
  /** Keeper's event loop: p99 of its delay, ms (how long an event could wait for Keeper itself). */
  loopDelayP99: number;
  /** Keeper's CPU time per (socket, write) pair delivered, µs: what the fan-out costs, whatever the machine's load. */
  cpuPerDeliveryUs: number;
  errors: string[];
}

/** A child process answering each command with one message, in order. */
class Child {
  private readonly waiting: ((message: unknown) => void)[] = [];

  constructor(readonly process: ChildProcess) {
    process.on('message', (message) => this.waiting.shift()?.(message));
  }

  static fork(scope: Scope, file: string, label: string): Child {
    const child = fork(fileURLToPath(new URL(file, import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    scope.defer(`stop ${label}`, () => child.kill('SIGKILL'));
    return new Child(child);
  }

  ask<T>(command: unknown, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(command).slice(0, 80)} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.push((message) => {
        clearTimeout(timer);
        const error = (message as { error?: string }).error;
        if (error) reject(new Error(error));
        else resolve(message as T);
      });
      this.process.send(command as never);
    });
  }
}

/** Signs `count` people in with the viewer token: a session cookie each. */
async function signIn(url: string, count: number): Promise<string[]> {
  const cookies: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: VIEWER }) });
    if (res.status !== 200) throw new Error(`sign-in ${i} answered ${res.status}: ${await res.text()}`);
    cookies.push(/keeper_session=[^;]*/.exec(res.headers.get('set-cookie') ?? '')![0]);
  }
  return cookies;
}

async function srvrOverhead(env: BenchEnv): Promise<number> {
  const a = await ensemblePackets(env.ensemble.members);
  const b = await ensemblePackets(env.ensemble.members);
  return b.received - a.received;
}

async function runPhase(scope: Scope, env: BenchEnv, clients: Child[], writer: Child, cookies: string[], paths: string[], overhead: number): Promise<Phase> {
  const n = cookies.length;
  const used = n === 1 ? clients.slice(0, 1) : clients;
  scope.log(`${n} browser(s): connecting through ${used.length} process(es), each following ${paths.length} znodes`);
  await Promise.all(
    used.map((child, i) => {
      const mine = cookies.filter((_, j) => j % used.length === i);
      return child.ask({ cmd: 'open', url: env.keeper.url, cookies: mine, paths, ensemble: ENSEMBLE }, 300_000);
    }),
  );
  await until(() => env.keeper.hub.stats.sockets === n, `${n} sockets`, { timeoutMs: 30_000, signal: scope.signal });
  scope.log(`${n} browser(s): warming up`);
  await writer.ask({ cmd: 'write', path: paths[0], perSecond: WRITES_PER_SECOND, durationMs: WARMUP_MS }, WARMUP_MS + 30_000);
  await sleep(500, scope.signal);

  await Promise.all(used.map((c) => c.ask({ cmd: 'record', on: true }, 10_000)));
  const packets0 = await ensemblePackets(env.ensemble.members);
  const cpu0 = process.cpuUsage();
  const began = performance.now();
  let peakRss = process.memoryUsage().rss;
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  scope.log(`${n} browser(s): writing ${WRITES_PER_SECOND}/s for ${MEASURE_MS / 1000} s`);
  const load = await writer.ask<{ writes: number; errors: number; acks: number[] }>(
    { cmd: 'write', path: paths[0], perSecond: WRITES_PER_SECOND, durationMs: MEASURE_MS },
    MEASURE_MS + 30_000,
  );
  await sleep(1_000, scope.signal);
  const seconds = (performance.now() - began) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  loop.disable();
  const packets1 = await ensemblePackets(env.ensemble.members);
  const reports = await Promise.all(used.map((c) => c.ask<{ samples: number[]; errors: string[]; errorCount: number }>({ cmd: 'report' }, 30_000)));
  await Promise.all(used.map((c) => c.ask({ cmd: 'record', on: false }, 10_000)));
  await Promise.all(used.map((c) => c.ask({ cmd: 'close' }, 30_000)));
  await until(() => env.keeper.hub.stats.sockets === 0 && env.gateway.watches.watchedPaths === 0, 'every socket and watch released', {
    timeoutMs: 60_000,
    signal: scope.signal,
  });

  const samples = reports.flatMap((r) => r.samples);
  const keeperPackets = packets1.received - packets0.received - overhead - load.writes;
  return {
    browsers: n,
    writes: load.writes,
    writeErrors: load.errors,
    seconds,
    samples,
    expectedSamples: n * load.writes,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    peakRssMiB: peakRss / 1048576,
    cpuShare: (cpu.user + cpu.system) / 1000 / (seconds * 1000),
    zkPacketsPerSecond: keeperPackets / seconds,
    ackP50: percentile(load.acks, 50),
    ackP99: percentile(load.acks, 99),
    loopDelayP99: loop.percentile(99) / 1e6,
    cpuPerDeliveryUs: samples.length > 0 ? (cpu.user + cpu.system) / samples.length : Number.NaN,
    errors: reports.flatMap((r) => r.errors).slice(0, 5),
  };
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

await runBench('scale', { timeoutMs: 1_200_000 }, async (scope) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'keeper-scale-bench-'));
  scope.defer('remove auth state', () => rmSync(stateDir, { recursive: true, force: true }));
  const env = await startBenchEnv(scope, PORT_OFFSETS.scaleBench, undefined, { auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER } });
  const raw = await openRaw(scope, env.ensemble.connectionString, 'setup');
  await raw.mkdirp(ROOT);
  const paths = Array.from({ length: ZNODES }, (_, i) => `${ROOT}/n-${String(i).padStart(2, '0')}`);
  await raw.createMany(paths, 'initial');

  const writer = Child.fork(scope, './support/scaleWriter.ts', 'writer');
  await writer.ask({ cmd: 'connect', connectionString: env.ensemble.connectionString }, 30_000);
  const clients = Array.from({ length: CLIENT_PROCESSES }, (_, i) => Child.fork(scope, './support/scaleClients.ts', `clients ${i}`));
  scope.log(`signing in ${Math.max(...COUNTS)} people with the viewer token`);
  const cookies = await signIn(env.keeper.url, Math.max(...COUNTS));
  const overhead = await srvrOverhead(env);

  const phases: Phase[] = [];
  for (const n of COUNTS) phases.push(await runPhase(scope, env, clients, writer, cookies.slice(0, n), paths, overhead));
  const one = phases.find((p) => p.browsers === 1) ?? phases[0]!;

  const notes: string[] = [];
  for (const p of phases) {
    if (p.samples.length < p.expectedSamples) notes.push(`${p.browsers} browser(s): ${p.samples.length} of ${p.expectedSamples} (socket, write) pairs seen`);
    if (p.errors.length > 0) notes.push(`${p.browsers} browser(s): ${p.errors.join('; ')}`);
    if (p.writeErrors > 0) notes.push(`${p.browsers} browser(s): ${p.writeErrors} writes failed`);
  }
  const lines = [
    `${ZNODES} znodes followed by every browser, one of them written ${WRITES_PER_SECOND}/s; ${MEASURE_MS / 1000} s measured per step (after ${WARMUP_MS / 1000} s of warm-up)`,
    `browsers | write→socket p50 (ms) | p99 (ms) | p50 / p99 vs 1 | Keeper RSS peak (MiB) | Keeper CPU | ZooKeeper packets/s from Keeper (vs 1) | write ack p50 / p99 (ms) | Keeper loop delay p99 (ms) | Keeper CPU per delivery (µs)`,
    ...phases.map(
      (p) =>
        `${String(p.browsers).padStart(8)} | ${fmt(p.p50, 2).padStart(21)} | ${fmt(p.p99, 2).padStart(8)} | ${fmt(p.p50 / one.p50, 2)}× / ${fmt(p.p99 / one.p99, 2)}× | ` +
        `${fmt(p.peakRssMiB, 0).padStart(21)} | ${fmt(p.cpuShare * 100, 0).padStart(9)} % | ${fmt(p.zkPacketsPerSecond)} (${fmt(p.zkPacketsPerSecond / one.zkPacketsPerSecond, 2)}×) | ` +
        `${fmt(p.ackP50, 2)} / ${fmt(p.ackP99, 2)} | ${fmt(p.loopDelayP99, 1)} | ${fmt(p.cpuPerDeliveryUs, 0)}`,
    ),
    `write ack: the writer's own setData round trip, ZooKeeper's latency at that moment; loop delay: how late Keeper's event loop ran (a busy Keeper, or a machine that gives it no CPU); CPU per delivery: Keeper's CPU time in the window (pings included) over the (socket, write) pairs delivered`,
    `srvr overhead per reading of all members: ${overhead} packets (subtracted)`,
  ];
  const rows: SummaryRow[] = [];
  for (const p of phases) {
    if (p === one) continue;
    const ratio = p.p99 / one.p99;
    rows.push({
      measure: `write→socket p99, ${p.browsers} browsers vs 1`,
      keeper: `${fmt(p.p99, 2)} ms`,
      baseline: `${fmt(one.p99, 2)} ms`,
      ratio,
      target: p.browsers >= 1_000 ? '≤ 3' : '—',
      withinTarget: p.browsers >= 1_000 ? ratio <= 3 : true,
    });
  }
  const top = phases.at(-1)!;
  rows.push({
    measure: `Keeper RSS with ${top.browsers} browsers (MiB) vs 1`,
    keeper: fmt(top.peakRssMiB, 0),
    baseline: fmt(one.peakRssMiB, 0),
    ratio: top.peakRssMiB / one.peakRssMiB,
    target: 'RSS ≤ 1024 MiB',
    withinTarget: top.peakRssMiB <= 1024,
  });
  const zkRatio = top.zkPacketsPerSecond / one.zkPacketsPerSecond;
  rows.push({
    measure: `ZooKeeper packets/s from Keeper, ${top.browsers} browsers vs 1`,
    keeper: `${fmt(top.zkPacketsPerSecond)}/s`,
    baseline: `${fmt(one.zkPacketsPerSecond)}/s`,
    ratio: zkRatio,
    target: '≈ 1',
    withinTarget: zkRatio >= 0.9 && zkRatio <= 1.1,
  });
  return { bench: 'scale', title: `Scale: 1 to ${top.browsers} browsers on one Keeper process`, lines, rows, notes, zookeeperVersion: env.zookeeperVersion };
});
