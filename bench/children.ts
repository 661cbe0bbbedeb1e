/**
 * A znode with 100,000 children: time to the first page through Keeper's API
 * (GET /api/ensembles/bench/znodes/big?limit=1000), cold (the child list changed since the
 * last request, so it is re-sorted) and warm (unchanged: the sorted list is cached), beside
 * a raw getChildren of the same znode, from the same member, in the same run. Then where a
 * cold page's time goes, step by step, in-process.
 *
 *   npx tsx bench/children.ts
 */
import { encodeZnodeData, sortChildNames, type ZnodeResponse } from '@keeper/shared';
import { ENSEMBLE, PORT_OFFSETS, startBenchEnv } from './support/benchEnv.js';
import { runBench, sleep, type Scope } from './support/lifecycle.js';
import { openRaw, type RawZk } from './support/rawZk.js';
import { smallestChildNames as smallestK } from '@keeper/shared';
import { median, ms, timed } from './support/stats.js';

const CHILDREN = 100_000;
const CHUNK = 1_000;
const PARALLEL_COMMITS = 4;
/** Iterations run first and thrown away: the JIT and the heap settle (the first ones are 3-5x slower). */
const WARMUP = 5;
const ITERATIONS = 15;
const PAGE = 1_000;
/**
 * Every timed call comes after the same pause: the first read on a connection that has been
 * idle is slower (GC, TCP slow start after idle), and each side should pay that alike.
 */
const PAUSE_MS = 50;
const PATH = '/big';
const BUMP = `${PATH}/~bump`;

const childName = (i: number) => `item-${i}`;

async function createChildren(scope: Scope, raw: RawZk): Promise<number> {
  await raw.create(PATH, 'a znode with many children');
  const began = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < CHILDREN && !scope.signal.aborted) {
      const from = next;
      next = Math.min(CHILDREN, next + CHUNK);
      const paths: string[] = [];
      for (let i = from; i < next; i++) paths.push(`${PATH}/${childName(i)}`);
      await raw.createMany(paths);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_COMMITS }, worker));
  return performance.now() - began;
}

async function firstPage(url: string): Promise<ZnodeResponse> {
  const res = await fetch(`${url}/api/ensembles/${ENSEMBLE}/znodes${PATH}?limit=${PAGE}`);
  if (!res.ok) throw new Error(`GET first page: HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as ZnodeResponse;
}

function checkPage(page: ZnodeResponse): string | null {
  if (page.children.total !== CHILDREN) return `total ${page.children.total}, expected ${CHILDREN}`;
  if (page.children.names.length !== PAGE) return `${page.children.names.length} names, expected ${PAGE}`;
  const wrong = page.children.names.findIndex((n, i) => n !== childName(i));
  return wrong === -1 ? null : `name ${wrong} is ${page.children.names[wrong]}, expected ${childName(wrong)}`;
}

await runBench('children', { timeoutMs: 150_000 }, async (scope) => {
  const env = await startBenchEnv(scope, PORT_OFFSETS.childrenBench);
  const { gateway, keeper } = env;
  const writer = await openRaw(scope, env.ensemble.connectionString, 'writer');
  const reader = await openRaw(scope, env.keeperMember, 'reader');

  scope.log(`creating ${CHILDREN} children of ${PATH} in multis of ${CHUNK}`);
  const createMs = await createChildren(scope, writer);
  scope.log(`created in ${(createMs / 1000).toFixed(1)} s`);
  const rawCount = (await reader.getChildren(PATH)).length;
  if (rawCount !== CHILDREN) throw new Error(`${PATH} has ${rawCount} children, expected ${CHILDREN}`);

  // A change to the child list (create + delete one) gives a new pzxid: Keeper's sorted cache misses.
  const bump = async () => {
    await writer.create(BUMP);
    await writer.remove(BUMP);
  };

  const notes: string[] = [];
  const first = await timed(() => firstPage(keeper.url));
  const problem = checkPage(first.value);
  if (problem) notes.push(`the first page is wrong: ${problem}`);

  scope.log(`${WARMUP} + ${ITERATIONS} iterations: raw getChildren, Keeper cold, Keeper warm`);
  const raw: number[] = [];
  const rawBoth: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < WARMUP + ITERATIONS && !scope.signal.aborted; i++) {
    const keep = i >= WARMUP;
    await bump();
    const pause = () => sleep(PAUSE_MS, scope.signal);
    const rawSide = async () => {
      await pause();
      const a = await timed(() => reader.getChildren(PATH));
      await pause();
      const b = await timed(() => Promise.all([reader.getData(PATH), reader.getChildren(PATH)]));
      if (keep) {
        raw.push(a.ms);
        rawBoth.push(b.ms);
      }
    };
    // Alternate who goes first, so neither side always meets the other's GC debt.
    if (i % 2 === 0) await rawSide();
    await pause();
    const c = await timed(() => firstPage(keeper.url));
    await pause();
    const w = await timed(() => firstPage(keeper.url));
    if (keep) {
      cold.push(c.ms);
      warm.push(w.ms);
    }
    if (i % 2 === 1) await rawSide();
  }

  // Where a cold page's time goes, through the same gateway the API uses.
  scope.log('profiling the steps of a cold first page');
  const steps = { both: [] as number[], sort: [] as number[], select: [] as number[], json: [] as number[], http: [] as number[] };
  for (let i = 0; i < WARMUP + ITERATIONS && !scope.signal.aborted; i++) {
    await sleep(PAUSE_MS, scope.signal);
    const both = await timed(() => Promise.all([gateway.getData(PATH), gateway.getChildren(PATH)]));
    const names = both.value[1].children;
    let t = performance.now();
    const sorted = sortChildNames(names);
    const sortMs = performance.now() - t;
    t = performance.now();
    const top = smallestK(names, PAGE);
    const selectMs = performance.now() - t;
    t = performance.now();
    const body = { ensemble: ENSEMBLE, path: PATH, stat: both.value[0].stat, data: encodeZnodeData(both.value[0].data), children: { total: sorted.length, offset: 0, limit: PAGE, names: sorted.slice(0, PAGE) } };
    JSON.stringify(body);
    const jsonMs = performance.now() - t;
    // The same reads through HTTP (the sorted list is cached: nothing changed): the difference is HTTP's share.
    await sleep(PAUSE_MS, scope.signal);
    const page = await timed(() => firstPage(keeper.url));
    if (i >= WARMUP) {
      steps.http.push(page.ms - both.ms);
      steps.both.push(both.ms);
      steps.sort.push(sortMs);
      steps.select.push(selectMs);
      steps.json.push(jsonMs);
    }
    if (i === 0 && top.some((n, k) => n !== sorted[k])) notes.push('smallestK disagrees with sortChildNames');
  }

  const rawMed = median(raw);
  const coldMed = median(cold);
  const warmMed = median(warm);
  const coldRatio = coldMed / rawMed;
  const warmRatio = warmMed / rawMed;
  const m = (xs: number[]) => ms(median(xs));
  const label = (text: string) => `  ${text.padEnd(44)}`;
  const whatIf = warmMed + median(steps.select);
  if (coldRatio > 2) {
    notes.push(
      `a cold page is ${coldRatio.toFixed(1)}x the raw getChildren; sorting all ${CHILDREN} names (${m(steps.sort)}) is most of the difference (cold - warm = ${ms(coldMed - warmMed)}). ` +
        `Selecting the first ${PAGE} without a full sort takes ${m(steps.select)}: a cold page would be ~${ms(whatIf)} (${(whatIf / rawMed).toFixed(2)}x).`,
    );
  }
  return {
    bench: 'children',
    title: `Children: first page (${PAGE}) of a znode with ${CHILDREN.toLocaleString('en-US')} children`,
    lines: [
      `created ${CHILDREN} children in ${(createMs / 1000).toFixed(1)} s (${CHILDREN / CHUNK} multis of ${CHUNK}, ${PARALLEL_COMMITS} in flight)`,
      `Keeper's very first request (cold list, cold JIT): ${ms(first.ms)}`,
      `medians over ${ITERATIONS} iterations (after ${WARMUP} warm-up):`,
      `${label('raw getChildren')}${ms(rawMed)}`,
      `${label('raw getData + getChildren in parallel')}${m(rawBoth)}`,
      `${label('Keeper first page, cold (list changed)')}${ms(coldMed)}`,
      `${label('Keeper first page, warm (sorted cached)')}${ms(warmMed)}`,
      `ratio Keeper/raw getChildren: cold ${coldRatio.toFixed(2)}, warm ${warmRatio.toFixed(2)}`,
      `where a cold page's time goes (medians, in-process):`,
      `${label('gateway getData + getChildren in parallel')}${m(steps.both)}`,
      `${label(`sortChildNames of all ${CHILDREN} names`)}${m(steps.sort)}  (the smallest ${PAGE} by a bounded heap instead: ${m(steps.select)})`,
      `${label('building + JSON.stringify of the page')}${m(steps.json)}`,
      `${label('HTTP, routing, cache lookup, fetch')}${ms(Math.max(0, median(steps.http)))}  (median of warm page - parallel reads, paired)`,
    ],
    rows: [
      { measure: `First page of ${CHILDREN / 1000}k children, cold (median)`, keeper: ms(coldMed), baseline: `${ms(rawMed)} (raw getChildren)`, ratio: coldRatio, target: '≤ 2x', withinTarget: coldRatio <= 2 },
      { measure: `First page of ${CHILDREN / 1000}k children, warm (median)`, keeper: ms(warmMed), baseline: `${ms(rawMed)} (raw getChildren)`, ratio: warmRatio, target: '≤ 2x', withinTarget: warmRatio <= 2 },
    ],
    notes,
    zookeeperVersion: env.zookeeperVersion,
  };
});
