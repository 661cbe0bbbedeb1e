/** The progress bar's fraction, elapsed time and estimate, and its headline sentence. */
import { describe, expect, it } from 'vitest';
import { createWorkflow, nextList, planUpgrade, upgradeProgress, workflowReducer, type UpgradeWorkflow } from '../../src/index.js';
import { health, threeVoters } from './support.js';

const T = 1_700_000_000_000;

function running(): UpgradeWorkflow {
  const h = threeVoters(T);
  const wf = createWorkflow({ id: 'u1', plan: planUpgrade({ health: h }), at: T, restartMethod: 'command' });
  return workflowReducer(wf, { type: 'start', at: T, by: 'alice', health: h });
}

describe('upgradeProgress', () => {
  it('says which member restarts and who comes next, the leader last', () => {
    let wf = running();
    expect(upgradeProgress(wf, T).sentence).toBe('Checking the gates before restarting member 2 (next: 3, then the leader, 1)');
    wf = workflowReducer(wf, { type: 'restartStarted', address: 'zk2:2181', at: T + 1000, method: 'command', commandLine: 'x' });
    expect(upgradeProgress(wf, T + 1000).sentence).toBe('Restarting member 2 (next: 3, then the leader, 1)');
  });

  it('estimates from the finished steps and counts the current phase in the fraction', () => {
    const wf = running();
    const [a, b, c] = wf.steps;
    const mid: UpgradeWorkflow = {
      ...wf,
      steps: [
        { ...a!, state: 'done', startedAt: T, finishedAt: T + 30_000 },
        { ...b!, state: 'restarting', startedAt: T + 30_000 },
        { ...c!, state: 'pending', startedAt: null },
      ],
    };
    const p = upgradeProgress(mid, T + 40_000);
    expect(p.finishedSteps).toBe(1);
    expect(p.totalSteps).toBe(3);
    expect(p.elapsedMs).toBe(40_000);
    // Member 3 has about 20 s left of an average 30 s step; the leader's 30 s follows.
    expect(p.remainingMs).toBe(50_000);
    expect(p.fraction).toBeCloseTo(1.2 / 3);
    expect(p.sentence).toBe('Restarting member 3 (next: the leader, 1)');
  });

  it('has no estimate before a step finished, and none left when done', () => {
    expect(upgradeProgress(running(), T + 5000).remainingMs).toBeNull();
    const wf = running();
    const done: UpgradeWorkflow = {
      ...wf,
      state: 'done',
      finishedAt: T + 125_000,
      steps: wf.steps.map((s) => ({ ...s, state: 'done', startedAt: T, finishedAt: T + 125_000 })),
    };
    const p = upgradeProgress(done, T + 200_000);
    expect(p).toMatchObject({ fraction: 1, remainingMs: 0, elapsedMs: 125_000 });
    expect(p.sentence).toBe('Done: 3 members restarted in 2 min; each checked at the end, serving in its role.');
    expect(upgradeProgress({ ...done, targetVersion: '3.9.3' }, T).sentence).toBe(
      'Done: 3 members restarted in 2 min; each checked at the end, on the target and serving in its role.',
    );
    const exceptions: UpgradeWorkflow = {
      ...done,
      state: 'doneWithExceptions',
      reason: 'member 3 was skipped (not restarted by this upgrade); it runs 3.8.0 built on 2023-10-30.',
      steps: done.steps.map((s, i) => (i === 1 ? { ...s, state: 'skipped' } : s)),
      recheck: {
        at: T,
        why: 'end',
        members: [
          { memberId: 3, address: 'zk3:2181', step: 'skipped', state: 'follower', version: null, ok: false, saw: 'member 3 was skipped' },
          { memberId: 1, address: 'zk1:2181', step: 'done', state: 'down', version: null, ok: false, saw: 'member 1 is down' },
        ],
      },
    };
    // The headline names them; each one's build is in the reason and the re-check.
    expect(upgradeProgress(exceptions, T).sentence).toBe(
      'Done with exceptions: 2 members restarted in 2 min, 1 skipped; not as planned: member 3 and member 1.',
    );
  });

  it('planned and paused say so', () => {
    const h = threeVoters(T);
    const wf = createWorkflow({ id: 'u1', plan: planUpgrade({ health: h }), at: T, restartMethod: 'manual' });
    expect(upgradeProgress(wf, T).sentence).toBe('Planned. Order: member 2, member 3, then the leader, member 1.');
    const paused = workflowReducer(running(), { type: 'pause', at: T + 1, by: 'bob' });
    expect(upgradeProgress(paused, T + 2).sentence).toBe('Paused at member 2: Paused by bob');
  });

  it('lists what comes next with observers named', () => {
    const h = health(
      [
        { id: 1, state: 'leader', syncedFollowers: 2 },
        { id: 2, state: 'follower' },
        { id: 3, state: 'follower' },
        { id: 4, state: 'observer', observer: true },
      ],
      T,
    );
    const wf = createWorkflow({ id: 'u1', plan: planUpgrade({ health: h }), at: T, restartMethod: 'manual' });
    expect(nextList(wf.steps)).toBe('observer 4, 2, 3, then the leader, 1');
  });
});
