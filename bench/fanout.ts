/**
 * Fan-out: what ZooKeeper pays for Keeper's browsers. A raw writer changes 200 znodes
 * round-robin, 100 writes/s in total, while 1 and then 100 browsers subscribe to all 200.
 * Keeper's requests to ZooKeeper are counted twice: by the gateway (watches.reads) and by
 * the ensemble (srvr `Received:` summed over members, minus the writer's requests).
 * With one watch per znode however many browsers, the ratio 100/1 should be about 1.
 *
 *   npx tsx bench/fanout.ts
 */
import { ENSEMBLE, PORT_OFFSETS, startBenchEnv, type BenchEnv } from './support/benchEnv.js';
import { BenchBrowser } from './support/browser.js';
import { runBench, sleep, until, type Scope } from './support/lifecycle.js';
import { ensemblePackets } from './support/memberCounters.js';
import { openRaw, type RawZk } from './support/rawZk.js';

const ZNODES = 200;
const WRITES_PER_SECOND = 100;
const PHASE_MS = 10_000;
const BROWSER_COUNTS = [1, 100] as const;
const ROOT = '/bench/fanout';

interface PhaseResult {
  browsers: number;
  seconds: number;
  writes: number;
  writeErrors: number;
  gatewayReads: number;
  ensembleKeeperRequests: number;
  frames: number;
  bytes: number;
  znodeEvents: number;
  /** (browser, znode) pairs whose last seen value is the last value written. */
  finalValuesSeen: number;
  finalValuesExpected: number;
  browserErrors: string[];
}

const perSecond = (n: number, seconds: number) => n / seconds;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** srvr answers themselves may be counted: measure what one reading of every member adds. */
async function srvrOverhead(env: BenchEnv): Promise<number> {
  const a = await ensemblePackets(env.ensemble.members);
  const b = await ensemblePackets(env.ensemble.members);
  return b.received - a.received;
}

/** Paced writes: `rate` per second for `durationMs`, round-robin; pipelined, FIFO per session. */
async function writeLoad(
  scope: Scope,
  writer: RawZk,
  paths: readonly string[],
  finalValues: Map<string, string>,
  tag: string,
): Promise<{ writes: number; errors: number; seconds: number }> {
  const started = performance.now();
  const pending: Promise<void>[] = [];
  let writes = 0;
  let errors = 0;
  for (;;) {
    const elapsed = performance.now() - started;
    if (elapsed >= PHASE_MS) break;
    const due = Math.floor((elapsed * WRITES_PER_SECOND) / 1000) + 1;
    while (writes < due) {
      const path = paths[writes % paths.length]!;
      const value = `${tag}-w${writes}`;
      finalValues.set(path, value);
      pending.push(writer.setData(path, value).catch(() => void errors++));
      writes++;
    }
    await sleep(5, scope.signal);
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pending);
  return { writes, errors, seconds };
}

function finalValuesSeen(browsers: readonly BenchBrowser[], finalValues: ReadonlyMap<string, string>): number {
  let seen = 0;
  for (const b of browsers) for (const [path, value] of finalValues) if (b.values.get(path) === value) seen++;
  return seen;
}

async function runPhase(
  scope: Scope,
  env: BenchEnv,
  writer: RawZk,
  paths: readonly string[],
  finalValues: Map<string, string>,
  count: number,
  overhead: number,
): Promise<PhaseResult> {
  const { gateway } = env;
  scope.log(`${count} browser(s): connecting and subscribing to ${paths.length} znodes`);
  const browsers: BenchBrowser[] = [];
  for (let i = 0; i < count; i++) {
    const b = await BenchBrowser.open(env.keeper.url);
    browsers.push(b);
    scope.defer(`close browser ${i}`, () => b.close());
    for (const path of paths) b.subscribe('znode', ENSEMBLE, { path });
  }
  const expected = count * paths.length;
  await until(() => finalValuesSeen(browsers, finalValues) === expected, 'every browser to get every znode', { timeoutMs: 30_000, signal: scope.signal });
  await until(() => gateway.outstandingRequests === 0, 'keeper to go quiet', { timeoutMs: 10_000, signal: scope.signal });
  await sleep(500, scope.signal);

  for (const b of browsers) b.resetCounters();
  const reads0 = gateway.watches.reads;
  const writer0 = writer.requests;
  const packets0 = await ensemblePackets(env.ensemble.members);
  scope.log(`${count} browser(s): writing ${WRITES_PER_SECOND}/s for ${PHASE_MS / 1000} s`);
  const load = await writeLoad(scope, writer, paths, finalValues, `b${count}`);

  // Let the last writes reach every browser, then let Keeper's reads finish.
  try {
    await until(() => finalValuesSeen(browsers, finalValues) === expected, 'every browser to see every final value', {
      timeoutMs: 20_000,
      signal: scope.signal,
    });
  } catch (error) {
    if (scope.signal.aborted) throw error;
    scope.log(String(error));
  }
  await until(() => gateway.outstandingRequests === 0, 'keeper to go quiet', { timeoutMs: 10_000, signal: scope.signal });
  await sleep(300, scope.signal);
  const packets1 = await ensemblePackets(env.ensemble.members);
  const reads1 = gateway.watches.reads;
  const writer1 = writer.requests;

  const result: PhaseResult = {
    browsers: count,
    seconds: load.seconds,
    writes: load.writes,
    writeErrors: load.errors,
    gatewayReads: reads1 - reads0,
    ensembleKeeperRequests: packets1.received - packets0.received - overhead - (writer1 - writer0),
    frames: browsers.reduce((n, b) => n + b.frames, 0),
    bytes: browsers.reduce((n, b) => n + b.bytes, 0),
    znodeEvents: browsers.reduce((n, b) => n + b.znodeEvents, 0),
    finalValuesSeen: finalValuesSeen(browsers, finalValues),
    finalValuesExpected: expected,
    browserErrors: browsers.flatMap((b) => b.errors).slice(0, 5),
  };
  for (const b of browsers) b.close();
  // Every subscription gone: the registry forgets the znodes, the next phase starts cold.
  await until(() => gateway.watches.watchedPaths === 0, 'subscriptions to be dropped', { timeoutMs: 10_000, signal: scope.signal });
  return result;
}

function describePhase(p: PhaseResult): string[] {
  const label = `${p.browsers} browser${p.browsers === 1 ? '' : 's'}`;
  return [
    `${label}: ${p.writes} writes in ${fmt(p.seconds)} s (${fmt(perSecond(p.writes, p.seconds))}/s, ${p.writeErrors} failed)`,
    `  Keeper -> ZooKeeper: ${fmt(perSecond(p.gatewayReads, p.seconds))} requests/s by the gateway (watches.reads ${p.gatewayReads}), ` +
      `${fmt(perSecond(p.ensembleKeeperRequests, p.seconds))} requests/s by the ensemble (srvr Received - writer: ${p.ensembleKeeperRequests})`,
    `  Keeper -> browsers: ${p.frames} frames, ${fmt(p.bytes / 1024)} KiB, ${p.znodeEvents} znode events in total; ` +
      `per browser ${fmt(perSecond(p.frames / p.browsers, p.seconds))} frames/s, ${fmt(perSecond(p.bytes / p.browsers, p.seconds) / 1024)} KiB/s`,
    `  final values: ${p.finalValuesSeen}/${p.finalValuesExpected} (browser, znode) pairs show the last value written`,
  ];
}

await runBench('fanout', { timeoutMs: 150_000 }, async (scope) => {
  const env = await startBenchEnv(scope, PORT_OFFSETS.fanoutBench);
  const writer = await openRaw(scope, env.ensemble.connectionString, 'writer');
  await writer.mkdirp(ROOT);
  const paths = Array.from({ length: ZNODES }, (_, i) => `${ROOT}/n-${String(i).padStart(3, '0')}`);
  await writer.createMany(paths, 'initial');
  const finalValues = new Map(paths.map((p) => [p, 'initial']));
  const overhead = await srvrOverhead(env);

  const phases: PhaseResult[] = [];
  for (const count of BROWSER_COUNTS) phases.push(await runPhase(scope, env, writer, paths, finalValues, count, overhead));
  const [one, many] = phases as [PhaseResult, PhaseResult];

  const gatewayRatio = perSecond(many.gatewayReads, many.seconds) / perSecond(one.gatewayReads, one.seconds);
  const ensembleRatio = perSecond(many.ensembleKeeperRequests, many.seconds) / perSecond(one.ensembleKeeperRequests, one.seconds);
  const near1 = (r: number) => r >= 0.9 && r <= 1.1;
  const notes: string[] = [];
  for (const p of phases) {
    if (p.finalValuesSeen !== p.finalValuesExpected)
      notes.push(`${p.browsers} browser(s): only ${p.finalValuesSeen} of ${p.finalValuesExpected} (browser, znode) pairs got the final value`);
    if (p.browserErrors.length > 0) notes.push(`${p.browsers} browser(s): errors ${p.browserErrors.join('; ')}`);
    if (p.writeErrors > 0) notes.push(`${p.browsers} browser(s): ${p.writeErrors} writes failed`);
    const gap = Math.abs(p.ensembleKeeperRequests - p.gatewayReads);
    if (gap > Math.max(5, p.gatewayReads * 0.05)) notes.push(`${p.browsers} browser(s): gateway and ensemble counts differ by ${gap} requests`);
  }
  const perSec = (p: PhaseResult, n: number) => `${fmt(perSecond(n, p.seconds))}/s`;
  return {
    bench: 'fanout',
    title: `Fan-out: ${ZNODES} znodes, ${WRITES_PER_SECOND} writes/s, 1 vs 100 browsers`,
    lines: [
      `srvr overhead per reading of all members: ${overhead} packets (subtracted)`,
      ...phases.flatMap(describePhase),
      `ratio 100 browsers / 1 browser: ${gatewayRatio.toFixed(2)} (gateway count), ${ensembleRatio.toFixed(2)} (ensemble count)`,
    ],
    rows: [
      {
        measure: 'ZooKeeper requests/s from Keeper, 100 browsers vs 1 (gateway count)',
        keeper: perSec(many, many.gatewayReads),
        baseline: perSec(one, one.gatewayReads),
        ratio: gatewayRatio,
        target: '≈ 1',
        withinTarget: near1(gatewayRatio),
      },
      {
        measure: 'ZooKeeper requests/s from Keeper, 100 browsers vs 1 (ensemble srvr count)',
        keeper: perSec(many, many.ensembleKeeperRequests),
        baseline: perSec(one, one.ensembleKeeperRequests),
        ratio: ensembleRatio,
        target: '≈ 1',
        withinTarget: near1(ensembleRatio),
      },
    ],
    notes,
    zookeeperVersion: env.zookeeperVersion,
  };
});
