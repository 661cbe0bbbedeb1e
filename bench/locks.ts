/**
 * The lock scan (issue 12, items 7 and 12): a scan of the whole tree, holding 10^5 task znodes
 * and 10^3 contenders in 10^2 lock directories, must leave the ensemble's average latency
 * within 1.2x of idle. Measured by a raw client in its own process (latencyProbe.ts: getData
 * every 20 ms on each member, the way the other benches time a read) in idle windows and
 * during two walks of the same tree: a raw client's, unpaced (2 requests always out, as a
 * plain script walks), to show what the pacing buys and what it costs in time; then Keeper's
 * paced scan. Each walk is compared with the mean of the idle windows on either side of it,
 * so that slow drift on a shared machine cancels out.
 *
 * The tree: 100 queues /tasks/q-NN, each with `available` holding 1,000 tasks and one lock
 * directory of 10 contenders (kazoo Lock names in even queues, Curator InterProcessMutex names
 * in odd ones). Seed 000 kept its 10^5 tasks in ONE list; the scan does not descend a list
 * that big (more than 10,000 children and not a lock: listed, 1 request), so that layout
 * would not test the pacing at all. Split into lists of 1,000, every task is a node the scan
 * must read: 100,302 getChildren, the worst case for the ensemble.
 *
 *   npx tsx bench/locks.ts
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recognizeLock } from '@keeper/shared';
import { scanForLocks, type ScanResult } from '../server/src/locks/scan.js';
import type { PacingOptions } from '../server/src/locks/scanPacer.js';
import { PORT_OFFSETS, startBenchEnv, type BenchEnv } from './support/benchEnv.js';
import { runBench, sleep, until, type Scope } from './support/lifecycle.js';
import { openRaw, type RawZk } from './support/rawZk.js';

const QUEUES = 100;
const TASKS_PER_QUEUE = 1_000;
const CONTENDERS = 10;
const CHUNK = 1_000;
const PARALLEL_COMMITS = 4;
const IDLE_WINDOW_MS = 20_000;
/** After a scan, before the next window: let the members' queues and GC settle. */
const SETTLE_MS = 3_000;
const POST_BUILD_SETTLE_MS = 20_000;
const PROBE_PATH = '/probe';
const benchDir = dirname(fileURLToPath(import.meta.url));

const seq = (i: number) => String(i).padStart(10, '0');
const uuidHex = () => randomUUID().replace(/-/g, '');
const queue = (q: number) => `/tasks/q-${String(q).padStart(2, '0')}`;
const lockDir = (q: number) => `${queue(q)}/${q % 2 === 0 ? 'lock' : 'mutex'}`;
const contender = (q: number, i: number) => (q % 2 === 0 ? `${uuidHex()}__lock__${seq(i)}` : `_c_${randomUUID()}-lock-${seq(i)}`);

interface Sample {
  member: number;
  at: number;
  ms: number;
}

async function buildTree(scope: Scope, raw: RawZk): Promise<number> {
  const began = performance.now();
  await raw.mkdirp('/tasks');
  await raw.create(PROBE_PATH, 'probe');
  const batches: string[][] = [];
  for (let q = 0; q < QUEUES; q++) {
    batches.push([queue(q), `${queue(q)}/available`, lockDir(q), ...Array.from({ length: CONTENDERS }, (_, i) => `${lockDir(q)}/${contender(q, i)}`)]);
    for (let from = 0; from < TASKS_PER_QUEUE; from += CHUNK)
      batches.push(
        Array.from({ length: Math.min(CHUNK, TASKS_PER_QUEUE - from) }, (_, i) => `${queue(q)}/available/task-${String(from + i).padStart(6, '0')}`),
      );
  }
  // A queue's own nodes first (its parents), then its tasks; queues in parallel.
  const heads = batches.filter((b) => b[0]!.split('/').length === 3);
  for (const head of heads) await raw.createMany(head, '{}');
  let next = 0;
  const tasks = batches.filter((b) => b[0]!.split('/').length !== 3);
  const worker = async () => {
    while (next < tasks.length && !scope.signal.aborted) await raw.createMany(tasks[next++]!, '{}');
  };
  await Promise.all(Array.from({ length: PARALLEL_COMMITS }, worker));
  return performance.now() - began;
}

class Probe {
  readonly samples: Sample[] = [];
  static async start(scope: Scope, env: BenchEnv): Promise<Probe> {
    const members = env.ensemble.members.map((m) => `${m.host}:${m.clientPort}`);
    const child = spawn(process.execPath, ['--import', 'tsx', join(benchDir, 'support', 'latencyProbe.ts'), PROBE_PATH, ...members], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    scope.defer('stop latency probe', () => child.kill('SIGTERM'));
    const probe = new Probe();
    let ready = false;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') ready = true;
      const [m, at, ms] = line.split(' ').map(Number);
      if (ms !== undefined && Number.isFinite(ms)) probe.samples.push({ member: m!, at: at!, ms });
    });
    await until(() => ready, 'the latency probe to connect', { timeoutMs: 30_000, signal: scope.signal });
    return probe;
  }

  between(from: number, to: number): Sample[] {
    return this.samples.filter((s) => s.at >= from && s.at < to);
  }
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (n: number, d = 3) => n.toFixed(d);

interface Window {
  label: string;
  from: number;
  to: number;
}

async function idleWindow(scope: Scope, label: string): Promise<Window> {
  const from = Date.now();
  scope.log(`${label}: idle for ${IDLE_WINDOW_MS / 1000} s`);
  await sleep(IDLE_WINDOW_MS, scope.signal);
  return { label, from, to: Date.now() };
}

/**
 * What a plain script does: the same breadth-first walk on a raw node-zookeeper-client session,
 * the same lock test and big-directory rule, 2 requests always out, no pacing.
 */
async function rawWalk(raw: RawZk, isLock: (path: string, children: readonly string[], siblings: readonly string[] | null) => boolean): Promise<ScanResult> {
  const began = performance.now();
  const queue: { path: string; siblings: readonly string[] | null }[] = [{ path: '/', siblings: null }];
  let head = 0;
  let requests = 0;
  let inFlight = 0;
  const found: string[] = [];
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (inFlight < 2 && head < queue.length) {
        const item = queue[head++]!;
        inFlight++;
        requests++;
        raw
          .getChildren(item.path)
          .then(
            (children) => {
              if (isLock(item.path, children, item.siblings)) found.push(item.path);
              else if (children.length <= 10_000 || item.siblings === null)
                for (const c of children)
                  if (item.path !== '/' || c !== 'zookeeper') queue.push({ path: item.path === '/' ? `/${c}` : `${item.path}/${c}`, siblings: children });
            },
            () => undefined,
          )
          .finally(() => {
            inFlight--;
            if (head >= queue.length && inFlight === 0) resolve();
            else pump();
          });
      }
    };
    pump();
  });
  return {
    state: 'done',
    visited: requests,
    found,
    requests,
    skipped: [],
    skippedTotal: 0,
    durationMs: performance.now() - began,
    pacing: { dutyCycle: 1, concurrency: 2, baselineMs: null, recentMs: null, slowdowns: 0 },
  };
}

const isLockDirectory = (path: string, children: readonly string[], siblings: readonly string[] | null) => recognizeLock({ path, children, siblings }) !== null;

async function rawWindow(scope: Scope, raw: RawZk, label: string): Promise<{ window: Window; result: ScanResult }> {
  await sleep(SETTLE_MS, scope.signal);
  scope.log(`${label}: a raw client walks / with 2 requests always out`);
  const from = Date.now();
  const result = await rawWalk(raw, isLockDirectory);
  const window = { label, from, to: Date.now() };
  await sleep(SETTLE_MS, scope.signal);
  return { window, result };
}

async function scanWindow(scope: Scope, env: BenchEnv, label: string, pacing: PacingOptions | undefined): Promise<{ window: Window; result: ScanResult }> {
  await sleep(SETTLE_MS, scope.signal);
  scope.log(`${label}: scanning /`);
  const from = Date.now();
  let lastLog = 0;
  const result = await scanForLocks({
    root: '/',
    reader: env.gateway,
    isLockDirectory,
    ...(pacing ? { pacing } : {}),
    budget: { deadlineMs: 15 * 60_000 },
    cancelled: () => scope.signal.aborted,
    onFound: () => undefined,
    onProgress: (p) => {
      if (Date.now() - lastLog < 10_000) return;
      lastLog = Date.now();
      const { dutyCycle, concurrency, baselineMs, recentMs, slowdowns } = p.pacing;
      scope.log(
        `  ${p.visited} visited, ${p.found} found, ${p.queued} queued; duty ${fmt(dutyCycle, 2)}, concurrency ${concurrency}, ` +
          `baseline ${baselineMs === null ? '?' : fmt(baselineMs)} ms, recent ${recentMs === null ? '?' : fmt(recentMs)} ms, ${slowdowns} slowdowns`,
      );
    },
  });
  const window = { label, from, to: Date.now() };
  await sleep(SETTLE_MS, scope.signal);
  return { window, result };
}

await runBench('locks', { timeoutMs: 1_200_000 }, async (scope) => {
  const env = await startBenchEnv(scope, PORT_OFFSETS.locksBench);
  const raw = await openRaw(scope, env.ensemble.connectionString, 'builder');
  scope.log(`building ${QUEUES * TASKS_PER_QUEUE} tasks and ${QUEUES * CONTENDERS} contenders in ${QUEUES} lock directories`);
  const buildMs = await buildTree(scope, raw);
  raw.client.close();
  // The raw walker reads from the member Keeper's session is on, like the scan.
  const walker = await openRaw(scope, env.keeperMember, 'walker');
  const probe = await Probe.start(scope, env);
  // 10^5 creates leave the members a snapshot to write and garbage to collect, and the probe a JIT
  // to warm: a window measured at once is slower than idle (by 30-50 % in trials), which would flatter the scan.
  scope.log(`letting the ensemble settle for ${POST_BUILD_SETTLE_MS / 1000} s after the build`);
  await sleep(POST_BUILD_SETTLE_MS, scope.signal);

  const idle1 = await idleWindow(scope, 'idle 1');
  const unpaced = await rawWindow(scope, walker, 'raw walk');
  const idle2 = await idleWindow(scope, 'idle 2');
  const paced = await scanWindow(scope, env, 'paced scan', undefined);
  const idle3 = await idleWindow(scope, 'idle 3');

  const keeperMember = env.ensemble.members.findIndex((m) => `${m.host}:${m.clientPort}` === env.keeperMember);
  const stats = (w: Window) => {
    const all = probe.between(w.from, w.to);
    const on = all.filter((s) => s.member === keeperMember).map((s) => s.ms);
    return { all: mean(all.map((s) => s.ms)), on: mean(on), n: all.length };
  };
  const idleAround = (a: Window, b: Window) => {
    const x = stats(a);
    const y = stats(b);
    return { all: (x.all + y.all) / 2, on: (x.on + y.on) / 2 };
  };
  // Each scan against the idle windows on either side of it: slow drift on a shared machine cancels out.
  const idleForUnpaced = idleAround(idle1, idle2);
  const idleForPaced = idleAround(idle2, idle3);
  const p = stats(paced.window);
  const u = stats(unpaced.window);
  const ratioAll = p.all / idleForPaced.all;
  const ratioOn = p.on / idleForPaced.on;
  const uRatioAll = u.all / idleForUnpaced.all;
  const uRatioOn = u.on / idleForUnpaced.on;
  const seconds = (r: ScanResult) => r.durationMs / 1000;
  const perLock = (r: ScanResult) => r.requests / Math.max(1, r.found.length);

  const notes: string[] = [];
  for (const [label, r] of [
    ['paced', paced.result],
    ['raw walk', unpaced.result],
  ] as const) {
    if (r.state !== 'done') notes.push(`${label} scan ended "${r.state}"`);
    if (r.found.length !== QUEUES) notes.push(`${label} scan found ${r.found.length} lock directories, expected ${QUEUES}`);
    if (r.skippedTotal > 0)
      notes.push(
        `${label} scan skipped ${r.skippedTotal}: ${r.skipped
          .slice(0, 3)
          .map((s) => `${s.path} (${s.reason})`)
          .join('; ')}`,
      );
  }
  const describe = (label: string, r: ScanResult, s: { all: number; on: number; n: number }, idle: { all: number; on: number }) =>
    `${label}: ${fmt(seconds(r), 1)} s, ${r.requests} requests (${fmt(r.requests / seconds(r), 0)}/s), ${r.visited} visited, ${r.found.length} lock directories; ` +
    `probe mean ${fmt(s.all)} ms on all members (idle ${fmt(idle.all)}), ${fmt(s.on)} ms on the scanned member (idle ${fmt(idle.on)}); ` +
    `pacer: duty ${fmt(r.pacing.dutyCycle, 2)}, baseline ${r.pacing.baselineMs === null ? '?' : fmt(r.pacing.baselineMs)} ms, ${r.pacing.slowdowns} slowdowns`;
  return {
    bench: 'locks',
    title: `Lock scan of ${(QUEUES * TASKS_PER_QUEUE).toLocaleString('en-US')} tasks and ${QUEUES * CONTENDERS} contenders in ${QUEUES} lock directories: the ensemble's latency, scan vs idle`,
    lines: [
      `tree built in ${fmt(buildMs / 1000, 1)} s; the scan's session on ${env.keeperMember}; probe: getData every 20 ms on each of ${env.ensemble.members.length} members, in its own process`,
      ...[idle1, idle2, idle3].map((w) => {
        const s = stats(w);
        return `${w.label}: probe mean ${fmt(s.all)} ms on all members, ${fmt(s.on)} ms on the scanned member (${s.n} samples)`;
      }),
      describe('paced scan', paced.result, p, idleForPaced),
      describe('raw walk (unpaced)', unpaced.result, u, idleForUnpaced),
      `ratio scan / idle: Keeper's paced scan ${fmt(ratioAll, 2)} (all members), ${fmt(ratioOn, 2)} (scanned member); raw unpaced walk ${fmt(uRatioAll, 2)}, ${fmt(uRatioOn, 2)}`,
    ],
    rows: [
      {
        measure: "Probe getData latency during Keeper's paced scan vs idle, mean over all members",
        keeper: `${fmt(p.all)} ms`,
        baseline: `${fmt(idleForPaced.all)} ms`,
        ratio: ratioAll,
        target: '≤ 1.2x',
        withinTarget: ratioAll <= 1.2,
      },
      {
        measure: 'The same, on the member the scan reads from',
        keeper: `${fmt(p.on)} ms`,
        baseline: `${fmt(idleForPaced.on)} ms`,
        ratio: ratioOn,
        target: '≤ 1.2x',
        withinTarget: ratioOn <= 1.2,
      },
      {
        measure: "Probe latency during a raw client's unpaced walk of the same tree (2 requests always out) vs idle, all members",
        keeper: `${fmt(u.all)} ms`,
        baseline: `${fmt(idleForUnpaced.all)} ms`,
        ratio: uRatioAll,
        target: 'none (for comparison)',
        withinTarget: true,
      },
      {
        measure: "Scan duration, Keeper's paced scan vs the raw unpaced walk",
        keeper: `${fmt(seconds(paced.result), 1)} s`,
        baseline: `${fmt(seconds(unpaced.result), 1)} s`,
        ratio: seconds(paced.result) / seconds(unpaced.result),
        target: '≤ 10 min (default deadline)',
        withinTarget: paced.result.state === 'done' && seconds(paced.result) <= 600,
      },
      {
        measure: 'ZooKeeper requests per lock directory found (paced)',
        keeper: fmt(perLock(paced.result), 0),
        baseline: fmt(perLock(unpaced.result), 0),
        ratio: perLock(paced.result) / perLock(unpaced.result),
        target: '= nodes visited / locks',
        withinTarget: paced.result.requests === paced.result.visited,
      },
    ],
    notes,
    zookeeperVersion: env.zookeeperVersion,
  };
});
