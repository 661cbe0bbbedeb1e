/**
 * What a rolling upgrade through Keeper costs its clients (issue 13, item 10). Three kazoo
 * writers, each starting on a different member (a fresh set for the baseline and for the upgrade),
 * create nodes one after another and record every acknowledged write. Measured, in one run:
 *  - the baseline: the writers' typical gap while nothing happens, and their longest gap during a
 *    plain sandbox restart of a follower, then of the leader (no Keeper involved);
 *  - Keeper's rolling restart (default timings, the sandbox's own restarter): for each step
 *    (member, role) the longest gap between acknowledged writes, which is what clients feel;
 *  - the upgrade's total time against the sum of the members' restart times (the sandbox's, from
 *    the restart issued to the member serving again); the settle time Keeper waits after each
 *    step is part of the total and shown apart.
 * Then every acknowledged write is read back (none may be missing) and the writers' sessions are
 * checked for expiry.
 *
 *   npx tsx bench/upgrades.ts
 */
import { upgradeAnswerSchema, type UpgradeAnswer } from '@keeper/shared';
import { ENSEMBLE, PORT_OFFSETS, startBenchEnv, type BenchEnv } from './support/benchEnv.js';
import { runBench, sleep, until, type Scope } from './support/lifecycle.js';
import type { SummaryRow } from './support/report.js';
import { call } from '../server/test/support/http.js';
import { longestGapAcross, missingWrites, startLoadWriter, startingOn, typicalGap, type RunningLoadWriter } from '../scripts/lib/kazoo/index.js';

const WRITERS = 3;
const WRITER_SESSION_TIMEOUT_MS = 15_000;
const IDLE_MS = 5_000;
/** After a plain restart, before the next measure: the writers and the members settle. */
const QUIET_MS = 5_000;
const UPGRADE_TIMEOUT_MS = 300_000;

interface Restart {
  id: number;
  /** The sandbox's own figure: from the stop to the member serving again. */
  tookMs: number;
}

const ms = (n: number) => `${Math.round(n)} ms`;
const seconds = (n: number) => `${(n / 1000).toFixed(1)} s`;

/** Every voter serving and a leader, as the poller sees it (the preflight needs no less). */
function allServing(env: BenchEnv): boolean {
  const h = env.keeper.ensembles.get(ENSEMBLE).poller.current();
  return h !== null && h.quorum.votersServing === env.ensemble.members.length && h.members.some((m) => m.state === 'leader');
}

/** A plain sandbox restart of one member, no Keeper involved: the writers' longest gap over it. */
async function plainRestart(
  scope: Scope,
  env: BenchEnv,
  id: number,
  role: string,
  writers: readonly RunningLoadWriter[],
): Promise<{ gapMs: number; tookMs: number }> {
  scope.log(`baseline: plain sandbox restart of member ${id} (${role})`);
  const began = Date.now();
  const outcome = await env.ensemble.restartMember(id, { timeoutMs: 60_000 });
  await until(() => allServing(env), 'every voter serving again', { timeoutMs: 60_000, intervalMs: 100, signal: scope.signal });
  // A gap belongs to the window it ends in: the window runs to every writer's first ack after the restart.
  const ended = Date.now();
  await until(() => writers.every((w) => (w.acks.at(-1)?.at ?? 0) > ended), 'an ack from every writer', { timeoutMs: 60_000, signal: scope.signal });
  const to = Math.max(...writers.map((w) => w.acks.find((a) => a.at > ended)!.at));
  const gapMs = longestGapAcross(writers, began, to);
  await sleep(QUIET_MS, scope.signal);
  return { gapMs, tookMs: outcome.tookMs };
}

async function startUpgrade(scope: Scope, env: BenchEnv): Promise<string> {
  const path = `/api/ensembles/${ENSEMBLE}/upgrades`;
  const created = await call(env.keeper.url, 'POST', path, {}, { mode: 'rolling', start: true, note: 'bench/upgrades.ts' });
  if (created.status === 201 && created.body.state === 'running') return created.body.id as string;
  const id = created.status === 201 ? (created.body.id as string) : /Upgrade (\S+) is planned/.exec(String(created.body?.error?.message))?.[1];
  if (!id) throw new Error(`the upgrade was not created: ${JSON.stringify(created.body)}`);
  // The preflight is computed from the latest poll: under writes a zxid may need one more round.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await call(env.keeper.url, 'POST', `${path}/${id}/start`, {}, {});
    if (res.status === 200) return id;
    if (Date.now() > deadline) throw new Error(`the upgrade did not start: ${JSON.stringify(res.body)}`);
    await sleep(500, scope.signal);
  }
}

async function upgradeDone(scope: Scope, env: BenchEnv, id: string): Promise<UpgradeAnswer> {
  const deadline = Date.now() + UPGRADE_TIMEOUT_MS;
  for (;;) {
    const wf = upgradeAnswerSchema.parse((await call(env.keeper.url, 'GET', `/api/ensembles/${ENSEMBLE}/upgrades/${id}`)).body);
    if (wf.state === 'done') return wf;
    if (wf.state !== 'running') throw new Error(`the upgrade is ${wf.state}: ${wf.reason}`);
    if (Date.now() > deadline) throw new Error(`the upgrade was not done within ${UPGRADE_TIMEOUT_MS / 1000} s: ${wf.progress.sentence}`);
    await sleep(500, scope.signal);
  }
}

await runBench('upgrades', { timeoutMs: 600_000 }, async (scope) => {
  const restarts: Restart[] = [];
  const env = await startBenchEnv(scope, PORT_OFFSETS.upgradesBench, (ensemble) => ({
    restartMember: async (_name, id) => {
      const outcome = await ensemble.restartMember(id, { timeoutMs: 60_000 });
      restarts.push({ id, tookMs: outcome.tookMs });
      return { message: outcome.message, processChanged: outcome.previousPid !== outcome.member.pid };
    },
  }));
  await until(() => allServing(env), 'every voter serving', { timeoutMs: 30_000, signal: scope.signal });
  const consoleSession = env.gateway.session.sessionId;

  // Writers that stop on their own when the bench fails half-way.
  const running = new Set<RunningLoadWriter>();
  scope.defer('stop writers', () => Promise.all([...running].map((w) => w.stop())));
  /** A fresh set for each part, so that each member has its own writer when its restart begins (a restart moves them). */
  const startWriters = async (part: string) => {
    scope.log(`${part}: ${WRITERS} kazoo writers, one starting on each member`);
    const writers = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        startLoadWriter({
          hosts: startingOn(env.ensemble.connectionString, i),
          root: `/bench/upgrades/${part}-${i + 1}`,
          sessionTimeoutMs: WRITER_SESSION_TIMEOUT_MS,
        }),
      ),
    );
    writers.forEach((w) => running.add(w));
    await sleep(1_000, scope.signal);
    return writers;
  };
  const stopWriters = (writers: RunningLoadWriter[]) =>
    Promise.all(
      writers.map((w) => {
        running.delete(w);
        return w.stop();
      }),
    );

  // Baseline: idle, then plain restarts without Keeper.
  const baselineWriters = await startWriters('baseline');
  const idleFrom = Date.now();
  await sleep(IDLE_MS, scope.signal);
  const idleTo = Date.now();
  const leader = await env.ensemble.leaderId();
  if (leader === null) throw new Error('no leader');
  const follower = env.ensemble.members.find((m) => m.id !== leader)!.id;
  const plainFollower = await plainRestart(scope, env, follower, 'follower', baselineWriters);
  const newLeader = await env.ensemble.leaderId();
  const plainLeader = await plainRestart(scope, env, newLeader ?? leader, 'leader', baselineWriters);
  const baseline = await stopWriters(baselineWriters);

  // Keeper's rolling restart.
  const upgradeWriters = await startWriters('upgrade');
  scope.log('rolling restart through Keeper');
  const id = await startUpgrade(scope, env);
  const done = await upgradeDone(scope, env, id);
  await sleep(1_000, scope.signal);
  const final = await stopWriters(upgradeWriters);
  const all = [...baseline, ...final];

  const missing = await missingWrites(env.ensemble.connectionString, all);
  const lost = [...missing.values()].reduce((n, l) => n + l.length, 0);
  const acked = all.reduce((n, r) => n + r.acks.length, 0);
  const expired = all.filter((r) => r.expired).map((r) => r.root);
  const idleGaps = baseline.map((r) =>
    typicalGap(
      r.acks.map((a) => a.at),
      idleFrom,
      idleTo,
    ),
  );
  const idleGap = Math.max(...idleGaps);

  const steps = done.steps.map((s) => ({
    label: `member ${s.memberId} (${s.role})`,
    role: s.role,
    gapMs: longestGapAcross(final, s.startedAt!, s.finishedAt!),
    stepMs: s.finishedAt! - s.startedAt!,
    restartMs: restarts.find((r) => r.id === s.memberId)?.tookMs ?? NaN,
  }));
  const rel = (at: number | null) => (at === null ? '-' : seconds(at - done.startedAt!));
  for (const s of done.steps)
    scope.log(
      `member ${s.memberId}: started ${rel(s.startedAt)}, restart asked ${rel(s.restartRequestedAt)}, down ${rel(s.phases.wentDown)}, back ${rel(s.phases.back)}, synced ${rel(s.phases.synced)}, finished ${rel(s.finishedAt)}`,
    );
  for (const r of final) {
    const gaps = r.acks
      .slice(1)
      .map((a, i) => ({ from: r.acks[i]!.at, ms: a.at - r.acks[i]!.at }))
      .filter((g) => g.ms > 300);
    scope.log(`${r.root} gaps over 300 ms: ${gaps.map((g) => `${g.ms} ms at ${rel(g.from)}`).join(', ')}`);
  }
  const totalMs = done.finishedAt! - done.startedAt!;
  const restartSumMs = steps.reduce((n, s) => n + s.restartMs, 0);
  const settleMs = done.timings.settleMs * steps.length;
  const pollMs = env.keeper.ensembles.get(ENSEMBLE).poller.current()?.pollIntervalMs ?? NaN;
  const overheadMs = totalMs - restartSumMs - settleMs;
  const worst = (role: string) => Math.max(0, ...steps.filter((s) => s.role === role).map((s) => s.gapMs));
  const followerRatio = worst('follower') / plainFollower.gapMs;
  const leaderRatio = worst('leader') / plainLeader.gapMs;
  const timeRatio = totalMs / restartSumMs;

  const notes: string[] = [];
  if (lost > 0) notes.push(`${lost} acknowledged write(s) missing: ${JSON.stringify([...missing])}`);
  if (expired.length > 0) notes.push(`session expired: ${expired.join(', ')}`);
  if (env.gateway.session.sessionId !== consoleSession) notes.push("the console's session changed during the run");
  if (done.sessionExpiries.count > 0) notes.push(`the leader counted ${done.sessionExpiries.count} session expiries during the upgrade`);
  const fails = all.reduce((n, r) => n + r.fails.length, 0);
  if (fails > 0) notes.push(`${fails} write(s) failed after their retry deadline (not acknowledged, not counted as lost)`);

  const rows: SummaryRow[] = [
    {
      measure: "Longest gap between a writer's acknowledged writes, worst follower step of Keeper's rolling restart vs a plain restart of a follower",
      keeper: ms(worst('follower')),
      baseline: ms(plainFollower.gapMs),
      ratio: followerRatio,
      target: '≈ 1',
      withinTarget: followerRatio <= 1.5,
    },
    {
      measure: "Longest gap between a writer's acknowledged writes, the leader's step vs a plain restart of the leader",
      keeper: ms(worst('leader')),
      baseline: ms(plainLeader.gapMs),
      ratio: leaderRatio,
      target: '≈ 1',
      withinTarget: leaderRatio <= 1.5,
    },
    {
      measure: `Rolling restart's total time vs the sum of the members' restart times (settle ${seconds(done.timings.settleMs)} per step included)`,
      keeper: `${seconds(totalMs)} (${seconds(settleMs)} of it settling)`,
      baseline: seconds(restartSumMs),
      ratio: timeRatio,
      target: `overhead beyond restarts and settling ≤ 2 polls per step (${seconds(2 * pollMs * steps.length)})`,
      withinTarget: overheadMs <= 2 * pollMs * steps.length,
    },
  ];

  return {
    bench: 'upgrades',
    title: `Upgrades: what ${WRITERS} kazoo writers feel of a rolling restart through Keeper, vs plain restarts`,
    lines: [
      `writers: ${WRITERS}, one starting on each member, session timeout ${seconds(WRITER_SESSION_TIMEOUT_MS)}, a create every ~20 ms; typical gap when idle ${ms(idleGap)}`,
      `baseline: plain sandbox restart of a follower: longest gap ${ms(plainFollower.gapMs)} (restart ${ms(plainFollower.tookMs)}); of the leader: longest gap ${ms(plainLeader.gapMs)} (restart ${ms(plainLeader.tookMs)})`,
      ...steps.map((s) => `step ${s.label}: longest gap ${ms(s.gapMs)}; restart ${ms(s.restartMs)}; whole step ${seconds(s.stepMs)}`),
      `total ${seconds(totalMs)} vs restarts ${seconds(restartSumMs)} (ratio ${timeRatio.toFixed(2)}): settle ${seconds(settleMs)}, the rest ${seconds(overheadMs)} ` +
        `(gates, seeing each member down, back and synced, polled every ${seconds(pollMs)})`,
      `acknowledged writes: ${acked}, missing after the run: ${lost}; sessions expired: ${expired.length}; failed writes: ${fails}; ` +
        `console session ${env.gateway.session.sessionId === consoleSession ? 'unchanged' : 'CHANGED'}; expiries the leader counted: ${done.sessionExpiries.count}`,
      ...final.map((r) => `${r.root}: members ${r.peers.map((p) => p.peer).join(' -> ')}`),
    ],
    rows,
    notes,
    zookeeperVersion: env.zookeeperVersion,
  };
});
