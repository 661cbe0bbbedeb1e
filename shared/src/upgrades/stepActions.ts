/**
 * What an operator may do to a step: pause, resume, skip (with the typed phrase), mark a
 * requested restart as done, and restart it again (after a restart that did not bring what was
 * asked for: the wrong version, a failed command). `stepActionError` says why an action is refused, so the server can
 * answer it and the reducer can ignore it: the same rule in both places.
 */
import type { UpgradeStep, UpgradeTimings } from './schemas.js';
import { pauseStep, record, stepName, stepTitle } from './stepRecord.js';

export type OperatorAction =
  | { type: 'pause'; at: number; by: string; reason?: string | null }
  | { type: 'resume'; at: number; by: string }
  | { type: 'skip'; at: number; by: string; confirmation: string }
  /** The operator says the restart happened (manual restarts, or one done by hand after a failed command). */
  | { type: 'markDone'; at: number; by: string }
  /** The step starts over from its gates; the restart is asked for again once they pass. */
  | { type: 'restartAgain'; at: number; by: string };

/** Exactly what to type to skip this member: "skip member 2". */
export const skipPhrase = (step: Pick<UpgradeStep, 'memberId' | 'address'>): string => `skip ${stepName(step)}`;

const TERMINAL = new Set(['done', 'failed', 'skipped']);

export function stepActionError(step: UpgradeStep, action: OperatorAction): string | null {
  if (TERMINAL.has(step.state)) return `${stepTitle(step)} is already ${step.state}`;
  switch (action.type) {
    case 'pause':
      return step.state === 'paused' ? `${stepTitle(step)} is already paused` : null;
    case 'resume':
      return step.state === 'paused' ? null : `${stepTitle(step)} is not paused`;
    case 'skip':
      return action.confirmation.trim() === skipPhrase(step) ? null : `To skip ${stepTitle(step)}, type "${skipPhrase(step)}"`;
    case 'markDone': {
      const phase = step.state === 'paused' ? step.pausedFrom : step.state;
      return step.restartRequestedAt !== null && phase === 'restarting'
        ? null
        : `Only a step whose restart was asked for and not yet seen can be marked done (${stepTitle(step)} is ${step.state})`;
    }
    case 'restartAgain':
      return step.state === 'paused' && step.restartRequestedAt !== null
        ? null
        : `Only a paused step whose restart was already asked for can be restarted again (${stepTitle(step)} is ${step.state === 'paused' ? 'paused before its restart: resume it' : step.state})`;
    default: {
      const never: never = action;
      throw new Error(`unhandled action ${JSON.stringify(never)}`);
    }
  }
}

/** The deadline a phase gets when it is entered again (after a resume), from `at`. */
export function freshDeadline(phase: UpgradeStep['state'], at: number, timings: UpgradeTimings): number | null {
  switch (phase) {
    case 'pending':
      return at + timings.gatesWithinMs;
    case 'restarting':
      return at + timings.wentDownWithinMs;
    case 'wentDown':
      return at + timings.backWithinMs;
    case 'back':
      return at + timings.syncedWithinMs;
    default:
      return null;
  }
}

export function applyOperatorAction(step: UpgradeStep, action: OperatorAction, timings: UpgradeTimings): UpgradeStep {
  if (stepActionError(step, action) !== null) return step;
  const { at, by } = action;
  switch (action.type) {
    case 'pause':
      return pauseStep(step, at, action.reason ? `Paused by ${by}: ${action.reason}` : `Paused by ${by}`, 'operator');
    case 'resume': {
      // Time has passed while paused: gates not yet acted on are checked again from the start.
      const phase = step.pausedFrom === 'gatesChecked' || step.pausedFrom === null ? 'pending' : step.pausedFrom;
      const settleUntil = phase === 'settling' ? at + timings.settleMs : null;
      return {
        ...record(step, { id: 'operator', ok: true, saw: `resumed by ${by}`, at }),
        state: phase,
        pausedFrom: null,
        reason: null,
        deadlineAt: freshDeadline(phase, at, timings),
        settleUntil,
      };
    }
    case 'skip':
      return {
        ...record(step, { id: 'operator', ok: true, saw: `skipped by ${by}, who typed "${action.confirmation.trim()}"`, at }),
        state: 'skipped',
        pausedFrom: null,
        reason: `Skipped by ${by}`,
        deadlineAt: null,
        finishedAt: at,
      };
    case 'markDone':
      return {
        ...record(step, { id: 'went-down', ok: true, saw: `${by} marked the restart done`, at }),
        state: 'wentDown',
        pausedFrom: null,
        reason: null,
        evidence: step.evidence ?? 'operator-confirmed',
        phases: { ...step.phases, wentDown: step.phases.wentDown ?? at },
        deadlineAt: at + timings.backWithinMs,
      };
    case 'restartAgain':
      return {
        ...record(step, { id: 'operator', ok: true, saw: `${by} asked for another restart: the gates are checked first`, at }),
        state: 'pending',
        pausedFrom: null,
        reason: null,
        phases: { gatesChecked: null, restarting: null, wentDown: null, back: null, synced: null },
        deadlineAt: at + timings.gatesWithinMs,
        settleUntil: null,
        baseline: null,
        evidence: null,
        restartRequestedAt: null,
      };
    default: {
      const never: never = action;
      throw new Error(`unhandled action ${JSON.stringify(never)}`);
    }
  }
}
