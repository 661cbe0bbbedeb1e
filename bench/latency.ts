/**
 * Latency from another client's write (setData) to the browser's `znode` message carrying
 * the new value, beside a raw node-zookeeper-client watching the same znode: "raw" is the
 * watch firing plus the getData re-read returning the new value, which is what any client
 * must do to see a value. Both are timed from the same write's start, in the same run; the
 * raw watcher is on the same member as Keeper's session. Writes are sequential: the next
 * one starts ~20 ms after both sides saw the previous one.
 *
 *   npx tsx bench/latency.ts
 */
import zookeeper from 'node-zookeeper-client';
import type { WatchListener } from '../server/src/zk/watchRegistry.js';
import { ENSEMBLE, PORT_OFFSETS, startBenchEnv } from './support/benchEnv.js';
import { BenchBrowser } from './support/browser.js';
import { runBench, sleep, until, within } from './support/lifecycle.js';
import { openRaw, type RawZk } from './support/rawZk.js';
import { ms, percentile } from './support/stats.js';

const WARMUP = 50;
const SAMPLES = 500;
const SPACING_MS = 20;
const SAMPLE_TIMEOUT_MS = 2_000;
const PATH = '/bench/latency/target';

interface Sample {
  start: number;
  ack?: number;
  raw?: number;
  keeperServer?: number;
  browser?: number;
  settle?: () => void;
}

/** The raw watcher: getData with a watch; on each data change, re-read with a new watch. */
function watchRaw(raw: RawZk, path: string, onValue: (value: string, at: number) => void, onError: (error: unknown) => void): void {
  const arm = () => {
    raw
      .getData(path, (event) => {
        if (event.getType() === zookeeper.Event.NODE_DATA_CHANGED) arm();
      })
      .then((data) => onValue(data.toString('utf8'), performance.now()), onError);
  };
  arm();
}

await runBench('latency', { timeoutMs: 120_000 }, async (scope) => {
  const env = await startBenchEnv(scope, PORT_OFFSETS.latencyBench);
  const writer = await openRaw(scope, env.ensemble.connectionString, 'writer');
  const watcher = await openRaw(scope, env.keeperMember, 'watcher');
  await writer.mkdirp(PATH);
  await writer.setData(PATH, 'initial');

  const samples = new Map<string, Sample>();
  const complete = (s: Sample) => s.raw !== undefined && s.browser !== undefined && s.keeperServer !== undefined;
  const observe = (value: string | null, at: number, side: 'raw' | 'browser' | 'keeperServer') => {
    const s = value === null ? undefined : samples.get(value);
    if (!s || s[side] !== undefined) return;
    s[side] = at;
    if (complete(s)) s.settle?.();
  };

  const errors: string[] = [];
  watchRaw(
    watcher,
    PATH,
    (value, at) => observe(value, at, 'raw'),
    (error) => errors.push(`raw watcher: ${String(error)}`),
  );

  // Inside Keeper: when the shared watch registry holds the new value (before the hub, outbox and socket).
  const registryListener: WatchListener = {
    onNode: (node) => observe(node.exists ? node.data.value : null, performance.now(), 'keeperServer'),
    onChildren: () => undefined,
    onWatchEvent: () => undefined,
    onError: (error) => errors.push(`registry: ${error.message}`),
  };
  const unwatch = env.gateway.watches.watch(PATH, registryListener);
  scope.defer('unwatch registry listener', unwatch);

  const browser = await BenchBrowser.open(env.keeper.url);
  scope.defer('close browser', () => browser.close());
  browser.onZnode = (path, value, at) => {
    if (path === PATH) observe(value, at, 'browser');
  };
  browser.subscribe('znode', ENSEMBLE, { path: PATH });
  await until(() => browser.values.get(PATH) === 'initial', 'the browser to see the znode', { timeoutMs: 10_000, signal: scope.signal });

  scope.log(`${WARMUP} warm-up + ${SAMPLES} writes, ~${SPACING_MS} ms apart (watcher and Keeper on ${env.keeperMember})`);
  const measured: Sample[] = [];
  let missed = 0;
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const value = `v${i}`;
    const sample: Sample = { start: 0 };
    const settled = new Promise<void>((resolve) => (sample.settle = resolve));
    samples.set(value, sample);
    sample.start = performance.now();
    await writer.setData(PATH, value);
    sample.ack = performance.now();
    const timedOut = !(await within(settled, SAMPLE_TIMEOUT_MS, scope.signal));
    samples.delete(value);
    if (timedOut) missed++;
    else if (i >= WARMUP) measured.push(sample);
    await sleep(SPACING_MS, scope.signal);
  }

  const lat = (pick: (s: Sample) => number | undefined) => measured.map((s) => pick(s)! - s.start);
  const raw = lat((s) => s.raw);
  const browserLat = lat((s) => s.browser);
  const server = lat((s) => s.keeperServer);
  const ack = lat((s) => s.ack);
  const hub = measured.map((s) => s.browser! - s.keeperServer!);
  const p = (xs: number[], q: number) => percentile(xs, q);
  const row = (label: string, xs: number[]) =>
    `${label.padEnd(44)} p50 ${ms(p(xs, 50)).padStart(9)}  p95 ${ms(p(xs, 95)).padStart(9)}  p99 ${ms(p(xs, 99)).padStart(9)}`;
  const r50 = p(browserLat, 50) / p(raw, 50);
  const r95 = p(browserLat, 95) / p(raw, 95);
  const r99 = p(browserLat, 99) / p(raw, 99);
  const notes = [...errors.slice(0, 5)];
  if (missed > 0) notes.push(`${missed} writes were not seen by every side within ${SAMPLE_TIMEOUT_MS} ms and are left out`);
  const hub50 = p(hub, 50);
  if (r50 > 1.5)
    notes.push(
      `browser p50 is ${ms(p(browserLat, 50))} while Keeper itself has the value at p50 ${ms(p(server, 50))}: the hub/outbox/socket adds p50 ${ms(hub50)}`,
    );
  return {
    bench: 'latency',
    title: `Latency: write -> new value seen (${SAMPLES} writes, ~${SPACING_MS} ms apart)`,
    lines: [
      row('writer setData acknowledged', ack),
      row('raw client: watch + getData returns value', raw),
      row('Keeper: registry has the value (in-process)', server),
      row('Keeper: browser gets the znode message', browserLat),
      row('  of which hub -> browser (registry to frame)', hub),
      `ratio Keeper/raw: p50 ${r50.toFixed(2)}, p95 ${r95.toFixed(2)}, p99 ${r99.toFixed(2)} (${measured.length} samples, ${missed} missed)`,
    ],
    rows: [
      {
        measure: 'Write to new value, p50 (browser vs raw watch+getData)',
        keeper: ms(p(browserLat, 50)),
        baseline: ms(p(raw, 50)),
        ratio: r50,
        target: '≤ 1.5x',
        withinTarget: r50 <= 1.5,
      },
      { measure: 'Write to new value, p95', keeper: ms(p(browserLat, 95)), baseline: ms(p(raw, 95)), ratio: r95, target: '≤ 1.5x', withinTarget: r95 <= 1.5 },
      { measure: 'Write to new value, p99', keeper: ms(p(browserLat, 99)), baseline: ms(p(raw, 99)), ratio: r99, target: '≤ 1.5x', withinTarget: r99 <= 1.5 },
    ],
    notes,
    zookeeperVersion: env.zookeeperVersion,
  };
});
