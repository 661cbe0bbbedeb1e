/**
 * Keeper killed mid-upgrade and started again: the state comes back from disk (JSON), and the
 * step it was on is judged from what is observed, never re-run blindly.
 */
import { describe, expect, it } from 'vitest';
import { createWorkflow, planUpgrade, resumeFrom, stepsToRestart, upgradeWorkflowSchema, workflowReducer, type UpgradeWorkflow } from '../../src/index.js';
import { NEW, OLD, threeVoters } from './support.js';

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
    expect(resumeFrom(planned, threeVoters(LATER), LATER)).toEqual({ workflow: planned, decisions: [], refused: null });
  });
});

describe('resumeFrom: a restart command that outlived the killed Keeper', () => {
  const DEADLINE = T + 1000 + 120_000;
  /** Member 2's restart asked for at T + 1000 by a command due to end by DEADLINE; its process recorded when `pid`. */
  function withCommand(pid: boolean): UpgradeWorkflow {
    const h = threeVoters(T);
    let wf = createWorkflow({ id: 'u1', plan: planUpgrade({ health: h }), at: T, restartMethod: 'command' });
    wf = workflowReducer(wf, { type: 'start', at: T, by: 'alice', health: h });
    wf = workflowReducer(wf, {
      type: 'restartStarted',
      address: 'zk2:2181',
      at: T + 1000,
      method: 'command',
      commandLine: 'restart 2',
      commandDeadlineAt: DEADLINE,
    });
    if (pid) wf = workflowReducer(wf, { type: 'restartProcess', address: 'zk2:2181', at: T + 1001, process: { pid: 4242, startTicks: 99, bootId: 'b' } });
    return upgradeWorkflowSchema.parse(JSON.parse(JSON.stringify(wf)));
  }
  const soon = T + 5000;
  const notYet = threeVoters(soon, { 2: { uptimeSeconds: 3604 } });

  it('the process recorded on disk', () => {
    expect(withCommand(true).steps[0]!.command).toMatchObject({ deadlineAt: DEADLINE, process: { pid: 4242, startTicks: 99, bootId: 'b' } });
  });

  it('still running: Keeper waits for it until its deadline instead of asking anyone, and goes on when the restart shows', () => {
    const { workflow, decisions } = resumeFrom(withCommand(true), notYet, soon, { commandsRunning: new Set(['zk2:2181']) });
    expect(decisions[0]).toMatchObject({ action: 'wait-for-command' });
    expect(decisions[0]!.saw).toBe(
      'the restart command the previous Keeper process started is still running: it serves as follower, nothing shows a restart yet (uptime 3604 s, it was 3600 s); waiting up to 116 s for the command before asking anyone',
    );
    expect(workflow.state).toBe('running');
    expect(workflow.steps[0]).toMatchObject({ state: 'restarting', deadlineAt: DEADLINE });
    expect(workflow.steps[0]!.checks.at(-1)).toMatchObject({ id: 'restart-process', ok: true });
    // The command bounces the member 10 s later: seen by its uptime.
    const next = workflowReducer(workflow, { type: 'poll', at: soon + 10_000, health: threeVoters(soon + 10_000, { 2: { uptimeSeconds: 1 } }) });
    expect(next.steps[0]).toMatchObject({ state: 'settling', evidence: 'uptime-reset' });
    expect(next.state).toBe('running');
  });

  it('killed before its process was recorded: it may still run, so Keeper waits too', () => {
    const { decisions } = resumeFrom(withCommand(false), notYet, soon, { commandsRunning: new Set() });
    expect(decisions[0]!.action).toBe('wait-for-command');
    expect(decisions[0]!.saw).toContain('may still be running (Keeper stopped before it recorded its process)');
  });

  it('its process gone, or its deadline passed: the operator is asked, and the paused step still watches', () => {
    expect(resumeFrom(withCommand(true), notYet, soon, { commandsRunning: new Set() }).decisions[0]!.action).toBe('ask-operator');
    const late = threeVoters(DEADLINE + 1, { 2: { uptimeSeconds: 3600 + 130 } });
    const { workflow, decisions } = resumeFrom(withCommand(false), late, DEADLINE + 1);
    expect(decisions[0]!.action).toBe('ask-operator');
    expect(workflow.state).toBe('paused');
    // A restart that shows after all lifts the pause: the workflow runs on by itself.
    const seen = workflowReducer(workflow, {
      type: 'poll',
      at: DEADLINE + 3000,
      health: threeVoters(DEADLINE + 3000, { 2: { state: 'down' }, 1: { syncedFollowers: 1 } }),
    });
    expect(seen.steps[0]).toMatchObject({ state: 'wentDown', evidence: 'seen-down', reason: null });
    expect(seen).toMatchObject({ state: 'running', reason: null });
  });
});

describe('resumeFrom: the members and the finished steps', () => {
  it('refuses a workflow planned for other members, and says why', () => {
    const wf = onDisk(true);
    const other = { ...threeVoters(LATER), members: threeVoters(LATER).members.map((m) => (m.id === 3 ? { ...m, address: 'zk9:2181', host: 'zk9' } : m)) };
    const { workflow, decisions, refused } = resumeFrom(wf, other, LATER);
    expect(decisions).toEqual([]);
    expect(refused).toBe(
      'Keeper will not resume this upgrade: it was planned for zk1:2181, zk2:2181, zk3:2181, but zk3:2181 is not in the ensemble now, and zk9:2181 was not in the plan. Abort it and plan a new one for the members as they are.',
    );
    expect(workflow).toMatchObject({ state: 'paused', reason: refused });
    // Nothing about the steps changed: the right Keeper may still resume it.
    expect(workflow.steps).toEqual(wf.steps);
  });

  it("checks each finished step's member again: one back on the old build is named on its timeline", () => {
    const h = threeVoters(T);
    let wf = createWorkflow({ id: 'u1', plan: planUpgrade({ health: h, targetVersion: 'built on 2024-12-29' }), at: T, restartMethod: 'command' });
    wf = workflowReducer(wf, { type: 'start', at: T, by: 'alice', health: h });
    wf = workflowReducer(wf, { type: 'restartStarted', address: 'zk2:2181', at: T + 1000, method: 'command', commandLine: 'x' });
    wf = workflowReducer(wf, { type: 'poll', at: T + 4000, health: threeVoters(T + 4000, { 2: { uptimeSeconds: 1, version: NEW } }) });
    wf = workflowReducer(wf, { type: 'poll', at: T + 20_000, health: threeVoters(T + 20_000, { 2: { uptimeSeconds: 17, version: NEW } }) });
    expect(wf.steps[0]!.state).toBe('done');
    // Keeper is killed; member 2's launcher brings it back on the old build meanwhile.
    const { workflow } = resumeFrom(wf, threeVoters(LATER, { 2: { uptimeSeconds: 5 } }), LATER);
    expect(workflow.recheck).toMatchObject({ why: 'resume', at: LATER });
    expect(workflow.recheck!.members).toEqual([
      {
        memberId: 2,
        address: 'zk2:2181',
        step: 'done',
        state: 'follower',
        version: OLD,
        ok: false,
        saw: 'member 2 runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29',
      },
    ]);
    expect(workflow.steps[0]!.checks.at(-1)).toMatchObject({
      id: 'recheck',
      ok: false,
      saw: 'checked again on resuming: member 2 runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29',
    });
  });
});
