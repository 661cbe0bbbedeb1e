/** Which steps are being worked on, which may be restarted now, and what a manual restart asks of the operator. */
import type { UpgradeStep, UpgradeWorkflow } from './schemas.js';
import { isTerminal } from './step.js';
import { stepName } from './stepRecord.js';

/** Ended, one way or another: nothing more happens to it. */
export const isFinished = (wf: Pick<UpgradeWorkflow, 'state'>): boolean =>
  wf.state === 'done' || wf.state === 'doneWithExceptions' || wf.state === 'failed' || wf.state === 'aborted';

/** The steps being worked on: the first unfinished one, or in a full restart every unfinished one. */
export function currentSteps(wf: UpgradeWorkflow): UpgradeStep[] {
  const open = wf.steps.filter((s) => !isTerminal(s));
  return wf.mode === 'full' ? open : open.slice(0, 1);
}

/** The steps the server should restart now: the workflow runs, their gates passed, their restart not yet asked. */
export function stepsToRestart(wf: UpgradeWorkflow): UpgradeStep[] {
  if (wf.state !== 'running') return [];
  const ready = currentSteps(wf).filter((s) => s.state === 'gatesChecked');
  // A full restart waits until every member passed its gates, then restarts them together.
  if (wf.mode === 'full' && currentSteps(wf).some((s) => s.state === 'pending')) return [];
  return ready;
}

/** "Restart member 2, zk2:2181, now: ..." for the manual method. */
export function manualInstruction(step: UpgradeStep): string {
  const who = step.memberId === null ? step.address : `${stepName(step)}, ${step.address},`;
  return `Restart ${who} now. Keeper notices the restart on its own; you can also mark this step done.`;
}
