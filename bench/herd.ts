/**
 * Keeper adds nothing to a herd (issue 14, seed 000): its own requests to each member while
 * kazoo workers loop getChildren on a list of thousands, against the same while the ensemble
 * is idle, with browsers open on the ensemble view (health topic) and on the sessions view
 * (GET /sessions on the web's schedule) through both windows.
 *
 * Each window is one sessions cadence: from the first poll round after a "gather now" to the
 * first poll round after the gathering the sessions views cause a cadence later, timed from
 * round start to round start, so it holds whole poll rounds and exactly one gathering (cons on
 * every member + one dump), whatever the herd does to the members' answer times.
 * Keeper's requests are counted twice:
 *  - by Keeper: the member poller's counters (4lw, per member: poll, membership, sessions)
 *    plus the console session's calls and liveness probes (on the member it is on);
 *  - by the members: srvr `Received:` deltas minus the herd's answered requests (the workers
 *    are paused at both ends of the window, so the counts match exactly) and minus this
 *    bench's own srvr readings; this side would also see the console session's pings (none
 *    come: its liveness probe keeps the connection busy).
 * The bench Keeper has no AdminServer ports, so everything goes over 4lw, which the members count.
 *
 *   npx tsx bench/herd.ts
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ENSEMBLE, PORT_OFFSETS, startBenchEnv, type BenchEnv } from './support/benchEnv.js';
import { BenchBrowser } from './support/browser.js';
import { KazooRequestHerd, type RequestHerdCounts } from './support/herdWorkers.js';
import { runBench, sleep, until, type Scope } from './support/lifecycle.js';
import { memberPackets, type PacketCounts } from './support/memberCounters.js';
import { SessionsViewer } from './support/sessionsView.js';
import type { Ensemble } from '../server/src/ensemble/ensemble.js';
import type { MemberCount } from '../server/src/members/counters.js';
import { connectRaw } from '../server/test/support/rawClient.js';

const CHILDREN = 5_000;
const CREATE_CHUNK = 1_000;
const WORKERS = 120;
/** One Python process is bound by its interpreter lock long before the members are. */
const PROCESSES = 4;
/** Seed 000's workers ran with long sessions (the issue's run: 15 minutes). */
const WORKER_SESSION_TIMEOUT_S = 900;
const ENSEMBLE_VIEWS = 3;
const SESSIONS_VIEWS = 3;
/** After the herd starts, before its window opens (which starts with a gathering that sees its sessions). */
const HERD_WARMUP_MS = 5_000;
const PATH = '/bench/herd/available';
const LOOP_SAMPLE_MS = 10;

interface Snapshot {
  /** The start of the poll round just published (epoch ms). */
  at: number;
  rounds: number;
  gatherings: number;
  poller: Record<string, MemberCount>;
  consoleCalls: number;
  consoleProbes: number;
  consoleMember: string | null;
  packets: Map<string, PacketCounts>;
  herd: RequestHerdCounts | null;
}

interface WindowResult {
  label: 'idle' | 'herd';
  seconds: number;
  rounds: number;
  gatherings: number;
  /** host:port -> 4lw words Keeper sent it: poll rounds, membership, sessions gathering. */
  fourLetterWords: Map<string, number>;
  /** host:port -> everything Keeper sent it, by Keeper's count: the 4lw words plus the console session's calls and probes. */
  keeper: Map<string, number>;
  /** host:port -> packets the member received, minus the herd's and this bench's own. */
  memberSide: Map<string, number>;
  byPurpose: Record<string, number>;
  consoleRequests: number;
  herdRequests: number;
  herdErrors: number;
  herdLastError: string;
  consoleMemberMoved: boolean;
  /** The herd's mean getChildren latency, as its workers timed it. */
  herdLatencyMs: number | null;
  /** Keeper's event loop delay over the window, ms (its timers, the liveness probe's among them, run late by this much). */
  loopDelayMeanMs: number;
  loopDelayP99Ms: number;
  /** Client connections on all members, at the window's last poll round. */
  connections: number | null;
  states: string[];
  sessionsSeen: number;
  sessionsAnswerBytes: number;
  herdNamed: boolean | null;
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);
const sum = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const delta = (a: number | undefined, b: number | undefined) => (b ?? 0) - (a ?? 0);

function benchEnsemble(env: BenchEnv): Ensemble {
  const ensemble = env.keeper.ensembles.find(ENSEMBLE);
  if (!ensemble) throw new Error('keeper has no bench ensemble');
  return ensemble;
}

/** The task list, from a session closed before any window (its pings would count as Keeper's). */
async function createTasks(connectionString: string): Promise<void> {
  const raw = await connectRaw(connectionString);
  try {
    await raw.mkdirp(PATH);
    for (let i = 0; i < CHILDREN; i += CREATE_CHUNK) {
      const tx = raw.client.transaction();
      for (let j = i; j < Math.min(CHILDREN, i + CREATE_CHUNK); j++) tx.create(`${PATH}/task-${String(j).padStart(6, '0')}`, Buffer.from('{}'));
      await new Promise<void>((resolve, reject) => tx.commit((error) => (error ? reject(error) : resolve())));
    }
  } finally {
    raw.close();
  }
}

/** Resolves right after the poller's next publish. */
function nextRound(ensemble: Ensemble, scope: Scope): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = ensemble.poller.subscribe(() => {
      stop();
      resolve();
    });
    scope.signal.addEventListener('abort', () => reject(scope.signal.reason as Error), { once: true });
  });
}

/** Waits until a sessions gathering starts (the sessions views ask for it), then for the poll round after it (its cons and dump are sent by then). */
async function afterNextGathering(scope: Scope, ensemble: Ensemble, timeoutMs: number): Promise<void> {
  const before = ensemble.sessions.gatherings;
  await until(() => ensemble.sessions.gatherings > before, 'a sessions gathering', { timeoutMs, intervalMs: 50, signal: scope.signal });
  await nextRound(ensemble, scope);
}

/** "Gather now", as the sessions view's button does (retried while the rate limit refuses it), then the poll round after it. */
async function gatherNow(scope: Scope, ensemble: Ensemble): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const before = ensemble.sessions.gatherings;
    await ensemble.sessions.get(true);
    if (ensemble.sessions.gatherings > before) break;
    if (Date.now() > deadline) throw new Error('no sessions gathering allowed within 30 s');
    await sleep(1_000, scope.signal);
  }
  await nextRound(ensemble, scope);
}

/** srvr `Received:` counts itself: what one reading of every member adds to each member. */
async function srvrOverhead(env: BenchEnv): Promise<Map<string, number>> {
  const a = await memberPackets(env.ensemble.members);
  const b = await memberPackets(env.ensemble.members);
  return new Map([...b].map(([address, c]) => [address, c.received - (a.get(address)?.received ?? 0)]));
}

/** Every counter at one instant: the herd paused, so the members' counts stand still but for Keeper's own. */
async function snapshot(env: BenchEnv, ensemble: Ensemble, herd: KazooRequestHerd | null): Promise<Snapshot> {
  // Called right after a poll round's publish: windows run from the start of one round to the start of
  // another, so their length does not depend on how long the members took to answer (the herd slows them).
  const at = ensemble.poller.current()?.polledAt;
  if (at === undefined) throw new Error('no poll round yet');
  const herdCounts = herd ? await herd.pause() : null;
  const { gateway } = env;
  const shot: Snapshot = {
    at,
    rounds: ensemble.poller.rounds,
    gatherings: ensemble.sessions.gatherings,
    poller: ensemble.poller.requestCounts(),
    consoleCalls: gateway.callsSent,
    consoleProbes: gateway.probesSent,
    consoleMember: gateway.session.member,
    packets: await memberPackets(env.ensemble.members),
    herd: herdCounts,
  };
  if (herd) await herd.resume();
  return shot;
}

async function measureWindow(
  scope: Scope,
  env: BenchEnv,
  label: WindowResult['label'],
  herd: KazooRequestHerd | null,
  overhead: ReadonlyMap<string, number>,
  viewers: readonly SessionsViewer[],
): Promise<WindowResult> {
  const ensemble = benchEnsemble(env);
  const cadenceMs = ensemble.sessions.cadenceMs;
  await gatherNow(scope, ensemble);
  const s0 = await snapshot(env, ensemble, herd);
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  loopDelay.enable();
  scope.log(`${label}: measuring one sessions cadence (~${cadenceMs / 1000} s)`);
  await afterNextGathering(scope, ensemble, 2 * cadenceMs + 30_000);
  loopDelay.disable();
  const s1 = await snapshot(env, ensemble, herd);
  const seconds = (s1.at - s0.at) / 1000;

  // The membership read goes through the console session: counted once, in the gateway's calls.
  const fourLetterWords = new Map<string, number>();
  const byPurpose: Record<string, number> = {};
  for (const [address] of s1.packets) {
    const a = s0.poller[address];
    const b = s1.poller[address];
    fourLetterWords.set(address, delta(a?.fourLetterWords, b?.fourLetterWords) + delta(a?.admin, b?.admin));
    for (const [purpose, n] of Object.entries(b?.byPurpose ?? {})) {
      if (purpose === 'membership') continue;
      byPurpose[`4lw ${purpose}`] = (byPurpose[`4lw ${purpose}`] ?? 0) + n - (a?.byPurpose[purpose as keyof MemberCount['byPurpose']] ?? 0);
    }
  }
  const consoleCalls = s1.consoleCalls - s0.consoleCalls;
  const consoleProbes = s1.consoleProbes - s0.consoleProbes;
  byPurpose['console session calls'] = consoleCalls;
  byPurpose['console session liveness probes'] = consoleProbes;
  const consoleMember = s1.consoleMember ?? '';
  const keeper = new Map(fourLetterWords);
  keeper.set(consoleMember, (keeper.get(consoleMember) ?? 0) + consoleCalls + consoleProbes);

  const memberSide = new Map<string, number>();
  for (const [address, after] of s1.packets) {
    const herdRequests = delta(s0.herd?.requests.get(address), s1.herd?.requests.get(address));
    memberSide.set(address, after.received - (s0.packets.get(address)?.received ?? 0) - herdRequests - (overhead.get(address) ?? 0));
  }

  const statuses = ensemble.poller.statuses();
  const herdRequests = s1.herd && s0.herd ? sum(s1.herd.requests) - sum(s0.herd.requests) : 0;
  const herdWaited = s1.herd && s0.herd ? s1.herd.waitedSeconds - s0.herd.waitedSeconds : 0;
  const connections = statuses.reduce<number | null>((n, s) => (s.metrics.connections === null ? n : (n ?? 0) + s.metrics.connections), null);
  return {
    label,
    seconds,
    rounds: s1.rounds - s0.rounds,
    gatherings: s1.gatherings - s0.gatherings,
    fourLetterWords,
    keeper,
    memberSide,
    byPurpose,
    consoleRequests: consoleCalls + consoleProbes,
    herdRequests,
    herdErrors: s1.herd && s0.herd ? s1.herd.errors - s0.herd.errors : 0,
    herdLastError: s1.herd?.lastError ?? '',
    consoleMemberMoved: s0.consoleMember !== s1.consoleMember,
    // The histogram holds whole sample intervals: the delay is what exceeds the interval.
    loopDelayMeanMs: loopDelay.mean / 1e6 - LOOP_SAMPLE_MS,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6 - LOOP_SAMPLE_MS,
    herdLatencyMs: herdRequests > 0 ? (herdWaited / herdRequests) * 1000 : null,
    connections,
    states: statuses.map((s) => `${s.address} ${s.state}`),
    sessionsSeen: Math.max(...viewers.map((v) => v.sessions)),
    sessionsAnswerBytes: Math.max(...viewers.map((v) => v.bytes)),
    herdNamed: viewers.some((v) => v.herdNamed) ? true : viewers.some((v) => v.herdNamed === false) ? false : null,
  };
}

function describe(w: WindowResult): string[] {
  const perSecond = (n: number) => `${fmt(n / w.seconds)}/s`;
  const lines = [
    `${w.label}: ${fmt(w.seconds, 1)} s, ${w.rounds} poll rounds, ${w.gatherings} sessions gathering(s); ` +
      `${w.connections ?? '?'} client connections on the members; ${w.states.join(', ')}; ` +
      `Keeper's event loop delay mean ${fmt(w.loopDelayMeanMs, 1)} ms, p99 ${fmt(w.loopDelayP99Ms, 1)} ms`,
  ];
  if (w.label === 'herd')
    lines.push(
      `  herd: ${perSecond(w.herdRequests)} getChildren of ${CHILDREN.toLocaleString('en-US')} children (${w.herdRequests} answered, ` +
        `mean ${w.herdLatencyMs === null ? '?' : fmt(w.herdLatencyMs, 1)} ms as the workers timed them; ${w.herdErrors} failed)`,
    );
  lines.push(
    `  sessions view: ${w.sessionsSeen} sessions in the last answer (${fmt(w.sessionsAnswerBytes / 1024, 1)} KiB)` +
      (w.herdNamed === null ? '' : w.herdNamed ? ', herd named' : ', no herd named'),
  );
  lines.push(
    `  Keeper's requests by kind: ${Object.entries(w.byPurpose)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  for (const [address, n] of w.keeper)
    lines.push(
      `  ${address}: 4lw ${perSecond(w.fourLetterWords.get(address) ?? 0)}, all of Keeper's ${perSecond(n)} (${n}), member-side ${perSecond(w.memberSide.get(address) ?? 0)} (${w.memberSide.get(address)})`,
    );
  return lines;
}

await runBench('herd', { timeoutMs: 600_000 }, async (scope) => {
  const env = await startBenchEnv(scope, PORT_OFFSETS.herdBench);
  const ensemble = benchEnsemble(env);
  await createTasks(env.ensemble.connectionString);
  await until(() => ensemble.poller.rounds >= 2, 'two poll rounds', { timeoutMs: 30_000, signal: scope.signal });
  const overhead = await srvrOverhead(env);

  scope.log(`${ENSEMBLE_VIEWS} browser(s) on the ensemble view, ${SESSIONS_VIEWS} on the sessions view`);
  for (let i = 0; i < ENSEMBLE_VIEWS; i++) {
    const b = await BenchBrowser.open(env.keeper.url);
    scope.defer(`close browser ${i}`, () => b.close());
    b.subscribe('ensembleHealth', ENSEMBLE, {});
  }
  const viewers = Array.from({ length: SESSIONS_VIEWS }, () => new SessionsViewer(env.keeper.url, ENSEMBLE));
  scope.defer('close sessions views', () => Promise.all(viewers.map((v) => v.close())));

  const idle = await measureWindow(scope, env, 'idle', null, overhead, viewers);

  const members = env.ensemble.members.map((m) => `${m.host}:${m.clientPort}`);
  scope.log(`herd: ${WORKERS} kazoo workers in ${PROCESSES} processes, getChildren of ${CHILDREN} children in a loop`);
  const herd = await KazooRequestHerd.start(scope, { members, workers: WORKERS, processes: PROCESSES, path: PATH, sessionTimeoutS: WORKER_SESSION_TIMEOUT_S });
  await herd.resume();
  await sleep(HERD_WARMUP_MS, scope.signal);
  const during = await measureWindow(scope, env, 'herd', herd, overhead, viewers);
  await herd.stop();

  const rate = (w: WindowResult, m: ReadonlyMap<string, number>) => sum(m) / w.seconds;
  const perMember = (w: WindowResult) => rate(w, w.fourLetterWords) / w.fourLetterWords.size;
  const fourLetterRatio = perMember(during) / perMember(idle);
  const keeperRatio = rate(during, during.keeper) / rate(idle, idle.keeper);
  const memberRatio = rate(during, during.memberSide) / rate(idle, idle.memberSide);
  const near1 = (r: number) => r >= 0.95 && r <= 1.05;
  const notes: string[] = [];
  for (const w of [idle, during]) {
    if (w.gatherings !== 1) notes.push(`${w.label}: ${w.gatherings} sessions gatherings in the window (1 expected)`);
    if (w.consoleMemberMoved) notes.push(`${w.label}: the console session moved to another member during the window`);
    if (w.states.some((s) => !/ (leader|follower|observer|standalone)$/.test(s)))
      notes.push(`${w.label}: a member was not seen serving: ${w.states.join(', ')}`);
  }
  if (during.herdErrors > 0)
    notes.push(`herd: ${during.herdErrors} getChildren failed (last: ${during.herdLastError}); member-side counts may include some of them`);
  if (during.sessionsSeen < WORKERS) notes.push(`the sessions view showed ${during.sessionsSeen} sessions during the herd (${WORKERS} workers)`);
  for (const v of viewers) if (v.errors.length > 0) notes.push(`sessions view errors: ${v.errors.slice(0, 3).join('; ')}`);

  return {
    bench: 'herd',
    title: `Herd: Keeper's own requests while ${WORKERS} kazoo workers loop getChildren on ${CHILDREN.toLocaleString('en-US')} children, vs idle`,
    lines: [
      `srvr overhead per reading: ${[...overhead].map(([a, n]) => `${a} ${n}`).join(', ')} packet(s) (subtracted)`,
      `browsers: ${ENSEMBLE_VIEWS} on the ensemble view, ${SESSIONS_VIEWS} on the sessions view, through both windows`,
      ...describe(idle),
      ...describe(during),
      `herd's own rate: ${fmt(during.herdRequests / during.seconds, 0)} requests/s, ${fmt(during.herdRequests / during.seconds / rate(during, during.keeper), 0)}x Keeper's`,
      `ratio herd / idle: ${fourLetterRatio.toFixed(3)} (4lw per member), ${keeperRatio.toFixed(3)} (all of Keeper's, Keeper's count), ${memberRatio.toFixed(3)} (members' count)`,
    ],
    rows: [
      {
        measure: '4lw requests/s to each member (poll rounds, sessions gathering), during a herd vs idle',
        keeper: `${fmt(perMember(during))}/s`,
        baseline: `${fmt(perMember(idle))}/s`,
        ratio: fourLetterRatio,
        target: '= 1',
        withinTarget: Math.abs(fourLetterRatio - 1) <= 0.01,
      },
      {
        measure: "Keeper's requests/s to the ensemble (4lw + console session), during a herd vs idle (Keeper's count)",
        keeper: `${fmt(rate(during, during.keeper))}/s`,
        baseline: `${fmt(rate(idle, idle.keeper))}/s`,
        ratio: keeperRatio,
        target: '≈ 1',
        withinTarget: near1(keeperRatio),
      },
      {
        measure: "Keeper's packets/s to the ensemble, during a herd vs idle (members' srvr Received minus the herd's)",
        keeper: `${fmt(rate(during, during.memberSide))}/s`,
        baseline: `${fmt(rate(idle, idle.memberSide))}/s`,
        ratio: memberRatio,
        target: '≈ 1',
        withinTarget: near1(memberRatio),
      },
    ],
    notes,
    zookeeperVersion: env.zookeeperVersion,
  };
});
