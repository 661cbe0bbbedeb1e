/**
 * Keeper over TLS + SASL costs no more, against a raw client over the same transport, than
 * Keeper over plain TCP does against a raw plain client. Two 3-member ensembles in one run: a
 * TLS-only one with SASL DIGEST-MD5 required (the secured integration tests' sandbox, Keeper
 * configured as `npm start -- --secure` configures it) and a plain one. Over each:
 *  - another client's write to the new value in a browser (Keeper's WebSocket), p50 and p99,
 *    against a raw client's watch + getData (bench/latency.ts's measure);
 *  - the first page (1,000) of a znode with 100,000 children through the API, cold (the list
 *    just changed), against a raw getChildren of a list just changed (bench/children.ts's).
 * The raw client on the secured ensemble is node-zookeeper-client with the project's own TLS
 * and SASL extension (server/src/zk), no Keeper in between. The two ensembles are measured in
 * alternating blocks, so load from other work weighs on both alike. Printed: each ratio, secured
 * and plain, and the secured ratio over the plain one (target ≤ 1.1x).
 *
 *   npx tsx bench/secure.ts
 */
import { randomBytes } from 'node:crypto';
import { PORT_OFFSETS, startBenchEnv, type BenchEnv } from './support/benchEnv.js';
import { bumper, checkPage, createChildren, firstPage, pairer, PAGE } from './support/childrenPages.js';
import { runBench, type Scope } from './support/lifecycle.js';
import { openRaw, type RawZk } from './support/rawZk.js';
import type { SummaryRow } from './support/report.js';
import { median, ms, percentile } from './support/stats.js';
import { SPACING_MS, watchWrites, writeLatencies, type WriteLatencyProbe, type WriteSample } from './support/writeLatency.js';

const LATENCY_WARMUP = 50;
/** Writes per block; blocks alternate between the ensembles. */
const LATENCY_BLOCK = 100;
const LATENCY_BLOCKS = 5;
const CHILDREN = 100_000;
const CHILDREN_WARMUP = 5;
const CHILDREN_ITERATIONS = 15;
const TARGET = 1.1;
const LATENCY_PATH = '/bench/latency/target';
const BIG = '/big';

type Kind = 'secured' | 'plain';

interface Side {
  kind: Kind;
  env: BenchEnv;
  writer: RawZk;
  /** On Keeper's member: the raw watcher of the latency measure and the raw reader of the children one. */
  raw: RawZk;
  probe: WriteLatencyProbe;
  measured: WriteSample[];
  missed: number;
  rawCold: number[];
  keeperCold: number[];
  coldRatios: number[];
  wrongPages: string[];
}

async function side(scope: Scope, kind: Kind, env: BenchEnv): Promise<Side> {
  const writer = await openRaw(scope, env.ensemble.connectionString, `${kind} writer`, env.security);
  const raw = await openRaw(scope, env.keeperMember, `${kind} watcher and reader`, env.security);
  const probe = await watchWrites(scope, env, LATENCY_PATH, writer, raw);
  return { kind, env, writer, raw, probe, measured: [], missed: 0, rawCold: [], keeperCold: [], coldRatios: [], wrongPages: [] };
}

await runBench('secure', { timeoutMs: 480_000 }, async (scope) => {
  const password = randomBytes(12).toString('base64url');
  const securedEnv = await startBenchEnv(scope, PORT_OFFSETS.secureBench, undefined, {}, { secure: { saslUsers: { keeper: password } } });
  if (!securedEnv.security?.sasl) throw new Error('the secured bench ensemble has no SASL login for Keeper');
  const plainEnv = await startBenchEnv(scope, PORT_OFFSETS.secureBenchPlain);
  const connection = securedEnv.gateway.session.connection;
  scope.log(`secured: ${connection?.tls ?? 'no TLS?'}; ${connection?.sasl ?? 'no SASL?'}; whoAmI ${JSON.stringify(connection?.identity ?? null)}`);
  const sides = [await side(scope, 'secured', securedEnv), await side(scope, 'plain', plainEnv)];
  /** Each round in turn starts with the other ensemble. */
  const inTurn = (round: number) => (round % 2 === 0 ? sides : [...sides].reverse());

  scope.log(`latency: ${LATENCY_WARMUP} warm-up + ${LATENCY_BLOCKS} blocks of ${LATENCY_BLOCK} writes per ensemble, ~${SPACING_MS} ms apart, alternating`);
  for (const s of sides) await s.probe.run(LATENCY_WARMUP, 0);
  for (let block = 0; block < LATENCY_BLOCKS; block++) {
    for (const s of inTurn(block)) {
      const { measured, missed } = await s.probe.run(0, LATENCY_BLOCK);
      s.measured.push(...measured);
      s.missed += missed;
    }
  }

  for (const s of sides) {
    scope.log(`${s.kind}: creating ${CHILDREN} children of ${BIG}`);
    const took = await createChildren(scope, s.writer, BIG, CHILDREN);
    scope.log(`${s.kind}: created in ${(took / 1000).toFixed(1)} s`);
    const first = await firstPage(s.env.keeper.url, BIG);
    const wrong = checkPage(first, CHILDREN, null);
    if (wrong) s.wrongPages.push(`first page: ${wrong}`);
  }
  const changes = new Map(sides.map((s) => [s.kind, bumper(s.writer, BIG)]));
  const pair = pairer(scope);
  scope.log(`children: ${CHILDREN_WARMUP} + ${CHILDREN_ITERATIONS} cold pairs per ensemble (raw getChildren beside Keeper's first page), alternating`);
  for (let i = 0; i < CHILDREN_WARMUP + CHILDREN_ITERATIONS && !scope.signal.aborted; i++) {
    for (const s of inTurn(i)) {
      const bump = changes.get(s.kind)!;
      let name = '';
      const [rawCold, cold] = await pair(
        i,
        { before: () => bump.bump(), read: () => s.raw.getChildren(BIG) },
        { before: async () => (name = await bump.bump()), read: () => firstPage(s.env.keeper.url, BIG) },
      );
      const wrong = checkPage(cold.value, CHILDREN, name);
      if (wrong && s.wrongPages.length < 3) s.wrongPages.push(`cold page: ${wrong}`);
      if (i >= CHILDREN_WARMUP) {
        s.rawCold.push(rawCold.ms);
        s.keeperCold.push(cold.ms);
        s.coldRatios.push(cold.ms / rawCold.ms);
      }
    }
  }

  // Figures per ensemble, then secured over plain.
  const figures = sides.map((s) => {
    const lat = writeLatencies(s.measured);
    const p = (xs: number[], q: number) => percentile(xs, q);
    return {
      s,
      lat,
      browser50: p(lat.browser, 50),
      raw50: p(lat.raw, 50),
      browser99: p(lat.browser, 99),
      raw99: p(lat.raw, 99),
      r50: p(lat.browser, 50) / p(lat.raw, 50),
      r99: p(lat.browser, 99) / p(lat.raw, 99),
      hub50: p(lat.hub, 50),
      server50: p(lat.keeperServer, 50),
      ack50: p(lat.ack, 50),
      cold: median(s.coldRatios),
    };
  });
  const [sec, plain] = figures as [(typeof figures)[0], (typeof figures)[0]];
  const lines: string[] = [];
  for (const f of figures) {
    lines.push(
      `${f.s.kind.padEnd(8)} write -> value: browser p50 ${ms(f.browser50)} p99 ${ms(f.browser99)}; raw watch+getData p50 ${ms(f.raw50)} p99 ${ms(f.raw99)}; ` +
        `ratio p50 ${f.r50.toFixed(2)}, p99 ${f.r99.toFixed(2)} (${f.s.measured.length} samples, ${f.s.missed} missed)`,
      `${''.padEnd(8)}   (writer acknowledged p50 ${ms(f.ack50)}; Keeper's registry has the value p50 ${ms(f.server50)}; hub -> browser p50 ${ms(f.hub50)})`,
      `${f.s.kind.padEnd(8)} first page of ${CHILDREN / 1000}k children, cold: Keeper ${ms(median(f.s.keeperCold))}, raw getChildren ${ms(median(f.s.rawCold))}; ` +
        `ratio ${f.cold.toFixed(2)} (median of ${f.s.coldRatios.length} pairs)`,
    );
  }
  const relative = { p50: sec.r50 / plain.r50, p99: sec.r99 / plain.r99, cold: sec.cold / plain.cold };
  lines.push(
    `secured ratio / plain ratio: write->browser p50 ${relative.p50.toFixed(2)}, p99 ${relative.p99.toFixed(2)}; first page cold ${relative.cold.toFixed(2)} (target <= ${TARGET})`,
    `TLS + SASL's own cost, raw client secured / plain: write->value p50 ${(sec.raw50 / plain.raw50).toFixed(2)}, getChildren of 100k cold ${(median(sec.s.rawCold) / median(plain.s.rawCold)).toFixed(2)}`,
  );

  const row = (measure: string, keeper: string, baseline: string, ratio: number): SummaryRow => ({
    measure,
    keeper,
    baseline,
    ratio,
    target: `≤ ${TARGET}x`,
    withinTarget: ratio <= TARGET,
  });
  const rows: SummaryRow[] = [
    row(
      'Write to new value in the browser, p50: (Keeper/raw over TLS+SASL) / (Keeper/raw over plain TCP)',
      `${sec.r50.toFixed(2)}x (${ms(sec.browser50)} vs ${ms(sec.raw50)})`,
      `${plain.r50.toFixed(2)}x (${ms(plain.browser50)} vs ${ms(plain.raw50)})`,
      relative.p50,
    ),
    row(
      'Write to new value in the browser, p99, the same',
      `${sec.r99.toFixed(2)}x (${ms(sec.browser99)} vs ${ms(sec.raw99)})`,
      `${plain.r99.toFixed(2)}x (${ms(plain.browser99)} vs ${ms(plain.raw99)})`,
      relative.p99,
    ),
    row(
      `First page (${PAGE}) of ${CHILDREN / 1000}k children, cold, the same (median of pairs)`,
      `${sec.cold.toFixed(2)}x (${ms(median(sec.s.keeperCold))} vs ${ms(median(sec.s.rawCold))})`,
      `${plain.cold.toFixed(2)}x (${ms(median(plain.s.keeperCold))} vs ${ms(median(plain.s.rawCold))})`,
      relative.cold,
    ),
  ];
  const notes = sides.flatMap((s) => [...s.probe.errors.slice(0, 3), ...s.wrongPages].map((n) => `${s.kind}: ${n}`));
  return {
    bench: 'secure',
    title: 'Secured: Keeper over TLS + SASL DIGEST-MD5 against a raw TLS + SASL client, beside the same over plain TCP',
    lines,
    rows,
    notes,
    zookeeperVersion: securedEnv.zookeeperVersion,
  };
});
