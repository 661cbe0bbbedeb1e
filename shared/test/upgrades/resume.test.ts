/**
 * Keeper killed mid-upgrade and started again: the state comes back from disk (JSON), and the
 * step it was on is judged from what is observed, never re-run blindly.
 */
import { describe, expect, it } from 'vitest';
import { createWorkflow, planUpgrade, resumeFrom, stepsToRestart, upgradeWorkflowSchema, workflowReducer, type UpgradeWorkflow } from '../../src/index.js';
import { threeVoters } from './support.js';

const T = 1_700_000_000_000;
const LATER = T + 600_000;

/** Running, member 2's gates passed (and its restart asked for, when `asked`), then written to disk and read back. */
function onDisk(asked: boolean): UpgradeWorkflow {
  const h = threeVoters(T);
  let wf = createWorkflow({ id: 'u1', plan: planUpgrade({ health: h }), at: T, restartMethod: 'command' });
  wf = workflowReducer(wf, { type: 'start', at: T, by: 'alice', health: h });
  if (asked) wf = workflowReducer(wf, { type: 'restartStarted', address: 'zk2:2181', at: T + 1000, method: 'command', commandLine: 'ssh zk2 restart' });
  return upgradeWorkflowSchema.parse(JSON.parse(JSON.stringify(wf)));
}

describe('resumeFrom', () => {
  it('restart not yet asked for: the gates are checked again', () => {
    const wf = onDisk(false);
    expect(wf.steps[0]!.state).toBe('gatesChecked');
    const { workflow, decisions } = resumeFrom(wf, threeVoters(LATER), LATER);
    expect(decisions).toEqual([
      { address: 'zk2:2181', memberId: 2, action: 'recheck-gates', saw: 'its restart was not asked for yet: the gates are checked again' },
    ]);
    expect(workflow.steps[0]).toMatchObject({ state: 'pending', deadlineAt: LATER + workflow.timings.gatesWithinMs });
    expect(stepsToRestart(workflow)).toEqual([]);
  });

  it('restart asked for and the member is down: keep waiting, with a fresh deadline', () => {
    const { workflow, decisions } = resumeFrom(onDisk(true), threeVoters(LATER, { 2: { state: 'down' }, 1: { syncedFollowers: 1 } }), LATER);
    expect(decisions[0]).toMatchObject({ action: 'keep-waiting', saw: 'it is down (connection refused): waiting for it to come back' });
    expect(workflow.steps[0]).toMatchObject({ state: 'wentDown', deadlineAt: LATER + workflow.timings.backWithinMs });
    expect(workflow.state).toBe('running');
    expect(stepsToRestart(workflow)).toEqual([]);
  });

  it('restart asked for and the member serves with a lower uptime: it restarted, so continue at back', () => {
    const h = threeVoters(LATER, { 2: { uptimeSeconds: 30 } });
    const { workflow, decisions } = resumeFrom(onDisk(true), h, LATER);
    expect(decisions[0]!.action).toBe('continue-at-back');
    expect(decisions[0]!.saw).toContain('uptime went back to 30 s (it was 3600 s');
    expect(workflow.steps[0]).toMatchObject({ state: 'back', evidence: 'uptime-reset' });
    const next = workflowReducer(workflow, { type: 'poll', at: LATER + 2000, health: threeVoters(LATER + 2000, { 2: { uptimeSeconds: 32 } }) });
    expect(next.steps[0]!.state).toBe('settling');
  });

  it('restart asked for but nothing shows it happened: the operator is asked, the workflow pauses', () => {
    const h = threeVoters(LATER, { 2: { uptimeSeconds: 3600 + 600 } });
    const { workflow, decisions } = resumeFrom(onDisk(true), h, LATER);
    expect(decisions[0]!.action).toBe('ask-operator');
    expect(workflow.state).toBe('paused');
    expect(workflow.reason).toBe(
      'Keeper restarted after asking for the restart of member 2 (zk2:2181); it serves as follower and nothing shows it restarted (uptime 4200 s, it was 3600 s). Restart it and mark the step done, or skip it.',
    );
    expect(workflow.steps[0]).toMatchObject({ state: 'paused', pausedFrom: 'restarting' });
    expect(stepsToRestart(workflow)).toEqual([]);
    // The operator restarts it by hand and says so: Keeper then checks it back and synced.
    const marked = workflowReducer(workflow, { type: 'markDone', address: 'zk2:2181', at: LATER + 1, by: 'bob' });
    expect(marked.steps[0]!.state).toBe('wentDown');
  });

  it('a step that was settling before the crash is checked for sync again, not trusted', () => {
    const wf = onDisk(true);
    let settling = workflowReducer(wf, { type: 'poll', at: T + 4000, health: threeVoters(T + 4000, { 2: { uptimeSeconds: 1 } }) });
    expect(settling.steps[0]!.state).toBe('settling');
    settling = upgradeWorkflowSchema.parse(JSON.parse(JSON.stringify(settling)));
    const { workflow, decisions } = resumeFrom(settling, threeVoters(LATER, { 2: { uptimeSeconds: 600 } }), LATER);
    expect(decisions[0]!.action).toBe('continue-at-back');
    expect(workflow.steps[0]).toMatchObject({ state: 'back', settleUntil: null });
  });

  it('a paused step stays paused; a planned or finished workflow is left alone', () => {
    const wf = workflowReducer(onDisk(true), { type: 'tick', at: T + 1000 + 90_000 });
    expect(wf.state).toBe('paused');
    const { workflow, decisions } = resumeFrom(wf, threeVoters(LATER), LATER);
    expect(decisions[0]!.action).toBe('none');
    expect(workflow.state).toBe('paused');
    expect(workflow.steps[0]!.reason).toBe(wf.steps[0]!.reason);

    const planned = createWorkflow({ id: 'u2', plan: planUpgrade({ health: threeVoters(T) }), at: T, restartMethod: 'manual' });
    expect(resumeFrom(planned, threeVoters(LATER), LATER)).toEqual({ workflow: planned, decisions: [] });
  });
});
