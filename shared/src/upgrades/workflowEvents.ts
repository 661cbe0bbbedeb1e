/**
 * The events a workflow takes, and why one is refused: the server answers a refused request
 * with the sentence, and the reducer ignores a refused event, so both apply the same rule.
 */
import type { EnsembleHealth } from '../ensemble/types.js';
import { failedGatesSentence, gatesPass, preflight, type GateContext } from './gates.js';
import { confirmationMatches } from './plan.js';
import type { UpgradeWorkflow } from './schemas.js';
import type { StepEvent } from './step.js';
import { stepActionError, type OperatorAction } from './stepActions.js';
import { isFinished, stepsToRestart } from './workflowSteps.js';

type Addressed<E> = E & { address: string };

export type WorkflowEvent =
  | {
      type: 'start';
      at: number;
      by: string;
      health: EnsembleHealth;
      confirmation?: string | null;
      /** The leader's zxid one poll before `health` (see GateContext); defaults to the one the workflow last saw. */
      referenceLeaderZxid?: string | null;
    }
  | { type: 'poll'; at: number; health: EnsembleHealth }
  | { type: 'tick'; at: number }
  | Addressed<Extract<StepEvent, { type: 'restartStarted' | 'restartProcess' | 'restartResult' | 'lockWait' }>>
  | { type: 'pause'; at: number; by: string; reason?: string | null }
  /** `health`: the latest poll, for checking the finished steps' members again. */
  | { type: 'resume'; at: number; by: string; health?: EnsembleHealth | null }
  | { type: 'abort'; at: number; by: string; reason?: string | null }
  | Addressed<Extract<OperatorAction, { type: 'skip' | 'markDone' | 'restartAgain' }>>
  /** The session of a previous Keeper process that ran this upgrade ended (it was killed: its session expired on its own). */
  | { type: 'previousKeeperSessionEnded'; at: number; sessionId: string };

export function startGateContext(wf: UpgradeWorkflow, event: Extract<WorkflowEvent, { type: 'start' }>): GateContext {
  return { at: event.at, outageConfirmed: wf.plan.confirmation !== null, referenceLeaderZxid: event.referenceLeaderZxid ?? wf.previousLeaderZxid };
}

/** Why an event is refused, or null: the server answers with it, the reducer ignores refused events. */
export function workflowEventError(wf: UpgradeWorkflow, event: WorkflowEvent): string | null {
  const finished = isFinished(wf);
  switch (event.type) {
    case 'start': {
      if (wf.state !== 'planned') return `The upgrade is ${wf.state}, not planned`;
      if (!confirmationMatches(wf.plan.confirmation, event.confirmation)) {
        return `${wf.plan.confirmation!.why} Type "${wf.plan.confirmation!.phrase}" to go on.`;
      }
      const checks = preflight(event.health, startGateContext(wf, event));
      return gatesPass(checks) ? null : `The preflight did not pass: ${failedGatesSentence(checks)}`;
    }
    case 'poll':
    case 'tick':
    case 'restartProcess':
    case 'restartResult':
    case 'lockWait':
      return null;
    case 'previousKeeperSessionEnded':
      return wf.state === 'running' || wf.state === 'paused' ? null : `The upgrade is ${wf.state}`;
    case 'restartStarted':
      // The one door to a restart: the gates passed on the latest poll and the workflow runs.
      return stepsToRestart(wf).some((s) => s.address === event.address)
        ? null
        : `${event.address} may not be restarted now (the upgrade is ${wf.state}; its step is ${wf.steps.find((s) => s.address === event.address)?.state ?? 'missing'})`;
    case 'pause':
      return wf.state === 'running' ? null : `Only a running upgrade can be paused (it is ${wf.state})`;
    case 'resume':
      return wf.state === 'paused' ? null : `Only a paused upgrade can be resumed (it is ${wf.state})`;
    case 'abort':
      return finished ? `The upgrade is already ${wf.state}` : null;
    case 'skip':
    case 'markDone':
    case 'restartAgain': {
      if (finished || wf.state === 'planned') return `The upgrade is ${wf.state}`;
      const step = wf.steps.find((s) => s.address === event.address);
      if (!step) return `No step for ${event.address} in this upgrade`;
      return stepActionError(step, event);
    }
    default: {
      const never: never = event;
      throw new Error(`unhandled workflow event ${JSON.stringify(never)}`);
    }
  }
}
