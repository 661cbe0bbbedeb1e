/**
 * After Keeper itself restarted mid-upgrade: decide, from what is observed now, where the step
 * it was on stands. Never re-run a step blindly: a restart that was asked for is never asked
 * again; it is either seen to have happened (the member is down, or serves with a new process),
 * or the operator is asked; a restart command that outlived the killed Keeper is waited for
 * until its deadline before anyone is asked (and a paused step keeps watching for the restart).
 * Deadlines start again from now: Keeper's own downtime is not the member's fault. A workflow
 * planned for other members is not resumed at all, and every finished step's member is checked
 * again against the target.
 */
import type { EnsembleHealth } from '../ensemble/types.js';
import { isServing } from '../ensemble/quorum.js';
import { memberIn, servesInRightRole } from './members.js';
import { detectRestart } from './restartEvidence.js';
import type { UpgradeStep, UpgradeWorkflow } from './schemas.js';
import { freshDeadline } from './stepActions.js';
import { membersMismatch, recheckOnResume } from './recheck.js';
import { pauseStep, record, stepTitle } from './stepRecord.js';
import { currentSteps } from './workflowSteps.js';

export type ResumeAction =
  /** The restart was never asked for: check the gates again before anything. */
  | 'recheck-gates'
  /** It is down (or not yet in its role): keep waiting for it to come back. */
  | 'keep-waiting'
  /** It serves again and shows it restarted: check its sync, then settle. */
  | 'continue-at-back'
  /** Nothing shows it happened yet, but the restart command may still be running: wait for it until its deadline. */
  | 'wait-for-command'
  /** Nothing shows the asked-for restart happened: paused, the operator decides. */
  | 'ask-operator'
  /** The step stays as it was (paused). */
  | 'none';

export interface ResumeDecision {
  address: string;
  memberId: number | null;
  action: ResumeAction;
  /** What it saw, as recorded in the step's `resume` check. */
  saw: string;
}

export interface ResumeOptions {
  /** Steps (by address) whose restart command's process the server found still running. */
  commandsRunning?: ReadonlySet<string>;
  /** What happened to the Keeper that ran it, starting each sentence ("Keeper restarted" unless told: "replica b:8080 took over"). */
  cause?: string;
}

/** Until when the restart command may still do its work: its own deadline, if it has not passed and its process may live. */
function commandStillDue(step: UpgradeStep, at: number, options: ResumeOptions): number | null {
  const deadline = step.command?.deadlineAt ?? null;
  if (step.restartMethod !== 'command' || deadline === null || at >= deadline) return null;
  // A recorded process that is gone has done what it would do; one never recorded (killed before it was) may still run.
  if (step.command?.process && !(options.commandsRunning?.has(step.address) ?? false)) return null;
  return deadline;
}

function decide(
  step: UpgradeStep,
  health: EnsembleHealth,
  at: number,
  fullUnderway: boolean,
  options: ResumeOptions,
): { step: UpgradeStep; action: ResumeAction; saw: string } {
  if (step.state === 'paused') return { step, action: 'none', saw: `it stays paused: ${step.reason ?? 'no reason recorded'}` };
  if (step.restartRequestedAt === null && fullUnderway && step.state === 'gatesChecked') {
    return { step, action: 'none', saw: 'a full restart is under way: it is restarted with the others' };
  }
  if (step.restartRequestedAt === null) {
    return { step: { ...step, state: 'pending' }, action: 'recheck-gates', saw: 'its restart was not asked for yet: the gates are checked again' };
  }
  const member = memberIn(health, step.address);
  if (!member || !isServing(member)) {
    const seen = member ? `${member.state}${member.detail ? ` (${member.detail})` : ''}` : 'not in the poll';
    return {
      step: {
        ...step,
        state: 'wentDown',
        evidence: step.evidence ?? (member ? 'seen-down' : null),
        phases: { ...step.phases, wentDown: step.phases.wentDown ?? at },
      },
      action: 'keep-waiting',
      saw: `it is ${seen}: waiting for it to come back`,
    };
  }
  const finding = step.baseline ? detectRestart(step.baseline, member) : null;
  const restarted = step.evidence !== null || finding !== null;
  if (restarted && servesInRightRole(step.role, member.state)) {
    const why = finding ? finding.saw : `the restart was seen before Keeper stopped (${step.evidence})`;
    return {
      step: { ...step, state: 'back', evidence: step.evidence ?? finding!.evidence, phases: { ...step.phases, back: at }, settleUntil: null },
      action: 'continue-at-back',
      saw: `it serves as ${member.state} and restarted (${why}): checking its sync`,
    };
  }
  if (restarted) {
    return { step: { ...step, state: 'wentDown' }, action: 'keep-waiting', saw: `it restarted but serves as ${member.state}: waiting for its role` };
  }
  const uptime = member.metrics.uptimeSeconds;
  const before = step.baseline?.uptimeSeconds ?? null;
  // A member just back may answer srvr before its AdminServer (which reports uptime) is up: this poll
  // cannot tell, a later one will. Keep watching (the step's deadline still pauses it if none does).
  if (uptime === null && before !== null) {
    return {
      step: { ...step },
      action: 'keep-waiting',
      saw: `it serves as ${member.state}, but this poll does not report its uptime: waiting for one that does`,
    };
  }
  const numbers = uptime === null ? 'its uptime is not reported' : `uptime ${uptime} s${before !== null ? `, it was ${before} s` : ''}`;
  const due = commandStillDue(step, at, options);
  if (due !== null) {
    const how = step.command?.process ? 'is still running' : 'may still be running (Keeper stopped before it recorded its process)';
    return {
      step: { ...step, state: 'restarting' },
      action: 'wait-for-command',
      saw: `the restart command the previous Keeper process started ${how}: it serves as ${member.state}, nothing shows a restart yet (${numbers}); waiting up to ${Math.ceil((due - at) / 1000)} s for the command before asking anyone`,
    };
  }
  const reason =
    `${options.cause ?? 'Keeper restarted'} after asking for the restart of ${stepTitle(step)}; it serves as ${member.state} and nothing shows it restarted (${numbers}). ` +
    'Restart it and mark the step done, or skip it.';
  return { step: pauseStep(step, at, reason, 'resume'), action: 'ask-operator', saw: reason };
}

export interface ResumeResult {
  workflow: UpgradeWorkflow;
  decisions: ResumeDecision[];
  /** Why it was not resumed at all (its plan names other members), or null. */
  refused: string | null;
}

export function resumeFrom(wf: UpgradeWorkflow, health: EnsembleHealth, at: number, options: ResumeOptions = {}): ResumeResult {
  if (wf.state !== 'running' && wf.state !== 'paused') return { workflow: wf, decisions: [], refused: null };
  const mismatch = membersMismatch(wf, health);
  if (mismatch !== null) return { workflow: { ...wf, state: 'paused', reason: mismatch, updatedAt: at }, decisions: [], refused: mismatch };
  const current = new Set(currentSteps(wf));
  const fullUnderway = wf.mode === 'full' && wf.steps.some((s) => s.restartRequestedAt !== null && s.state !== 'done' && s.state !== 'skipped');
  const decisions: ResumeDecision[] = [];
  const steps = wf.steps.map((step) => {
    if (!current.has(step)) return step;
    const { step: decided, action, saw } = decide(step, health, at, fullUnderway, options);
    decisions.push({ address: step.address, memberId: step.memberId, action, saw });
    // pauseStep already recorded the operator's question; a paused step only notes that Keeper came back.
    if (action === 'ask-operator') return decided;
    const cause = options.cause ?? 'Keeper restarted';
    if (action === 'none') return record(decided, { id: 'resume', ok: true, saw: `${cause}: ${saw}`, at });
    const fresh = freshDeadline(decided.state, at, wf.timings);
    const due = action === 'wait-for-command' ? (decided.command?.deadlineAt ?? null) : null;
    return {
      ...record(decided, { id: action === 'wait-for-command' ? 'restart-process' : 'resume', ok: true, saw: `${cause}: ${saw}`, at }),
      deadlineAt: fresh !== null && due !== null ? Math.max(fresh, due) : fresh,
    };
  });
  const paused = steps.find((s) => s.state === 'paused');
  const state = paused ? 'paused' : wf.state;
  const resumed = { ...wf, steps, state, reason: paused ? paused.reason : wf.reason, updatedAt: at };
  return { workflow: recheckOnResume(resumed, health, at), decisions, refused: null };
}
