/** The HTTP bodies and answers, the history line and the alert a stopped upgrade raises. */
import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  planUpgrade,
  summarizeUpgrade,
  upgradeAlert,
  upgradeAnswerSchema,
  upgradeCreateBodySchema,
  upgradeProgress,
  workflowReducer,
} from '../../src/index.js';
import { threeVoters } from './support.js';

const T = 1_700_000_000_000;

function running() {
  const h = threeVoters(T);
  const wf = createWorkflow({ id: 'u7', plan: planUpgrade({ health: h }), at: T, by: 'alice', restartMethod: 'sandbox' });
  return workflowReducer(wf, { type: 'start', at: T, by: 'alice', health: h });
}

describe('upgrade requests and answers', () => {
  it('the create body defaults to rolling and refuses unknown fields', () => {
    expect(upgradeCreateBodySchema.parse({})).toEqual({ mode: 'rolling' });
    expect(upgradeCreateBodySchema.parse({ mode: 'full', targetVersion: ' 3.8.0 ', start: true })).toEqual({
      mode: 'full',
      targetVersion: '3.8.0',
      start: true,
    });
    expect(upgradeCreateBodySchema.safeParse({ mode: 'rolling', force: true }).success).toBe(false);
    expect(upgradeCreateBodySchema.safeParse({ mode: 'fast' }).success).toBe(false);
  });

  it('the detail answer is the workflow plus its progress; the history line counts steps', () => {
    const wf = running();
    const answer = upgradeAnswerSchema.parse(JSON.parse(JSON.stringify({ ...wf, progress: upgradeProgress(wf, T + 1) })));
    expect(answer.steps.map((s) => s.memberId)).toEqual([2, 3, 1]);
    expect(answer.progress.sentence).toBe('Checking the gates before restarting member 2 (next: 3, then the leader, 1)');
    expect(summarizeUpgrade(wf)).toMatchObject({ id: 'u7', state: 'running', mode: 'rolling', steps: 3, stepsDone: 0, createdBy: 'alice' });
  });
});

describe('upgradeAlert', () => {
  it('none while running; info when the operator paused; critical when a step paused it', () => {
    const wf = running();
    expect(upgradeAlert(wf)).toBeNull();
    expect(upgradeAlert(workflowReducer(wf, { type: 'pause', at: T + 1, by: 'bob' }))).toMatchObject({ severity: 'info', why: 'Paused by bob', members: [] });
    let stuck = workflowReducer(wf, { type: 'restartStarted', address: 'zk2:2181', at: T + 1, method: 'sandbox' });
    stuck = workflowReducer(stuck, { type: 'tick', at: T + 1 + stuck.timings.wentDownWithinMs });
    const alert = upgradeAlert(stuck);
    expect(alert).toMatchObject({ id: 'upgrade:u7', severity: 'critical', members: ['zk2:2181'] });
    expect(alert?.why).toContain('member 2 (zk2:2181) did not go down or restart within 90 s');
    expect(alert?.action).toContain('skip it by typing "skip member 2"');
  });
});
