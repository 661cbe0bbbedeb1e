/**
 * A znode with 100,000 children: time to the first page through Keeper's API
 * (GET /api/ensembles/bench/znodes/big?limit=1000) beside a raw getChildren of the same znode,
 * from the same member, in the same run. Each Keeper page is timed in a pair with a raw read of
 * the same kind, and a ratio is the median of the pairs' ratios. ZooKeeper 3.6+ keeps the
 * serialized answer of a getChildren until the list changes, so a read of a list just changed
 * is paired with a raw read of a list just changed, a read of the same list again with the same:
 *  - cold: the list changed since the last request (one child created, one deleted; the new one
 *    is first on the page), as a script polling a busy directory sees it;
 *  - first sight: the list changed and Keeper has not seen it (forgotten: 16 other znodes were
 *    asked for since);
 *  - warm: the same list again;
 *  - watched: a subscriber holds a watch on the znode (as a browser viewing it does), the list
 *    changed and the watch re-read it: the page comes from the watch registry, with no
 *    ZooKeeper call (counted), paired with a raw read of the same list again.
 * Then where a page's time goes, step by step, in-process.
 *
 *   npx tsx bench/children.ts
 */
import { diffChildrenInOrder, encodeZnodeData, smallestChildNames, sortChildNames, type ZnodeAnswer } from '@keeper/shared';
import { ENSEMBLE, PORT_OFFSETS, startBenchEnv } from './support/benchEnv.js';
import {
  bumpName,
  bumper,
  checkPage,
  CHUNK,
  createChildren,
  firstPage as firstPageOf,
  PAGE,
  pairer,
  PARALLEL_COMMITS,
  PAUSE_MS,
} from './support/childrenPages.js';
import { runBench, sleep, until } from './support/lifecycle.js';
import { openRaw } from './support/rawZk.js';
import { median, ms, timed } from './support/stats.js';

const CHILDREN = 100_000;
/** Iterations run first and thrown away: the JIT and the heap settle (the first ones are 3-5x slower). */
const WARMUP = 5;
const ITERATIONS = 15;
const PATH = '/big';
/** Enough other znodes to push /big out of Keeper's page cache (it remembers 16). */
const OTHERS = Array.from({ length: 16 }, (_, i) => `/other-${i}`);

const firstPage = (url: string, path = PATH) => firstPageOf(url, path);

await runBench('children', { timeoutMs: 200_000 }, async (scope) => {
  const env = await startBenchEnv(scope, PORT_OFFSETS.childrenBench);
  const { gateway, keeper } = env;
  const writer = await openRaw(scope, env.ensemble.connectionString, 'writer');
  const reader = await openRaw(scope, env.keeperMember, 'reader');

  scope.log(`creating ${CHILDREN} children of ${PATH} in multis of ${CHUNK}`);
  const createMs = await createChildren(scope, writer, PATH, CHILDREN);
  for (const other of OTHERS) await writer.create(other);
  scope.log(`created in ${(createMs / 1000).toFixed(1)} s`);
  const rawCount = (await reader.getChildren(PATH)).length;
  if (rawCount !== CHILDREN) throw new Error(`${PATH} has ${rawCount} children, expected ${CHILDREN}`);

  // Each change creates the next bump child and deletes the previous one: a new list, one child apart.
  const changes = bumper(writer, PATH);
  const bump = () => changes.bump();
  const forget = async () => {
    for (const other of OTHERS) await firstPage(keeper.url, other);
  };

  const notes: string[] = [];
  const first = await timed(() => firstPage(keeper.url));
  const problem = checkPage(first.value, CHILDREN, null);
  if (problem) notes.push(`the first page is wrong: ${problem}`);
  const wrongPage = (what: string, page: ZnodeAnswer, expectedFirst: string) => {
    const wrong = checkPage(page, CHILDREN, expectedFirst);
    if (wrong && notes.length < 5) notes.push(`a ${what} page is wrong: ${wrong}`);
  };

  // ZooKeeper (3.6+) keeps the serialized answer of a getChildren until the list changes, so the
  // first read of a changed list costs the member more than the next: each Keeper page is timed
  // beside a raw read of the same kind (a list just changed, or the same list again), in turn
  // first and second, and each iteration gives the ratio of the pair. Other work on the machine
  // then weighs on both sides of a ratio alike.
  const pause = () => sleep(PAUSE_MS, scope.signal);
  const pair = pairer(scope);
  const samples = {
    rawCold: [] as number[],
    rawWarm: [] as number[],
    cold: [] as number[],
    warm: [] as number[],
    firstSight: [] as number[],
    watched: [] as number[],
  };
  const ratios = { cold: [] as number[], warm: [] as number[], firstSight: [] as number[], watched: [] as number[] };

  scope.log(`${WARMUP} + ${ITERATIONS} iterations: raw getChildren beside Keeper cold, then warm`);
  for (let i = 0; i < WARMUP + ITERATIONS && !scope.signal.aborted; i++) {
    const keep = i >= WARMUP;
    let name = '';
    // Cold: each side reads a list just changed (and Keeper walks beside the list it knows).
    const [rawCold, cold] = await pair(
      i,
      { before: bump, read: () => reader.getChildren(PATH) },
      { before: async () => (name = await bump()), read: () => firstPage(keeper.url) },
    );
    wrongPage('cold', cold.value, name);
    // Warm: the same list again on both sides. Each side reads it once untimed first (Keeper's
    // cold page may have come before the raw side's change), so both then read it a second time.
    const [rawWarm, warm] = await pair(
      i,
      { before: () => reader.getChildren(PATH), read: () => reader.getChildren(PATH) },
      { before: () => firstPage(keeper.url), read: () => firstPage(keeper.url) },
    );
    wrongPage('warm', warm.value, bumpName(changes.bumps - 1));
    if (keep) {
      samples.rawCold.push(rawCold.ms);
      samples.rawWarm.push(rawWarm.ms);
      samples.cold.push(cold.ms);
      samples.warm.push(warm.ms);
      ratios.cold.push(cold.ms / rawCold.ms);
      ratios.warm.push(warm.ms / rawWarm.ms);
    }
  }

  // Its own phase: a list seen for the first time is kept as the base of later walks, and a new
  // 100,000-name list kept costs the garbage collector, which would fall on the next pair.
  scope.log(`${WARMUP} + ${ITERATIONS} iterations: raw getChildren beside Keeper on first sight`);
  for (let i = 0; i < WARMUP + ITERATIONS && !scope.signal.aborted; i++) {
    const keep = i >= WARMUP;
    // Changed, and forgotten by Keeper (16 other znodes asked for since): nothing to start from.
    let changed = '';
    const [rawCold, sight] = await pair(
      i,
      { before: bump, read: () => reader.getChildren(PATH) },
      {
        before: async () => {
          changed = await bump();
          await forget();
        },
        read: () => firstPage(keeper.url),
      },
    );
    wrongPage('first-sight', sight.value, changed);
    if (keep) {
      samples.rawCold.push(rawCold.ms);
      samples.firstSight.push(sight.ms);
      ratios.firstSight.push(sight.ms / rawCold.ms);
    }
  }

  scope.log(`${WARMUP} + ${ITERATIONS} iterations with a watch on ${PATH}: raw getChildren beside Keeper from the watch registry`);
  let watchedCalls = 0;
  const unwatch = gateway.watches.watch(PATH, { onNode() {}, onChildren() {}, onWatchEvent() {}, onError() {} });
  scope.defer('unwatch', unwatch);
  for (let i = 0; i < WARMUP + ITERATIONS && !scope.signal.aborted; i++) {
    const keep = i >= WARMUP;
    const name = await bump();
    // The registry re-reads the list on the watch events (the create's and the delete's), before any request comes.
    const gone = bumpName(changes.bumps - 2);
    const settled = () => {
      const held = gateway.heldZnode(PATH);
      return held !== null && held.children.includes(name) && !held.children.includes(gone);
    };
    await until(settled, `the watch to re-read ${PATH}`, { timeoutMs: 10_000, signal: scope.signal });
    const calls = gateway.callsSent;
    const [rawWarm, held] = await pair(i, { read: () => reader.getChildren(PATH) }, { read: () => firstPage(keeper.url) });
    const keeperCalls = gateway.callsSent - calls;
    wrongPage('watched', held.value, name);
    if (keep) {
      samples.watched.push(held.ms);
      ratios.watched.push(held.ms / rawWarm.ms);
      watchedCalls += keeperCalls;
    }
  }
  unwatch();

  // Where a page's time goes, through the same gateway the API uses.
  scope.log('profiling the steps of a page');
  const steps = {
    both: [] as number[],
    bothWarm: [] as number[],
    sort: [] as number[],
    select: [] as number[],
    walk: [] as number[],
    json: [] as number[],
    http: [] as number[],
  };
  let previous: readonly string[] | null = null;
  for (let i = 0; i < WARMUP + ITERATIONS && !scope.signal.aborted; i++) {
    await bump();
    await pause();
    const both = await timed(() => Promise.all([gateway.getData(PATH), gateway.getChildren(PATH)]));
    const names = both.value[1].children;
    await pause();
    const bothWarm = await timed(() => Promise.all([gateway.getData(PATH), gateway.getChildren(PATH)]));
    let t = performance.now();
    const sorted = sortChildNames(names);
    const sortMs = performance.now() - t;
    t = performance.now();
    const top = smallestChildNames(names, PAGE);
    const selectMs = performance.now() - t;
    t = performance.now();
    const diff = previous ? diffChildrenInOrder(previous, names, 256) : null;
    const walkMs = performance.now() - t;
    previous = names;
    t = performance.now();
    const body = {
      ensemble: ENSEMBLE,
      path: PATH,
      stat: both.value[0].stat,
      data: encodeZnodeData(both.value[0].data),
      children: { total: sorted.length, offset: 0, limit: PAGE, names: top },
    };
    JSON.stringify(body);
    const jsonMs = performance.now() - t;
    // The same reads through HTTP, on a list Keeper knows and ZooKeeper has answered: the difference is HTTP's share.
    await firstPage(keeper.url);
    await pause();
    const page = await timed(() => firstPage(keeper.url));
    if (i >= WARMUP) {
      steps.http.push(page.ms - bothWarm.ms);
      steps.both.push(both.ms);
      steps.bothWarm.push(bothWarm.ms);
      steps.sort.push(sortMs);
      steps.select.push(selectMs);
      if (diff) steps.walk.push(walkMs);
      steps.json.push(jsonMs);
    }
    if (i === 0 && top.some((n, k) => n !== sorted[k])) notes.push('smallestChildNames disagrees with sortChildNames');
    if (diff && (diff.added.length !== 1 || diff.removed.length !== 1))
      notes.push(`the walk found ${diff.added.length} added and ${diff.removed.length} removed, expected 1 and 1`);
  }

  const m = (xs: number[]) => ms(median(xs));
  const r = (xs: number[]) => median(xs).toFixed(2);
  const label = (text: string) => `  ${text.padEnd(56)}`;
  if (watchedCalls !== 0) notes.push(`pages of the watched znode sent ${watchedCalls} ZooKeeper calls, expected none`);
  const row = (measure: string, xs: number[], paired: number[], base: number[], baseName: string, target: number) => ({
    measure: `First page of ${CHILDREN / 1000}k children, ${measure} (median)`,
    keeper: m(xs),
    baseline: `${m(base)} (raw getChildren, ${baseName})`,
    ratio: median(paired),
    target: `≤ ${target}x`,
    withinTarget: median(paired) <= target,
  });
  return {
    bench: 'children',
    title: `Children: first page (${PAGE}) of a znode with ${CHILDREN.toLocaleString('en-US')} children`,
    lines: [
      `created ${CHILDREN} children in ${(createMs / 1000).toFixed(1)} s (${CHILDREN / CHUNK} multis of ${CHUNK}, ${PARALLEL_COMMITS} in flight)`,
      `Keeper's very first request (cold list, cold JIT): ${ms(first.ms)}`,
      `medians over ${ITERATIONS} iterations (after ${WARMUP} warm-up) of each:`,
      `${label('raw getChildren, list just changed (cold)')}${m(samples.rawCold)}`,
      `${label('raw getChildren, same list again (warm)')}${m(samples.rawWarm)}`,
      `${label('Keeper, cold (a child created and one deleted)')}${m(samples.cold)}`,
      `${label('Keeper, first sight (list changed, not known)')}${m(samples.firstSight)}`,
      `${label('Keeper, warm (same list again)')}${m(samples.warm)}`,
      `${label('Keeper, watched (from the watch registry)')}${m(samples.watched)}  (${watchedCalls} ZooKeeper calls in ${samples.watched.length} pages)`,
      `ratio Keeper/raw getChildren, median of the pairs: cold ${r(ratios.cold)}, first sight ${r(ratios.firstSight)}, warm ${r(ratios.warm)}, watched ${r(ratios.watched)}`,
      `  (ratio of the medians: cold ${(median(samples.cold) / median(samples.rawCold)).toFixed(2)}, warm ${(median(samples.warm) / median(samples.rawWarm)).toFixed(2)}; ` +
        `cold against a warm raw read ${(median(samples.cold) / median(samples.rawWarm)).toFixed(2)})`,
      `where a page's time goes (medians, in-process):`,
      `${label('gateway getData + getChildren in parallel, cold')}${m(steps.both)}  (warm: ${m(steps.bothWarm)})`,
      `${label(`cold: walk beside the last list (${CHILDREN} names)`)}${m(steps.walk)}`,
      `${label(`first sight: smallest ${PAGE} by a bounded heap`)}${m(steps.select)}  (sorting all ${CHILDREN}: ${m(steps.sort)})`,
      `${label('building + JSON.stringify of the page')}${m(steps.json)}`,
      `${label('HTTP, routing, cache lookup, fetch')}${ms(Math.max(0, median(steps.http)))}  (median of warm page - warm parallel reads, paired)`,
    ],
    rows: [
      row('cold', samples.cold, ratios.cold, samples.rawCold, 'cold', 1.2),
      row('first sight', samples.firstSight, ratios.firstSight, samples.rawCold, 'cold', 2),
      row('warm', samples.warm, ratios.warm, samples.rawWarm, 'warm', 2),
      row('watched (no ZooKeeper call)', samples.watched, ratios.watched, samples.rawWarm, 'warm', 0.5),
    ],
    notes,
    zookeeperVersion: env.zookeeperVersion,
  };
});
