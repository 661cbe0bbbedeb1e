/**
 * Upgrade workflows at each stage for the component tests, made the way the server makes them:
 * the shared reducer driven by the toy 3-voter ensemble its own tests use (a restarted member is
 * down for a few polls and comes back with its uptime reset; the leader's restart elects member 3).
 * Nothing here is hand-written state, so the view is tested against what the server really sends.
 */
import {
  createWorkflow,
  manualInstruction,
  planUpgrade,
  stepsToRestart,
  skipPhrase,
  upgradeProgress,
  withheldCommands,
  workflowReducer,
  type RestartMethod,
  type UpgradeAnswer,
  type UpgradeMode,
  type UpgradeWorkflow,
} from '@keeper/shared';
import { ToyEnsemble } from '../../../../shared/test/upgrades/sim';

export const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
/** The toy ensemble's name (its health snapshots say "main"). */
export const ENSEMBLE = 'main';

export interface Run {
  wf: UpgradeWorkflow;
  sim: ToyEnsemble;
}

export function planned({
  mode = 'rolling',
  method = 'sandbox',
  targetVersion = null,
}: { mode?: UpgradeMode; method?: RestartMethod; targetVersion?: string | null } = {}): Run {
  const sim = new ToyEnsemble(T0);
  const h = sim.poll();
  const wf = createWorkflow({
    id: 'u1',
    plan: planUpgrade({ health: h, mode, targetVersion, note: 'raise maxClientCnxns to 120' }),
    at: h.polledAt,
    by: 'alice',
    restartMethod: method,
    timings: { settleMs: 4000, backWithinMs: 10_000 },
  });
  // The server runs the preflight when it plans; starting a copy records the same checks.
  return {
    wf: {
      ...wf,
      preflight: workflowReducer(wf, { type: 'start', at: h.polledAt, by: 'alice', health: h, confirmation: wf.plan.confirmation?.phrase ?? null }).preflight,
    },
    sim,
  };
}

export function started(run: Run): Run {
  const h = run.sim.poll();
  const wf = workflowReducer(run.wf, { type: 'start', at: h.polledAt, by: 'alice', health: h, confirmation: run.wf.plan.confirmation?.phrase ?? null });
  return { wf, sim: run.sim };
}

/**
 * Polls until `until` holds or the workflow stops running, restarting members as the server
 * would: the method's way, a command's output recorded, a manual restart left to the operator.
 */
export function driveUntil(run: Run, until: (wf: UpgradeWorkflow) => boolean, opts: { pollsDown?: (id: number) => number } = {}): Run {
  let { wf } = run;
  const { sim } = run;
  for (let i = 0; i < 200 && wf.state === 'running' && !until(wf); i++) {
    const h = sim.poll();
    wf = workflowReducer(wf, { type: 'poll', at: h.polledAt, health: h });
    for (const step of stepsToRestart(wf)) {
      const method = wf.restartMethod;
      const at = h.polledAt + 1;
      const commandLine = method === 'command' ? `ssh ${step.host} sudo systemctl restart zookeeper` : null;
      const instruction = method === 'manual' ? manualInstruction(step) : null;
      wf = workflowReducer(wf, { type: 'restartStarted', address: step.address, at, method, commandLine, instruction });
      if (method === 'manual') continue;
      if (method === 'command') {
        const outputTail = `Stopping zookeeper.service...\nStarted zookeeper.service - Apache ZooKeeper (member ${step.memberId}).`;
        wf = workflowReducer(wf, { type: 'restartResult', address: step.address, at: at + 800, exitCode: 0, outputTail });
      }
      sim.restart(step.memberId!, opts.pollsDown?.(step.memberId!) ?? 2);
    }
  }
  return { wf, sim };
}

/** As an admin's own request is answered: everything. */
export const answer = (wf: UpgradeWorkflow, now = wf.updatedAt): UpgradeAnswer => ({ ...wf, progress: upgradeProgress(wf, now) });
/** As the live topic (every browser) and a viewer's request get it: the restart commands withheld. */
export const shared = (wf: UpgradeWorkflow, now = wf.updatedAt): UpgradeAnswer => answer(withheldCommands(wf), now);

const stepOf = (wf: UpgradeWorkflow, id: number) => wf.steps.find((s) => s.memberId === id)!;

/** Member 2 (the first follower) restarting: "Restarting member 2 (next: 3, then the leader, 1)". */
export const restartingMember2 = (method: RestartMethod = 'sandbox') =>
  driveUntil(started(planned({ method })), (wf) => stepOf(wf, 2).restartRequestedAt !== null);

/** Member 2 done, member 3 restarting: the first timeline is whole. `fast`: member 2's restart is never seen down, only its uptime tells. */
export const member2Done = (method: RestartMethod = 'sandbox', { fast = false } = {}) =>
  driveUntil(
    started(planned({ method })),
    (wf) => stepOf(wf, 2).state === 'done' && stepOf(wf, 3).restartRequestedAt !== null,
    fast ? { pollsDown: (id) => (id === 2 ? 0 : 2) } : {},
  );

/** Member 2 went down and never came back: the workflow paused with the reason. */
export const pausedMember2 = () => driveUntil(started(planned()), () => false, { pollsDown: (id) => (id === 2 ? Infinity : 2) });

export const finished = () => driveUntil(started(planned()), () => false);

/** Member 3 skipped by its phrase after member 2 was done: the workflow ends done with exceptions. */
export function finishedWithSkip(): Run {
  const run = driveUntil(started(planned()), (wf) => stepOf(wf, 2).state === 'done');
  const at = run.wf.updatedAt + 1;
  const skipped = workflowReducer(run.wf, { type: 'skip', address: 'zk3:2181', at, by: 'alice', confirmation: skipPhrase(stepOf(run.wf, 3)) });
  return driveUntil({ wf: skipped, sim: run.sim }, () => false);
}

/** A target no member reaches (the toy ensemble never changes build): member 2 is back and synced on the old one, and the workflow pauses. */
export const wrongBuild = (method: RestartMethod = 'sandbox') => driveUntil(started(planned({ method, targetVersion: 'built on 2024-12-29' })), () => false);
