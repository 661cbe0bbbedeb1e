/**
 * The whole upgrade as a pure reducer over its steps: start (after the preflight and any typed
 * confirmation), polls routed to the current step (every step at once in a full restart),
 * restart results, ticks and operator actions. The state is what the server writes to disk and
 * streams on the `upgrade` topic. Only `running` lets a new step begin or a restart be issued;
 * a paused workflow still watches the member already restarting, so its timeline stays true.
 */
import type { EnsembleHealth } from '../ensemble/types.js';
import { preflight } from './gates.js';
import { leaderOf } from './members.js';
import type { RestartMethod, UpgradePlan, UpgradeStep, UpgradeTimings, UpgradeWorkflow } from './schemas.js';
import { DEFAULT_TIMINGS, UPGRADE_SCHEMA_VERSION } from './schemas.js';
import { activateStep, isTerminal, stepReducer, type StepContext } from './step.js';
import { finishWithRecheck, recheckOnResume } from './recheck.js';
import { NO_EXPIRIES, trackExpiries } from './sessionExpiries.js';
import { newStep } from './stepRecord.js';
import { startGateContext, workflowEventError, type WorkflowEvent } from './workflowEvents.js';
import { currentSteps } from './workflowSteps.js';

export interface CreateWorkflowInput {
  id: string;
  plan: UpgradePlan;
  at: number;
  by?: string | null;
  restartMethod: RestartMethod;
  timings?: Partial<UpgradeTimings>;
}

export function createWorkflow(input: CreateWorkflowInput): UpgradeWorkflow {
  const { plan } = input;
  return {
    schemaVersion: UPGRADE_SCHEMA_VERSION,
    id: input.id,
    ensemble: plan.ensemble,
    mode: plan.mode,
    targetVersion: plan.targetVersion,
    note: plan.note,
    state: 'planned',
    reason: null,
    createdAt: input.at,
    createdBy: input.by ?? null,
    startedAt: null,
    finishedAt: null,
    restartMethod: input.restartMethod,
    timings: { ...DEFAULT_TIMINGS, ...input.timings },
    plan,
    preflight: [],
    confirmedBy: null,
    previousLeaderZxid: null,
    steps: plan.order.map(newStep),
    sessionExpiries: NO_EXPIRIES,
    keeperSession: null,
    recheck: null,
    runBy: null,
    handovers: [],
    updatedAt: input.at,
  };
}

const stepContext = (wf: UpgradeWorkflow): StepContext => ({
  timings: wf.timings,
  targetVersion: wf.targetVersion,
  referenceLeaderZxid: wf.previousLeaderZxid,
  outageConfirmed: wf.confirmedBy !== null,
  mode: wf.mode,
});

function mapSteps(wf: UpgradeWorkflow, which: (s: UpgradeStep) => boolean, f: (s: UpgradeStep) => UpgradeStep): UpgradeWorkflow {
  return { ...wf, steps: wf.steps.map((s) => (which(s) ? f(s) : s)) };
}

const pastRestart = (s: UpgradeStep) => s.restartRequestedAt !== null;

/**
 * After steps changed: finish, fail, or pause on a step's reason; then, while running, make the
 * next step current. Every step ended is not yet done: each member is checked again on a poll
 * (`health`), and until one comes the workflow runs on, saying it is checking.
 */
function settle(wf: UpgradeWorkflow, at: number, health?: EnsembleHealth): UpgradeWorkflow {
  const failed = wf.steps.find((s) => s.state === 'failed');
  if (failed) return { ...wf, state: 'failed', reason: failed.reason, finishedAt: at };
  if (wf.steps.every(isTerminal)) return health ? finishWithRecheck(wf, health, at) : { ...wf, state: 'running', reason: null };
  const paused = wf.steps.find((s) => s.state === 'paused');
  if (paused && wf.state === 'running') return { ...wf, state: 'paused', reason: paused.reason };
  if (wf.state !== 'running') return wf;
  const current = new Set(currentSteps(wf));
  return mapSteps(
    wf,
    (s) => current.has(s),
    (s) => activateStep(s, at, wf.timings),
  );
}

function onPoll(wf: UpgradeWorkflow, health: EnsembleHealth, at: number): UpgradeWorkflow {
  if (wf.state === 'planned') {
    // The preflight shown while planned, with the same fair zxid reference the steps use.
    const checks = preflight(health, { at, outageConfirmed: false, referenceLeaderZxid: wf.previousLeaderZxid });
    return { ...wf, preflight: checks, previousLeaderZxid: leaderOf(health)?.metrics.zxid ?? null };
  }
  if (wf.state !== 'running' && wf.state !== 'paused') return wf;
  let next = wf;
  // Paused by a step (not by an operator): it ends when that step goes on by itself (its restart seen after all).
  const pausedByStep = wf.state === 'paused' && wf.steps.some((s) => s.state === 'paused' && s.reason === wf.reason);
  // A step that finishes lets the next one start on the same poll: bounded by the number of steps.
  for (let round = 0; round <= wf.steps.length; round++) {
    const current = new Set(currentSteps(next));
    const observe = (s: UpgradeStep) => current.has(s) && (next.state === 'running' || pastRestart(s));
    const before = next.steps;
    let stepped = mapSteps(next, observe, (s) => stepReducer(s, { type: 'poll', at, health }, stepContext(next)));
    if (pausedByStep && stepped.state === 'paused' && !stepped.steps.some((s) => s.state === 'paused'))
      stepped = { ...stepped, state: 'running', reason: null };
    next = settle(stepped, at, health);
    if (next.state !== 'running' || next.steps.every((s, i) => s === before[i])) break;
  }
  const sessionExpiries = trackExpiries(next.sessionExpiries, health, next.startedAt ?? at);
  return { ...next, previousLeaderZxid: leaderOf(health)?.metrics.zxid ?? null, sessionExpiries };
}

function onStart(wf: UpgradeWorkflow, event: Extract<WorkflowEvent, { type: 'start' }>): UpgradeWorkflow {
  const outageConfirmed = wf.plan.confirmation !== null;
  const started: UpgradeWorkflow = {
    ...wf,
    state: 'running',
    startedAt: event.at,
    preflight: preflight(event.health, startGateContext(wf, event)),
    confirmedBy: outageConfirmed ? { by: event.by, at: event.at } : null,
    // The first gates run on this same poll: they get the reference the preflight used.
    previousLeaderZxid: startGateContext(wf, event).referenceLeaderZxid ?? leaderOf(event.health)?.metrics.zxid ?? null,
    sessionExpiries: trackExpiries(NO_EXPIRIES, event.health, event.at),
  };
  return onPoll(settle(started, event.at, event.health), event.health, event.at);
}

export function workflowReducer(wf: UpgradeWorkflow, event: WorkflowEvent): UpgradeWorkflow {
  if (workflowEventError(wf, event) !== null) return wf;
  const next = apply(wf, event);
  return next === wf ? wf : { ...next, updatedAt: event.at };
}

function apply(wf: UpgradeWorkflow, event: WorkflowEvent): UpgradeWorkflow {
  const ctx = stepContext(wf);
  switch (event.type) {
    case 'start':
      return onStart(wf, event);
    case 'poll':
      return onPoll(wf, event.health, event.at);
    case 'tick': {
      if (wf.state !== 'running' && wf.state !== 'paused') return wf;
      const current = new Set(currentSteps(wf));
      // Like a poll: while paused, only a member already restarting is still timed.
      const timed = (s: UpgradeStep) => current.has(s) && (wf.state === 'running' || pastRestart(s));
      return settle(
        mapSteps(wf, timed, (s) => stepReducer(s, event, ctx)),
        event.at,
      );
    }
    case 'restartStarted':
    case 'restartProcess':
    case 'lockWait':
    case 'restartResult':
      return settle(
        mapSteps(
          wf,
          (s) => s.address === event.address,
          (s) => stepReducer(s, event, ctx),
        ),
        event.at,
      );
    case 'pause':
      return { ...wf, state: 'paused', reason: event.reason ? `Paused by ${event.by}: ${event.reason}` : `Paused by ${event.by}` };
    case 'resume': {
      const unpaused = mapSteps(
        wf,
        (s) => s.state === 'paused',
        (s) => stepReducer(s, event, ctx),
      );
      // Gates that passed before the pause are stale: they must pass again on a poll after it
      // (unless a full restart is already under way: the others must follow, not wait on gates).
      const underway = unpaused.steps.some((s) => pastRestart(s) && !isTerminal(s));
      const resumed = mapSteps(
        unpaused,
        (s) => s.state === 'gatesChecked' && !(wf.mode === 'full' && underway),
        (s) => ({ ...s, state: 'pending', deadlineAt: event.at + wf.timings.gatesWithinMs }),
      );
      const rechecked = event.health ? recheckOnResume(resumed, event.health, event.at) : resumed;
      return settle({ ...rechecked, state: 'running', reason: null }, event.at, event.health ?? undefined);
    }
    case 'abort': {
      const reason = event.reason ? `Aborted by ${event.by}: ${event.reason}` : `Aborted by ${event.by}`;
      const stopped = mapSteps(
        wf,
        (s) => !isTerminal(s),
        (s) => ({ ...s, deadlineAt: null }),
      );
      return { ...stopped, state: 'aborted', reason, finishedAt: event.at };
    }
    case 'skip':
    case 'markDone': {
      const changed = mapSteps(
        wf,
        (s) => s.address === event.address,
        (s) => stepReducer(s, event, ctx),
      );
      // A skip that clears the step the workflow paused on lets it run again only by an explicit resume.
      return settle(changed, event.at);
    }
    case 'restartAgain': {
      const changed = mapSteps(
        wf,
        (s) => s.address === event.address,
        (s) => stepReducer(s, event, ctx),
      );
      // Asking for another restart is asking to go on: the workflow runs again unless another step still waits on someone.
      const stillPaused = changed.steps.some((s) => s.state === 'paused');
      return settle(stillPaused ? changed : { ...changed, state: 'running', reason: null }, event.at);
    }
    case 'previousKeeperSessionEnded':
      return { ...wf, sessionExpiries: { ...wf.sessionExpiries, keeper: wf.sessionExpiries.keeper + 1 } };
    default: {
      const never: never = event;
      throw new Error(`unhandled workflow event ${JSON.stringify(never)}`);
    }
  }
}
