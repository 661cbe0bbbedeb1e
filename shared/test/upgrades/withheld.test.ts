/**
 * What non-admins read of an upgrade (issue 25, item 4): the restart's outcome and exit code,
 * never the command line, its output or its process, including texts an older Keeper wrote with
 * them inside.
 */
import { describe, expect, it } from 'vitest';
import { createWorkflow, planUpgrade, upgradeWorkflowSchema, withheldCommands, workflowReducer, type UpgradeWorkflow } from '../../src/index.js';
import { threeVoters } from './support.js';

const T = 1_700_000_000_000;
const LINE = 'DEPLOY_TOKEN=s3cr3t-token /opt/restart.sh 2';
const OUTPUT = 'using s3cr3t-token\nrestart failed: s3cr3t-output\n';

function failedCommand(): UpgradeWorkflow {
  const h = threeVoters(T);
  let wf = createWorkflow({ id: 'u1', plan: planUpgrade({ health: h }), at: T, restartMethod: 'command' });
  wf = workflowReducer(wf, { type: 'start', at: T, by: 'alice', health: h });
  wf = workflowReducer(wf, { type: 'restartStarted', address: 'zk2:2181', at: T + 1, method: 'command', commandLine: LINE, commandDeadlineAt: T + 120_001 });
  wf = workflowReducer(wf, { type: 'restartProcess', address: 'zk2:2181', at: T + 2, process: { pid: 77, startTicks: 1, bootId: 'x' } });
  return workflowReducer(wf, { type: 'restartResult', address: 'zk2:2181', at: T + 3, exitCode: 3, outputTail: OUTPUT });
}

describe('withheldCommands', () => {
  it('keeps the exit code and the outcome; drops the line, the output and the process', () => {
    const wf = failedCommand();
    expect(wf.state).toBe('paused');
    expect(JSON.stringify(wf)).toContain('s3cr3t');
    const seen = withheldCommands(wf);
    expect(JSON.stringify(seen)).not.toContain('s3cr3t');
    expect(JSON.stringify(seen)).not.toContain('/opt/restart.sh');
    expect(seen.steps[0]!.command).toEqual({ line: null, exitCode: 3, outputTail: '', deadlineAt: T + 120_001, process: null, withheld: true });
    expect(seen.reason).toBe('The restart of member 2 (zk2:2181) failed: the restart exited 3');
    expect(seen.steps[0]!.checks.filter((c) => c.id === 'restart-command').map((c) => [c.ok, c.saw])).toEqual([
      [true, 'ran the restartCommand'],
      [false, 'The restart of member 2 (zk2:2181) failed: the restart exited 3'],
    ]);
    // Still a valid answer for the schema the browser parses with.
    expect(upgradeWorkflowSchema.parse(seen)).toEqual(seen);
  });

  it('cuts what an older Keeper wrote: the line after "ran the restartCommand", the output after the exit', () => {
    const wf = failedCommand();
    const older: UpgradeWorkflow = {
      ...wf,
      reason: `The restart of member 2 (zk2:2181) failed: the restart exited 3: restart failed: s3cr3t-output`,
      steps: wf.steps.map((s, i) =>
        i === 0
          ? {
              ...s,
              reason: `The restart of member 2 (zk2:2181) failed: the restart did not finish before its deadline: s3cr3t-output`,
              checks: s.checks.map((c) => (c.id === 'restart-command' && c.ok ? { ...c, saw: `ran the restartCommand: ${LINE}` } : c)),
            }
          : s,
      ),
    };
    const seen = withheldCommands(older);
    expect(JSON.stringify(seen)).not.toContain('s3cr3t');
    expect(seen.reason).toBe('The restart of member 2 (zk2:2181) failed: the restart exited 3');
    expect(seen.steps[0]!.reason).toBe('The restart of member 2 (zk2:2181) failed: the restart did not finish before its deadline');
    expect(seen.steps[0]!.checks.find((c) => c.id === 'restart-command')!.saw).toBe('ran the restartCommand: (the restart command)');
  });

  it("leaves the sandbox's own words alone", () => {
    const h = threeVoters(T);
    let wf = createWorkflow({ id: 'u1', plan: planUpgrade({ health: h }), at: T, restartMethod: 'sandbox' });
    wf = workflowReducer(wf, { type: 'start', at: T, by: 'alice', health: h });
    wf = workflowReducer(wf, { type: 'restartStarted', address: 'zk2:2181', at: T + 1, method: 'sandbox' });
    wf = workflowReducer(wf, { type: 'restartResult', address: 'zk2:2181', at: T + 3, exitCode: 1, outputTail: 'member 2 did not start: port in use' });
    expect(withheldCommands(wf).reason).toBe('The restart of member 2 (zk2:2181) failed: the restart exited 1: member 2 did not start: port in use');
    expect(withheldCommands(wf).steps[0]!.command).toMatchObject({ withheld: false, outputTail: 'member 2 did not start: port in use' });
  });
});
