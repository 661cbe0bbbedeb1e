/**
 * The member poller's load on the ensemble, with 1 and then 50 browsers watching the
 * ensemble view (WebSockets subscribed to the `ensembleHealth` topic). One poller per
 * ensemble feeds every browser, so the requests per second to each member should not
 * move. Counted twice:
 *  - by the poller's own counters (every request it sends, per member);
 *  - by the members: srvr `Received:` deltas (4lw words count as received packets), minus
 *    this bench's own srvr readings, which are measured first. The console's ZooKeeper
 *    session (pings, /zookeeper/config reads) lands in the members' count too.
 * The bench Keeper is given no AdminServer ports, so the poller uses srvr + mntr over 4lw,
 * which the members can count (AdminServer HTTP calls do not show in `Received:`).
 *
 *   npx tsx bench/poller.ts
 */
import { ENSEMBLE, PORT_OFFSETS, startBenchEnv, type BenchEnv } from './support/benchEnv.js';
import { BenchBrowser } from './support/browser.js';
import { runBench, sleep, until, type Scope } from './support/lifecycle.js';
import { memberPackets } from './support/memberCounters.js';
import type { MemberPoller } from '../server/src/members/memberPoller.js';

const PHASE_MS = 30_000;
const BROWSER_COUNTS = [1, 50] as const;

interface PhaseResult {
  browsers: number;
  seconds: number;
  rounds: number;
  /** host:port -> requests the poller (and its membership reads) sent. */
  pollerRequests: Map<string, number>;
  /** host:port -> packets the member received from clients, minus this bench's srvr readings. */
  memberReceived: Map<string, number>;
  healthFramesPerBrowser: number;
  browserErrors: string[];
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);
const sum = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** What one srvr reading of every member adds to each member's Received. */
async function srvrOverhead(env: BenchEnv): Promise<Map<string, number>> {
  const a = await memberPackets(env.ensemble.members);
  const b = await memberPackets(env.ensemble.members);
  return new Map([...b].map(([address, c]) => [address, c.received - (a.get(address)?.received ?? 0)]));
}

/** Resolves right after the poller's next publish: phases cover whole rounds. */
function nextRound(poller: MemberPoller, scope: Scope): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = poller.subscribe(() => {
      stop();
      resolve();
    });
    scope.signal.addEventListener('abort', () => reject(scope.signal.reason as Error), { once: true });
  });
}

async function runPhase(scope: Scope, env: BenchEnv, count: number, overhead: ReadonlyMap<string, number>): Promise<PhaseResult> {
  const { poller } = env.keeper.ensembles.get(ENSEMBLE);
  scope.log(`${count} browser(s): connecting and watching the ensemble`);
  const browsers: BenchBrowser[] = [];
  for (let i = 0; i < count; i++) {
    const b = await BenchBrowser.open(env.keeper.url);
    browsers.push(b);
    scope.defer(`close browser ${i}`, () => b.close());
    b.subscribe('ensembleHealth', ENSEMBLE, {});
  }
  // The history and the current health arrive at once; then one frame per poll.
  await until(() => browsers.every((b) => b.frames >= 1), 'every browser to get the health', { timeoutMs: 20_000, signal: scope.signal });

  await nextRound(poller, scope);
  for (const b of browsers) b.resetCounters();
  const counters0 = poller.requestCounts();
  const packets0 = await memberPackets(env.ensemble.members);
  const rounds0 = poller.rounds;
  const started = performance.now();
  scope.log(`${count} browser(s): measuring for ${PHASE_MS / 1000} s`);
  await sleep(PHASE_MS, scope.signal);
  await nextRound(poller, scope);
  const seconds = (performance.now() - started) / 1000;
  const rounds = poller.rounds - rounds0;
  const counters1 = poller.requestCounts();
  const packets1 = await memberPackets(env.ensemble.members);

  const pollerRequests = new Map<string, number>();
  const memberReceived = new Map<string, number>();
  for (const [address, after] of packets1) {
    pollerRequests.set(
      address,
      (counters1[address]?.fourLetterWords ?? 0) +
        (counters1[address]?.admin ?? 0) -
        (counters0[address]?.fourLetterWords ?? 0) -
        (counters0[address]?.admin ?? 0),
    );
    memberReceived.set(address, after.received - (packets0.get(address)?.received ?? 0) - (overhead.get(address) ?? 0));
  }
  const result: PhaseResult = {
    browsers: count,
    seconds,
    rounds,
    pollerRequests,
    memberReceived,
    healthFramesPerBrowser: browsers.reduce((n, b) => n + b.frames, 0) / count,
    browserErrors: browsers.flatMap((b) => b.errors).slice(0, 5),
  };
  for (const b of browsers) b.close();
  return result;
}

function describePhase(p: PhaseResult): string[] {
  const label = `${p.browsers} browser${p.browsers === 1 ? '' : 's'}`;
  const lines = [`${label}: ${fmt(p.seconds, 1)} s, ${p.rounds} poll rounds, ${fmt(p.healthFramesPerBrowser, 1)} frames per browser`];
  for (const [address, requests] of p.pollerRequests) {
    lines.push(
      `  ${address}: poller ${fmt(requests / p.seconds)} req/s (${requests}), member-side ${fmt((p.memberReceived.get(address) ?? 0) / p.seconds)} packets/s (${p.memberReceived.get(address)})`,
    );
  }
  return lines;
}

await runBench('poller', { timeoutMs: 180_000 }, async (scope) => {
  const env = await startBenchEnv(scope, PORT_OFFSETS.pollerBench);
  const { poller } = env.keeper.ensembles.get(ENSEMBLE);
  await until(() => poller.rounds >= 2, 'two poll rounds', { timeoutMs: 30_000, signal: scope.signal });
  const overhead = await srvrOverhead(env);

  const phases: PhaseResult[] = [];
  for (const count of BROWSER_COUNTS) phases.push(await runPhase(scope, env, count, overhead));
  const [one, many] = phases as [PhaseResult, PhaseResult];

  const rate = (p: PhaseResult, m: ReadonlyMap<string, number>) => sum(m) / p.seconds / m.size;
  const pollerRatio = rate(many, many.pollerRequests) / rate(one, one.pollerRequests);
  const memberRatio = rate(many, many.memberReceived) / rate(one, one.memberReceived);
  const perRound = (p: PhaseResult) => sum(p.pollerRequests) / p.rounds / p.pollerRequests.size;
  const notes: string[] = [];
  for (const p of phases) if (p.browserErrors.length > 0) notes.push(`${p.browsers} browser(s): errors ${p.browserErrors.join('; ')}`);
  if (perRound(one) !== perRound(many))
    notes.push(`requests per member per round differ: ${fmt(perRound(one))} (1 browser) vs ${fmt(perRound(many))} (50 browsers)`);

  return {
    bench: 'poller',
    title: `Member poller: requests to each member with 1 vs 50 browsers watching (poll every ${poller.intervalMs / 1000} s, 4lw)`,
    lines: [
      `srvr overhead per reading: ${[...overhead].map(([a, n]) => `${a} ${n}`).join(', ')} packet(s) (subtracted)`,
      ...phases.flatMap(describePhase),
      `requests per member per round: ${fmt(perRound(one))} (1 browser), ${fmt(perRound(many))} (50 browsers)`,
      `ratio 50 browsers / 1 browser: ${pollerRatio.toFixed(3)} (poller's count), ${memberRatio.toFixed(3)} (members' count)`,
    ],
    rows: [
      {
        measure: 'requests/s per member from the poller, 50 browsers vs 1 (poller count)',
        keeper: `${fmt(rate(many, many.pollerRequests))}/s`,
        baseline: `${fmt(rate(one, one.pollerRequests))}/s`,
        ratio: pollerRatio,
        target: '= 1',
        withinTarget: Math.abs(pollerRatio - 1) <= 0.05,
      },
      {
        measure: "packets/s per member from Keeper, 50 browsers vs 1 (members' srvr Received)",
        keeper: `${fmt(rate(many, many.memberReceived))}/s`,
        baseline: `${fmt(rate(one, one.memberReceived))}/s`,
        ratio: memberRatio,
        target: '≈ 1',
        withinTarget: memberRatio >= 0.9 && memberRatio <= 1.1,
      },
    ],
    notes,
    zookeeperVersion: env.zookeeperVersion,
  };
});
