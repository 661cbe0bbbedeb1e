/**
 * What the progress bar and its headline say: the fraction done, the time so far, an estimate
 * from the steps already finished, and "Restarting member 2 (next: 3, then the leader, 1)".
 */
import { formatDuration } from '../ensemble/sessions/flags.js';
import { listWords, memberLabel, memberName, memberShortLabel, plural } from './members.js';
import { exceptionsOf } from './recheck.js';
import type { StepState, UpgradeProgress, UpgradeStep, UpgradeWorkflow } from './schemas.js';
import { currentSteps } from './workflowSteps.js';

/** How far into its step each phase is, for the bar (the restart and the wait for it dominate). */
const PHASE_WEIGHT: Record<StepState, number> = {
  pending: 0,
  gatesChecked: 0.1,
  restarting: 0.2,
  wentDown: 0.4,
  back: 0.6,
  settling: 0.8,
  paused: 0,
  done: 1,
  failed: 1,
  skipped: 1,
};

const finished = (s: UpgradeStep) => s.state === 'done' || s.state === 'skipped' || s.state === 'failed';

function weight(step: UpgradeStep): number {
  if (step.state === 'paused') return step.pausedFrom ? PHASE_WEIGHT[step.pausedFrom] : 0;
  return PHASE_WEIGHT[step.state];
}

/** "3, then the leader, 1"; "the leader, 1"; "3, 4, then the leader, 1". */
export function nextList(steps: readonly UpgradeStep[]): string {
  const names = steps.map((s) => memberShortLabel(s));
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')}, then ${names[names.length - 1]}`;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function progressSentence(wf: UpgradeWorkflow): string {
  const current = currentSteps(wf);
  const first = current[0];
  switch (wf.state) {
    case 'planned':
      return `Planned. ${wf.plan.sentence}`;
    case 'done':
    case 'doneWithExceptions': {
      const restarted = wf.steps.filter((s) => s.state === 'done').length;
      const skipped = wf.steps.length - restarted;
      const took = wf.startedAt !== null && wf.finishedAt !== null ? ` in ${formatDuration(wf.finishedAt - wf.startedAt)}` : '';
      const counts = `${plural(restarted, 'member')} restarted${took}${skipped > 0 ? `, ${skipped} skipped` : ''}`;
      if (wf.state === 'done') return `Done: ${counts}; each checked at the end, ${wf.targetVersion ? 'on the target and ' : ''}serving in its role.`;
      // Each member with its build is in `recheck` and the reason; the headline names them.
      const names = exceptionsOf(wf.recheck).map((m) => memberName(m));
      return `Done with exceptions: ${counts}; not as planned: ${names.length > 0 ? listWords(names) : 'see the reason'}.`;
    }
    case 'failed':
    case 'aborted':
      return `${wf.state === 'failed' ? 'Failed' : 'Aborted'}${first ? ` at ${memberLabel(first)}` : ''}: ${wf.reason ?? 'no reason recorded'}.`;
    case 'paused':
      return `Paused${first ? ` at ${memberLabel(first)}` : ''}: ${wf.reason ?? 'no reason recorded'}`;
    case 'running': {
      if (!first) return `Checking every member${wf.targetVersion ? "'s version and role" : "'s role"} before calling it done.`;
      if (wf.mode === 'full') {
        const back = current.filter((s) => s.phases.back !== null).length;
        return `Restarting all ${plural(wf.steps.length, 'member')} at once (${back} of ${current.length} back so far)`;
      }
      const verb = first.state === 'pending' || first.state === 'gatesChecked' ? 'Checking the gates before restarting' : 'Restarting';
      const later = wf.steps.slice(wf.steps.indexOf(first) + 1).filter((s) => !finished(s));
      return `${verb} ${memberLabel(first)}${later.length > 0 ? ` (next: ${nextList(later)})` : ''}`;
    }
    default: {
      const never: never = wf.state;
      throw new Error(`unhandled state ${String(never)}`);
    }
  }
}

export function upgradeProgress(wf: UpgradeWorkflow, now: number): UpgradeProgress {
  const total = wf.steps.length;
  const done = wf.steps.filter(finished).length;
  const partial = wf.steps.filter((s) => !finished(s)).reduce((sum, s) => sum + weight(s), 0);
  const end = wf.finishedAt ?? now;
  const elapsedMs = wf.startedAt === null ? 0 : Math.max(0, end - wf.startedAt);
  // Skipped steps took no restart: only steps that were carried out say how long one takes.
  const timed = wf.steps.filter((s) => s.state === 'done' && s.startedAt !== null && s.finishedAt !== null);
  let remainingMs: number | null = null;
  if (wf.finishedAt !== null) remainingMs = 0;
  else if (timed.length > 0) {
    const average = timed.reduce((sum, s) => sum + (s.finishedAt! - s.startedAt!), 0) / timed.length;
    const open = wf.steps.filter((s) => !finished(s));
    const perStep = open.map((s) => Math.max(0, average - (s.startedAt === null ? 0 : now - s.startedAt)));
    // A full restart runs its steps together: the longest one left is what remains.
    remainingMs = wf.mode === 'full' ? Math.max(0, ...perStep) : perStep.reduce((a, b) => a + b, 0);
  }
  return {
    fraction: total === 0 ? 1 : Math.min(1, (done + partial) / total),
    finishedSteps: done,
    totalSteps: total,
    elapsedMs,
    remainingMs,
    sentence: capitalize(progressSentence(wf)),
  };
}
