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
import { PORT_OFFSETS, startBenchEnv } from './support/benchEnv.js';
import { runBench } from './support/lifecycle.js';
import { openRaw } from './support/rawZk.js';
import { ms, percentile } from './support/stats.js';
import { SAMPLE_TIMEOUT_MS, SPACING_MS, watchWrites, writeLatencies } from './support/writeLatency.js';

const WARMUP = 50;
const SAMPLES = 500;
const PATH = '/bench/latency/target';

await runBench('latency', { timeoutMs: 120_000 }, async (scope) => {
  const env = await startBenchEnv(scope, PORT_OFFSETS.latencyBench);
  const writer = await openRaw(scope, env.ensemble.connectionString, 'writer');
  const watcher = await openRaw(scope, env.keeperMember, 'watcher');
  const probe = await watchWrites(scope, env, PATH, writer, watcher);

  scope.log(`${WARMUP} warm-up + ${SAMPLES} writes, ~${SPACING_MS} ms apart (watcher and Keeper on ${env.keeperMember})`);
  const { measured, missed } = await probe.run(WARMUP, SAMPLES);
  const errors = probe.errors;

  const { raw, browser: browserLat, keeperServer: server, ack, hub } = writeLatencies(measured);
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
