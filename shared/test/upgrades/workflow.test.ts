/** Whole workflows: a rolling restart to the end, refusals, pause/resume/abort, a full restart, and the state on disk. */
import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  manualInstruction,
  planUpgrade,
  stepsToRestart,
  upgradeWorkflowSchema,
  workflowEventError,
  workflowReducer,
  type EnsembleHealth,
  type UpgradeWorkflow,
  type WorkflowEvent,
} from '../../src/index.js';
import { ToyEnsemble } from './sim.js';
import { health, threeVoters } from './support.js';

const T = 1_700_000_000_000;

function planned(h: EnsembleHealth, mode: 'rolling' | 'full' = 'rolling'): UpgradeWorkflow {
  return createWorkflow({
    id: 'u1',
    plan: planUpgrade({ health: h, mode }),
    at: h.polledAt,
    by: 'alice',
    restartMethod: 'sandbox',
    timings: { settleMs: 4000 },
  });
}

/** Runs the workflow on the toy ensemble until it stops running; returns it with the restarts in order. */
function drive(wf: UpgradeWorkflow, sim: ToyEnsemble, opts: { pollsDown?: (id: number) => number; maxPolls?: number } = {}) {
  const restarts: number[] = [];
  let maxDown = 0;
  for (let i = 0; i < (opts.maxPolls ?? 200) && wf.state === 'running'; i++) {
    const h = sim.poll();
    wf = workflowReducer(wf, { type: 'poll', at: h.polledAt, health: h });
    for (const step of stepsToRestart(wf)) {
      // The safety rule, checked against what the poller saw: never restart unless every voter serves.
      expect(h.quorum.votersServing).toBe(h.quorum.voters);
      wf = workflowReducer(wf, { type: 'restartStarted', address: step.address, at: h.polledAt + 1, method: 'sandbox' });
      restarts.push(step.memberId!);
      sim.restart(step.memberId!, opts.pollsDown?.(step.memberId!) ?? 2);
    }
    maxDown = Math.max(maxDown, sim.downCount());
  }
  return { wf, restarts, maxDown };
}

const start = (wf: UpgradeWorkflow, h: EnsembleHealth, confirmation?: string): WorkflowEvent => ({
  type: 'start',
  at: h.polledAt,
  by: 'alice',
  health: h,
  confirmation,
});

describe('workflowReducer', () => {
  it('rolls a 3-voter ensemble: one member at a time, the leader last, every step done', () => {
    const sim = new ToyEnsemble(T);
    const first = sim.poll();
    let wf = planned(first);
    expect(wf.state).toBe('planned');
    wf = workflowReducer(wf, start(wf, first));
    expect(wf.state).toBe('running');
    expect(wf.preflight.every((c) => c.ok)).toBe(true);
    const { wf: end, restarts, maxDown } = drive(wf, sim);
    expect(end.state).toBe('done');
    expect(restarts).toEqual([2, 3, 1]);
    expect(maxDown).toBe(1);
    expect(end.steps.map((s) => s.state)).toEqual(['done', 'done', 'done']);
    // Each next step began only after the previous one settled.
    for (let i = 1; i < end.steps.length; i++) expect(end.steps[i]!.startedAt!).toBeGreaterThanOrEqual(end.steps[i - 1]!.finishedAt!);
    // The leader came back as a follower of the new leader, in a new epoch.
    expect(end.steps[2]!.checks.find((c) => c.id === 'back-serving')?.saw).toBe('serving again as follower');
  });

  it('refuses to start when the preflight fails, and says why', () => {
    const h = threeVoters(T, { 3: { state: 'down' }, 1: { syncedFollowers: 1 } });
    const wf = planned(h);
    const event = start(wf, h);
    expect(workflowEventError(wf, event)).toContain('The preflight did not pass: voters-serving: 2 of 3 voters serving: member 3 (zk3:2181) is down');
    expect(workflowReducer(wf, event)).toBe(wf);
  });

  it('under writes, the preflight compares followers with the leader one poll earlier', () => {
    const before = threeVoters(T, { 1: { zxid: '0x100000020' }, 2: { zxid: '0x10000001f' }, 3: { zxid: '0x100000020' } });
    const now = threeVoters(T + 2000, { 1: { zxid: '0x100000028' }, 2: { zxid: '0x100000021' }, 3: { zxid: '0x100000022' } });
    const fresh = planned(before);
    expect(workflowEventError(fresh, start(fresh, now))).toContain('member 2 is 7 transactions behind (0x100000021 against 0x100000028)');
    const watched = workflowReducer(fresh, { type: 'poll', at: T, health: before });
    expect(watched.previousLeaderZxid).toBe('0x100000020');
    expect(workflowEventError(watched, start(watched, now))).toBeNull();
    const running = workflowReducer(watched, start(watched, now));
    expect(running.steps[0]!.state).toBe('gatesChecked');
    // A member really behind (before the leader's previous zxid) still fails.
    const lagging = threeVoters(T + 2000, { 1: { zxid: '0x100000028' }, 2: { zxid: '0x100000010' } });
    expect(workflowEventError(watched, start(watched, lagging))).toContain('member 2 is 16 transactions behind (0x100000010 against 0x100000020)');
  });

  it('an ensemble that tolerates no failure is refused without the typed confirmation', () => {
    const pair = health(
      [
        { id: 1, state: 'leader', syncedFollowers: 1 },
        { id: 2, state: 'follower' },
      ],
      T,
      'pair',
    );
    const wf = planned(pair);
    expect(workflowEventError(wf, start(wf, pair))).toBe(
      '2 voters tolerate no failure: restarting any of them loses the quorum, so it cannot roll without an outage. Type "restart pair with an outage" to go on.',
    );
    expect(workflowReducer(wf, start(wf, pair, 'yes')).state).toBe('planned');
    const running = workflowReducer(wf, start(wf, pair, 'restart pair with an outage'));
    expect(running).toMatchObject({ state: 'running', confirmedBy: { by: 'alice', at: T } });
    expect(stepsToRestart(running).map((s) => s.memberId)).toEqual([2]);
  });

  it("records a wait for the previous Keeper process's lock on the step about to restart, and nothing else", () => {
    const sim = new ToyEnsemble(T);
    const h = sim.poll();
    let wf = workflowReducer(planned(h), start(planned(h), h));
    const wait = { type: 'lockWait', address: 'zk2:2181', at: T + 1, ok: false, saw: 'held by Keeper a:1 (upgrade u1): waiting up to 65 s' } as const;
    expect(workflowEventError(wf, wait)).toBeNull();
    wf = workflowReducer(wf, wait);
    expect(wf.steps[0]!.checks.at(-1)).toEqual({ id: 'upgrade-lock', ok: false, saw: wait.saw, at: T + 1 });
    expect(wf.steps[0]!.state).toBe('gatesChecked');
    wf = workflowReducer(wf, { ...wait, at: T + 20_000, ok: true, saw: 'taken after 19 s' });
    expect(wf.steps[0]!.checks.filter((c) => c.id === 'upgrade-lock').map((c) => c.ok)).toEqual([false, true]);
    // A step not about to restart records nothing.
    expect(workflowReducer(wf, { ...wait, address: 'zk3:2181' }).steps[1]).toEqual(wf.steps[1]);
    expect(upgradeWorkflowSchema.parse(wf)).toEqual(wf);
  });

  it('pause stops new restarts; resume lets them go on; abort ends it', () => {
    const sim = new ToyEnsemble(T);
    const h = sim.poll();
    let wf = workflowReducer(planned(h), start(planned(h), h));
    expect(stepsToRestart(wf)).toHaveLength(1);
    const restartTwo = { type: 'restartStarted', address: 'zk2:2181', at: T + 1, method: 'sandbox' } as const;
    expect(workflowEventError(wf, restartTwo)).toBeNull();
    expect(workflowEventError(wf, { ...restartTwo, address: 'zk3:2181' })).toBe(
      'zk3:2181 may not be restarted now (the upgrade is running; its step is pending)',
    );
    wf = workflowReducer(wf, { type: 'pause', at: T + 1, by: 'bob' });
    expect(workflowEventError(wf, restartTwo)).toBe('zk2:2181 may not be restarted now (the upgrade is paused; its step is gatesChecked)');
    expect(workflowReducer(wf, restartTwo).steps[0]!.state).toBe('gatesChecked');
    expect(wf).toMatchObject({ state: 'paused', reason: 'Paused by bob' });
    expect(stepsToRestart(wf)).toEqual([]);
    expect(workflowEventError(wf, { type: 'pause', at: T + 2, by: 'bob' })).toBe('Only a running upgrade can be paused (it is paused)');
    wf = workflowReducer(wf, { type: 'resume', at: T + 3, by: 'bob' });
    expect(wf.state).toBe('running');
    // Gates passed before the pause are stale: a fresh poll must pass them again.
    expect(wf.steps[0]!.state).toBe('pending');
    expect(stepsToRestart(wf)).toEqual([]);
    wf = workflowReducer(wf, { type: 'poll', at: sim.at, health: sim.poll() });
    expect(stepsToRestart(wf)).toHaveLength(1);
    wf = workflowReducer(wf, { type: 'abort', at: T + 4, by: 'carol', reason: 'wrong build' });
    expect(wf).toMatchObject({ state: 'aborted', reason: 'Aborted by carol: wrong build', finishedAt: T + 4 });
    expect(stepsToRestart(wf)).toEqual([]);
    expect(workflowEventError(wf, { type: 'resume', at: T + 5, by: 'bob' })).toBe('Only a paused upgrade can be resumed (it is aborted)');
  });

  it('a member that does not come back pauses the workflow with the reason, and nothing else is restarted', () => {
    const sim = new ToyEnsemble(T);
    const h = sim.poll();
    const wf = workflowReducer(planned(h), start(planned(h), h));
    const { wf: end, restarts } = drive(wf, sim, { pollsDown: () => Infinity });
    expect(restarts).toEqual([2]);
    expect(end.state).toBe('paused');
    expect(end.reason).toBe(
      'member 2 (zk2:2181) did not come back within 120 s: last seen down (connection refused). Nothing else is restarted until it serves.',
    );
    expect(end.steps.map((s) => s.state)).toEqual(['paused', 'pending', 'pending']);
    // Resuming does not restart the next member while member 2 is still down.
    const resumed = workflowReducer(end, { type: 'resume', at: sim.at, by: 'bob' });
    expect(resumed.steps[0]!.state).toBe('wentDown');
    expect(stepsToRestart(resumed)).toEqual([]);
  });

  it('a skipped member needs the phrase; then the next member goes', () => {
    const sim = new ToyEnsemble(T);
    const h = sim.poll();
    let wf = workflowReducer(planned(h), start(planned(h), h));
    const skip = { type: 'skip', address: 'zk2:2181', at: T + 1, by: 'bob', confirmation: 'skip 2' } as const;
    expect(workflowEventError(wf, skip)).toBe('To skip member 2 (zk2:2181), type "skip member 2"');
    wf = workflowReducer(wf, { ...skip, confirmation: 'skip member 2' });
    expect(wf.steps.map((s) => s.state)).toEqual(['skipped', 'pending', 'pending']);
    wf = workflowReducer(wf, { type: 'poll', at: sim.at, health: sim.poll() });
    expect(stepsToRestart(wf).map((s) => s.memberId)).toEqual([3]);
  });

  it('a full restart restarts every member together once all gates passed', () => {
    const sim = new ToyEnsemble(T);
    const h = sim.poll();
    const wf = planned(h, 'full');
    expect(workflowEventError(wf, start(wf, h))).toContain('Type "restart main with an outage"');
    let running = workflowReducer(wf, start(wf, h, 'restart main with an outage'));
    expect(stepsToRestart(running).map((s) => s.memberId)).toEqual([2, 3, 1]);
    running = workflowReducer(running, { type: 'restartStarted', address: 'zk2:2181', at: T + 1, method: 'sandbox' });
    // The others still go, although one is already restarting.
    expect(stepsToRestart(running).map((s) => s.memberId)).toEqual([3, 1]);
  });

  it('a full restart runs to the end: all down together, all back, done', () => {
    const sim = new ToyEnsemble(T);
    const h = sim.poll();
    const wf = workflowReducer(planned(h, 'full'), start(planned(h, 'full'), h, 'restart main with an outage'));
    const { wf: end, restarts, maxDown } = drive(wf, sim);
    expect(restarts).toEqual([2, 3, 1]);
    expect(maxDown).toBe(3);
    expect(end.state).toBe('done');
    expect(end.steps.every((s) => s.evidence === 'seen-down')).toBe(true);
  });

  it('survives the trip to disk: the state parses back equal', () => {
    const sim = new ToyEnsemble(T);
    const h = sim.poll();
    const { wf } = drive(workflowReducer(planned(h), start(planned(h), h)), sim, { maxPolls: 4 });
    const back = upgradeWorkflowSchema.parse(JSON.parse(JSON.stringify(wf)));
    expect(back).toEqual(wf);
    expect(upgradeWorkflowSchema.safeParse({ ...wf, schemaVersion: 2 }).success).toBe(false);
  });

  it('tells the manual operator exactly what to do', () => {
    const wf = planned(threeVoters(T));
    expect(manualInstruction(wf.steps[0]!)).toBe('Restart member 2, zk2:2181, now. Keeper notices the restart on its own; you can also mark this step done.');
  });
});
