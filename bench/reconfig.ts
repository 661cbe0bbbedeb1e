/**
 * What a resize costs its clients (issue 24, item 7): 3 → 5 → 3 voters on a real reconfig-enabled
 * ensemble, through Keeper's workflow and by a raw client issuing the same incremental reconfig
 * steps itself, in alternating blocks of one run (raw, Keeper, Keeper, raw: each side once early
 * and once late). A block is one resize of 4 steps, in the planner's order: add two voters (the
 * sandbox starts them as learners first), remove a follower, then the leader (one election, last).
 *  - Keeper: POST /api/ensembles/bench/reconfig {add, remove}, then …/start (with the plan's phrase
 *    when it removes the member Keeper is on); each step sent, verified by Keeper, the next sent.
 *  - Raw: node-zookeeper-client as ZooKeeper's super user with Keeper's reconfig request
 *    (server/src/zk/reconfig.ts), each step under the version the step before made, then waiting
 *    for what Keeper checks too (the configuration, every member's role, the synced followers).
 * Three kazoo writers per block (one starting on each member) create nodes back to back (20 ms
 * apart) and record each acknowledged write's send and ack times. A step's window runs from its
 * send to the next step's (the last one's until it is verified and every writer acknowledged
 * again); a write counts in the window it was sent in, whenever its ack came, so a stall is
 * charged once, to the step under which it began. Per step: the writers' longest gap between
 * consecutive acks and the p99 write latency (ack - send, retries included). At the end every
 * acknowledged write is read back (none may be missing) and the sessions checked for expiry.
 *
 *   npx tsx bench/reconfig.ts        (or: npm run bench:reconfig)
 */
import { parseDynamicConfig, planReconfig, reconfigWorkflowSchema, type DynamicConfig, type ReconfigChange, type ReconfigWorkflow } from '@keeper/shared';
import { fourLetterWord, memberPorts, parseSrvrMode } from '../scripts/sandbox/index.js';
import { missingWrites, startLoadWriter, startingOn, typicalGap, writesSentIn, type LoadReport, type RunningLoadWriter } from '../scripts/lib/kazoo/index.js';
import { CONFIG_PATH } from '../server/src/reconfig/executor.js';
import { call } from '../server/test/support/http.js';
import { ENSEMBLE, PORT_OFFSETS, startBenchEnv, type BenchEnv } from './support/benchEnv.js';
import { runBench, sleep, until, type Scope } from './support/lifecycle.js';
import { openRawReconfig, waitSettled } from './support/rawReconfig.js';
import type { SummaryRow } from './support/report.js';
import { median, percentile } from './support/stats.js';

type Side = 'keeper' | 'raw';

const SUPER_PASSWORD = 'bench-reconfig-super-0123456789';
/** Alternating, each side as often early as late (drift and load weigh on both alike). */
const BLOCKS: readonly Side[] = ['raw', 'keeper', 'keeper', 'raw', 'raw', 'keeper', 'keeper', 'raw'];
const STEPS = ['add a voter (3 → 4)', 'add a voter (4 → 5)', 'remove a follower (5 → 4)', 'remove the leader (4 → 3)'] as const;
const WRITERS = 3;
const WRITER_SESSION_TIMEOUT_MS = 15_000;
const IDLE_MS = 2_000;
const RESIZE_TIMEOUT_MS = 120_000;
/** The sandbox's members are 1..9. */
const MAX_ID = 9;

interface StepRun {
  memberId: number;
  zkCli: string;
  sentAt: number;
  doneAt: number;
}

interface StepMeasure extends StepRun {
  /** The writes sent in [sentAt, end): end is the next step's send, or for the last one, verified and every writer acknowledged again. */
  end: number;
  gapMs: number;
  latencies: number[];
}

interface Block {
  side: Side;
  n: number;
  steps: StepMeasure[];
  reports: LoadReport[];
  idleGapMs: number;
  idleP99Ms: number;
  /** From the request (Keeper: the POST; raw: reading the configuration) to the last step verified. */
  totalMs: number;
  members: string;
  /** Where Keeper's console session was when the resize began, against the leader it removed (a clue for the leader's step). */
  keeperOn: string;
}

const ms = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} ms` : 'n/a');
const seconds = (n: number) => `${(n / 1000).toFixed(1)} s`;
const hostOf = (id: number) => `127.0.0.1:${memberPorts(id, PORT_OFFSETS.reconfigBench).clientPort}`;
const configText = (c: DynamicConfig) => `${c.members.map((m) => `server.${m.id}=${m.value}`).join('\n')}\nversion=${c.version}`;

async function readConfig(env: BenchEnv): Promise<DynamicConfig> {
  return parseDynamicConfig((await env.gateway.getData(CONFIG_PATH)).data.toString('utf8'));
}

async function leaderOf(config: DynamicConfig): Promise<number> {
  for (const m of config.members) {
    const mode = await fourLetterWord('127.0.0.1', m.clientPort!, 'srvr', 1_500).then(parseSrvrMode, () => null);
    if (mode === 'leader') return m.id;
  }
  throw new Error('no member leads');
}

/** Keeper's poller sees 3 voters serving, one leading, nobody removed still running: what its preflight wants too. */
function settled(env: BenchEnv): boolean {
  const { poller, reconfig } = env.keeper.ensembles.get(ENSEMBLE);
  const h = poller.current();
  return (
    reconfig.ready &&
    h !== null &&
    h.quorum.voters === 3 &&
    h.quorum.votersServing === 3 &&
    h.members.some((m) => m.state === 'leader') &&
    (h.removed?.length ?? 0) === 0
  );
}

/** Two ids to add: never used ones first, then ones a resize removed (the sandbox stopped them). */
function pickJoiners(env: BenchEnv, current: readonly number[]): number[] {
  const known = new Set(env.ensemble.members.map((m) => m.id));
  const free = Array.from({ length: MAX_ID }, (_, i) => i + 1).filter(
    (id) => !current.includes(id) && (!known.has(id) || env.ensemble.member(id).state === 'stopped'),
  );
  const fresh = free.filter((id) => !known.has(id));
  return [...fresh, ...free.filter((id) => known.has(id))].slice(0, 2);
}

async function keeperResize(scope: Scope, env: BenchEnv, change: ReconfigChange): Promise<StepRun[]> {
  const path = `/api/ensembles/${ENSEMBLE}/reconfig`;
  const created = await call(env.keeper.url, 'POST', path, {}, change);
  if (created.status !== 201) throw new Error(`the resize was not planned: ${created.status} ${JSON.stringify(created.body)}`);
  const planned = reconfigWorkflowSchema.parse(created.body);
  // Removing the member Keeper is on needs the plan's phrase, as an admin types it.
  const body = planned.confirmationPhrase ? { confirmation: planned.confirmationPhrase } : {};
  // The preflight reads the members now: a joiner's zxid under writes may need another look.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await call(env.keeper.url, 'POST', `${path}/${planned.id}/start`, {}, body);
    if (res.status === 200) break;
    if (Date.now() > deadline) throw new Error(`the resize did not start: ${JSON.stringify(res.body)}`);
    await sleep(250, scope.signal);
  }
  let wf: ReconfigWorkflow;
  for (;;) {
    wf = reconfigWorkflowSchema.parse((await call(env.keeper.url, 'GET', `${path}/${planned.id}`)).body);
    if (wf.state === 'done') break;
    if (wf.state !== 'running') throw new Error(`the resize is ${wf.state}: ${wf.reason}`);
    if (Date.now() - planned.createdAt > RESIZE_TIMEOUT_MS) throw new Error(`the resize was not done within ${RESIZE_TIMEOUT_MS / 1000} s`);
    await sleep(250, scope.signal);
  }
  return wf.steps.map((s) => ({ memberId: s.memberId, zkCli: `${s.zkCli} -v ${s.fromConfig}`, sentAt: s.sentAt!, doneAt: s.doneAt! }));
}

/** The same steps by a raw client pinned to the member that stays (so its own connection never drops). */
async function rawResize(change: ReconfigChange, leader: number, kept: number): Promise<StepRun[]> {
  const session = await openRawReconfig(hostOf(kept), SUPER_PASSWORD);
  try {
    const plan = planReconfig({ configText: configText(await session.readConfig()), change, leaderId: leader, connectedMemberId: kept });
    if (!plan.ok) throw new Error(`the raw plan was refused: ${plan.refusals.join('; ')}`);
    const runs: StepRun[] = [];
    let from = plan.fromConfig;
    for (const step of plan.steps) {
      const sentAt = Date.now();
      const config = await session.step(step, from);
      await waitSettled(session, config.version!);
      runs.push({ memberId: step.memberId, zkCli: `${step.zkCli} -v ${from}`, sentAt, doneAt: Date.now() });
      from = config.version!;
    }
    return runs;
  } finally {
    session.close();
  }
}

/** Over every writer: the longest gap and the latencies of the writes sent in [from, to). */
function sentIn(reports: readonly LoadReport[], from: number, to: number): { gapMs: number; latencies: number[] } {
  const writes = reports.flatMap((r) => writesSentIn(r.acks, from, to));
  return { gapMs: Math.max(0, ...writes.map((w) => w.gapMs)), latencies: writes.map((w) => w.latencyMs) };
}

async function runBlock(scope: Scope, env: BenchEnv, side: Side, n: number, running: Set<RunningLoadWriter>): Promise<Block> {
  await until(() => settled(env), 'Keeper to see 3 voters serving and nobody removed running', { timeoutMs: 60_000, intervalMs: 100, signal: scope.signal });
  const config = await readConfig(env);
  const current = config.members.map((m) => m.id);
  const joiners = pickJoiners(env, current);
  const leader = await leaderOf(config);
  const follower = current.filter((id) => id !== leader).sort((a, b) => a - b)[0]!;
  const kept = current.find((id) => id !== leader && id !== follower)!;
  scope.log(`block ${n} (${side}): members ${current.join(',')} (leader ${leader}); add ${joiners.join(',')}, remove ${follower} then ${leader}`);

  const currentHosts = current.map(hostOf).join(',');
  const writers = await Promise.all(
    Array.from({ length: WRITERS }, (_, i) =>
      startLoadWriter({
        hosts: `${startingOn(currentHosts, i)},${joiners.map(hostOf).join(',')}`,
        root: `/bench/reconfig/${n}-${side}-${i + 1}`,
        sessionTimeoutMs: WRITER_SESSION_TIMEOUT_MS,
      }),
    ),
  );
  writers.forEach((w) => running.add(w));
  await sleep(1_000, scope.signal);
  const idleFrom = Date.now();
  await sleep(IDLE_MS, scope.signal);
  const idleTo = Date.now();

  const added = await Promise.all(joiners.map((id) => env.ensemble.addMember(id)));
  const change: ReconfigChange = { add: added.map((a) => a.line), remove: [String(follower), String(leader)] };
  const keeperMember = env.gateway.session.member;
  const keeperOn = `Keeper's session on ${keeperMember === hostOf(leader) ? 'the leader' : keeperMember === hostOf(follower) ? 'the follower removed' : (keeperMember ?? 'no member')}`;
  const began = Date.now();
  const runs = side === 'keeper' ? await keeperResize(scope, env, change) : await rawResize(change, leader, kept);
  const totalMs = Date.now() - began;
  // Both sides must have run the same steps in the same order: the joiners ascending, the follower, the leader last.
  const expected = [...[...joiners].sort((a, b) => a - b), follower, leader];
  if (runs.map((r) => r.memberId).join() !== expected.join())
    throw new Error(`${side} ran ${runs.map((r) => r.zkCli).join('; ')}: members ${expected.join(', ')} in that order expected`);

  // Each step's window ends once it is verified and every writer has been acknowledged after that.
  const lastDone = runs.at(-1)!.doneAt;
  await until(() => writers.every((w) => (w.acks.at(-1)?.at ?? 0) > lastDone), 'an ack from every writer after the resize', {
    timeoutMs: 60_000,
    signal: scope.signal,
  });
  // The sandbox stops the removed members (it looks every 2 s): part of the block, before the writers stop.
  await until(() => [follower, leader].every((id) => env.ensemble.member(id).state === 'stopped'), 'the removed members stopped by the sandbox', {
    timeoutMs: 30_000,
    signal: scope.signal,
  });
  const reports = await Promise.all(
    writers.map((w) => {
      running.delete(w);
      return w.stop();
    }),
  );
  const lastEnd = Math.max(lastDone, ...reports.map((r) => r.acks.find((a) => a.at > lastDone)?.at ?? lastDone));
  const steps = runs.map((run, k) => {
    const end = runs[k + 1]?.sentAt ?? lastEnd;
    return { ...run, end, ...sentIn(reports, run.sentAt, end) };
  });
  const idleGapMs = Math.max(
    ...reports.map((r) =>
      typicalGap(
        r.acks.map((a) => a.at),
        idleFrom,
        idleTo,
      ),
    ),
  );
  const members = (await readConfig(env)).members.map((m) => m.id).join(',');
  for (const s of steps)
    scope.log(
      `  ${s.zkCli}: ${seconds(s.doneAt - s.sentAt)}, longest gap ${ms(s.gapMs)}, p99 ${ms(percentile(s.latencies, 99))} (${s.latencies.length} writes)`,
    );
  return { side, n, steps, reports, idleGapMs, idleP99Ms: percentile(sentIn(reports, idleFrom, idleTo).latencies, 99), totalMs, members, keeperOn };
}

await runBench('reconfig', { timeoutMs: 480_000 }, async (scope) => {
  const env = await startBenchEnv(scope, PORT_OFFSETS.reconfigBench, undefined, {}, { reconfig: { superPassword: SUPER_PASSWORD } });
  const consoleSession = env.gateway.session.sessionId;
  const running = new Set<RunningLoadWriter>();
  scope.defer('stop writers', () => Promise.all([...running].map((w) => w.stop())));

  const blocks: Block[] = [];
  for (const [i, side] of BLOCKS.entries()) blocks.push(await runBlock(scope, env, side, i + 1, running));

  const final = await readConfig(env);
  const all = blocks.flatMap((b) => b.reports);
  const missing = await missingWrites(final.members.map((m) => hostOf(m.id)).join(','), all);
  const bySide = (side: Side) => blocks.filter((b) => b.side === side);
  const lostOf = (side: Side) => bySide(side).reduce((n, b) => n + b.reports.reduce((k, r) => k + (missing.get(r.root)?.length ?? 0), 0), 0);
  const ackedOf = (side: Side) => bySide(side).reduce((n, b) => n + b.reports.reduce((k, r) => k + r.acks.length, 0), 0);
  const expiredOf = (side: Side) => bySide(side).flatMap((b) => b.reports.filter((r) => r.expired).map((r) => r.root));
  const failsOf = (side: Side) => bySide(side).reduce((n, b) => n + b.reports.reduce((k, r) => k + r.fails.length, 0), 0);

  // Per step and side: the median over its blocks of each block's longest gap (one block's worst is mostly the machine's noise), and the worst.
  const gapsOf = (side: Side, k: number) => bySide(side).map((b) => b.steps[k]!.gapMs);
  const gap = (side: Side, k: number) => median(gapsOf(side, k));
  const worstGap = (side: Side, k: number) => Math.max(...gapsOf(side, k));
  // The p99 over every write its blocks sent during the step.
  const latenciesOf = (side: Side, k: number) => bySide(side).flatMap((b) => b.steps[k]!.latencies);
  const p99 = (side: Side, k: number) => percentile(latenciesOf(side, k), 99);
  const perSide = bySide('keeper').length;

  const lines: string[] = [
    `blocks: ${BLOCKS.join(', ')}; each 3 → 5 → 3 voters in 4 steps (add, add, remove a follower, remove the leader); ${WRITERS} kazoo writers per block, one starting on each member, a create every ~20 ms, session timeout ${seconds(WRITER_SESSION_TIMEOUT_MS)}`,
  ];
  for (const b of blocks) {
    lines.push(
      `block ${b.n} (${b.side}): idle typical gap ${ms(b.idleGapMs)}, p99 ${ms(b.idleP99Ms)}; whole resize ${seconds(b.totalMs)}; ${b.keeperOn}; members after: ${b.members}`,
    );
    for (const [k, s] of b.steps.entries())
      lines.push(
        `  step ${k + 1} ${STEPS[k]} (${s.zkCli}): ${seconds(s.doneAt - s.sentAt)} to verified; longest gap ${ms(s.gapMs)}; p99 ${ms(percentile(s.latencies, 99))} over ${s.latencies.length} writes`,
      );
  }
  for (const [k, label] of STEPS.entries())
    lines.push(
      `step ${k + 1} ${label}: longest gap (median of ${perSide} blocks) Keeper ${ms(gap('keeper', k))} ÷ raw ${ms(gap('raw', k))} = ${(gap('keeper', k) / gap('raw', k)).toFixed(2)} ` +
        `(each block: Keeper ${gapsOf('keeper', k).map(ms).join(', ')}; raw ${gapsOf('raw', k).map(ms).join(', ')}); ` +
        `p99 Keeper ${ms(p99('keeper', k))} over ${latenciesOf('keeper', k).length} writes ÷ raw ${ms(p99('raw', k))} over ${latenciesOf('raw', k).length} = ${(p99('keeper', k) / p99('raw', k)).toFixed(2)}`,
    );
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const keeperTotal = mean(bySide('keeper').map((b) => b.totalMs));
  const rawTotal = mean(bySide('raw').map((b) => b.totalMs));
  lines.push(`whole resize (4 steps, each verified), mean: Keeper ${seconds(keeperTotal)} (its preflight and checks included) vs raw ${seconds(rawTotal)}`);
  for (const side of ['keeper', 'raw'] as const)
    lines.push(
      `${side}: acknowledged writes ${ackedOf(side)}, missing after the run ${lostOf(side)}; sessions expired ${expiredOf(side).length}; writes failed after their retry deadline ${failsOf(side)}`,
    );
  lines.push(
    `Keeper's console session ${env.gateway.session.sessionId === consoleSession ? 'unchanged' : 'CHANGED'}; final configuration version ${final.version}`,
  );

  const notes: string[] = [];
  for (const side of ['keeper', 'raw'] as const) {
    if (lostOf(side) > 0) notes.push(`${side}: ${lostOf(side)} acknowledged write(s) missing: ${JSON.stringify([...missing].filter(([, l]) => l.length > 0))}`);
    if (expiredOf(side).length > 0) notes.push(`${side}: session expired: ${expiredOf(side).join(', ')}`);
    if (failsOf(side) > 0) notes.push(`${side}: ${failsOf(side)} write(s) failed after their retry deadline (not acknowledged, not counted as lost)`);
  }
  if (env.gateway.session.sessionId !== consoleSession) notes.push("the console's session changed during the run");

  const rows: SummaryRow[] = STEPS.flatMap((label, k) => {
    const gapRatio = gap('keeper', k) / gap('raw', k);
    const p99Ratio = p99('keeper', k) / p99('raw', k);
    return [
      {
        measure: `Longest gap between a writer's acknowledged writes, step ${k + 1} ${label}: Keeper's resize vs a raw client's reconfig (median of ${perSide} blocks each, worst in parentheses)`,
        keeper: `${ms(gap('keeper', k))} (${ms(worstGap('keeper', k))})`,
        baseline: `${ms(gap('raw', k))} (${ms(worstGap('raw', k))})`,
        ratio: gapRatio,
        target: '≈ 1',
        withinTarget: gapRatio <= 1.5,
      },
      {
        measure: `p99 write latency, step ${k + 1} ${label}: Keeper's resize vs a raw client's reconfig (every write sent during the step, ${perSide} blocks each)`,
        keeper: ms(p99('keeper', k)),
        baseline: ms(p99('raw', k)),
        ratio: p99Ratio,
        target: '≈ 1',
        withinTarget: p99Ratio <= 1.5,
      },
    ];
  });

  return {
    bench: 'reconfig',
    title: `Resizing: what ${WRITERS} kazoo writers feel of 3 → 5 → 3 voters through Keeper's workflow, vs the same reconfig steps by a raw client`,
    lines,
    rows,
    notes,
    zookeeperVersion: env.zookeeperVersion,
  };
});
