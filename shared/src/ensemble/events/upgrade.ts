/**
 * The upgrade's steps in the ensemble's timeline: started, each member restarting, done, paused,
 * failed or skipped, and the end. The upgrade runner's workflow is compared before and after each
 * change it commits; the time is the step's own record of it.
 */
import type { UpgradeWorkflow } from '../../upgrades/schemas.js';
import type { NewEnsembleEvent } from './schema.js';

const NARRATED = new Set(['restarting', 'done', 'paused', 'failed', 'skipped']);

export function upgradeEvents(prev: UpgradeWorkflow | null, next: UpgradeWorkflow, now: number): NewEnsembleEvent[] {
  const same = prev?.id === next.id ? prev : null;
  const events: NewEnsembleEvent[] = [];
  const what = next.mode === 'full' ? 'full restart' : next.targetVersion ? `upgrade to ${next.targetVersion}` : 'rolling restart';
  const base = { member: null, upgradeId: next.id } as const;
  if (next.state === 'running' && same?.state !== 'running' && same?.state !== 'paused') {
    events.push({ ...base, at: next.startedAt ?? now, kind: 'upgrade', text: `${what} started (${next.steps.length} members)`, severity: 'info' });
  }
  next.steps.forEach((step, i) => {
    const before = same?.steps[i];
    if (before?.state === step.state || !NARRATED.has(step.state)) return;
    const who = step.memberId === null ? step.address : `member ${step.memberId} (${step.address})`;
    // A pause has no time of its own on the step: it is seen now.
    const at = step.state === 'restarting' ? (step.phases.restarting ?? now) : step.state === 'paused' ? now : (step.finishedAt ?? now);
    const text =
      step.state === 'restarting'
        ? `${what}: restarting ${who}${step.restartMethod ? ` (${step.restartMethod})` : ''}`
        : step.state === 'done'
          ? `${what}: ${who} done`
          : `${what}: ${who} ${step.state}${step.reason ? `: ${step.reason}` : ''}`;
    const severity = step.state === 'paused' || step.state === 'failed' ? 'warning' : 'info';
    events.push({ ...base, at, kind: 'upgrade', text, severity, member: step.address });
  });
  const ended = ['done', 'failed', 'aborted'].includes(next.state);
  if (ended && same !== null && same.state !== next.state) {
    const at = next.finishedAt ?? now;
    // "Aborted by ann: the window closed" says the state itself: not "aborted: Aborted by ann".
    const reason = next.reason?.trim() ?? '';
    const saysState = reason.toLowerCase().startsWith(next.state);
    const text = saysState ? `${what} ${reason.charAt(0).toLowerCase()}${reason.slice(1)}` : `${what} ${next.state}${reason ? `: ${reason}` : ''}`;
    events.push({ ...base, at, kind: 'upgrade', text, severity: next.state === 'done' ? 'info' : 'warning' });
  }
  return events;
}
