/**
 * "Done" means every member was checked at the end: restarted by this upgrade, serving in its
 * role, on the target when one was given. The steps alone cannot say it: a member done earlier
 * may have been brought back on the old build since (a launcher restarting it while Keeper was
 * down), and a skipped one was never restarted. So before an upgrade is called done, and on
 * every resume, each member is checked again against what the ensemble reports now.
 */
import type { EnsembleHealth } from '../ensemble/types.js';
import { isServing } from '../ensemble/quorum.js';
import { buildWords, offTargetWords, versionMatches } from './builds.js';
import { memberIn, memberName, notServingWords, servesInRightRole } from './members.js';
import type { MemberRecheck, PlannedRole, Recheck, UpgradeStep, UpgradeWorkflow } from './schemas.js';
import { TERMINAL_STEP_STATES } from './schemas.js';
import { record } from './stepRecord.js';

const ROLE_WORDS: Record<PlannedRole, string> = {
  observer: 'an observer',
  follower: 'a follower or the leader',
  leader: 'a follower or the leader',
  standalone: 'standalone',
};

export function recheckMember(step: UpgradeStep, health: EnsembleHealth, target: string | null): MemberRecheck {
  const name = memberName(step);
  const base = { memberId: step.memberId, address: step.address, step: step.state };
  const member = memberIn(health, step.address);
  if (!member) return { ...base, state: 'absent', version: null, ok: false, saw: `${name} (${step.address}) is no longer in the ensemble's configuration` };
  const version = member.metrics.version;
  const parts: string[] = [];
  if (step.state === 'skipped') parts.push('was skipped (not restarted by this upgrade)');
  const serving = isServing(member);
  const inRole = serving && servesInRightRole(step.role, member.state);
  const onTarget = target === null || (serving && versionMatches(version, target));
  if (!serving) parts.push(`is ${notServingWords(member)}, so its build is not known`);
  else {
    if (!inRole) parts.push(`serves as ${member.state}, not as ${ROLE_WORDS[step.role]}`);
    parts.push(target === null ? `runs ${buildWords(version)}` : onTarget ? `runs ${buildWords(version)}, the target` : offTargetWords(version, target));
  }
  const ok = step.state !== 'skipped' && serving && inRole && onTarget;
  return { ...base, state: member.state, version, ok, saw: `${name} ${parts.join('; it ')}` };
}

/** At the end every step counts; on a resume only the finished ones, which nothing will restart again. */
export function recheckMembers(wf: UpgradeWorkflow, health: EnsembleHealth, at: number, why: Recheck['why']): Recheck {
  const steps = why === 'end' ? wf.steps : wf.steps.filter((s) => TERMINAL_STEP_STATES.includes(s.state));
  return { at, why, members: steps.map((s) => recheckMember(s, health, wf.targetVersion)) };
}

/** Each step's timeline says what the re-check saw of its member. */
function recordOnSteps(wf: UpgradeWorkflow, recheck: Recheck): UpgradeWorkflow {
  const seen = new Map(recheck.members.map((m) => [m.address, m]));
  const when = recheck.why === 'end' ? 'at the end' : 'on resuming';
  return {
    ...wf,
    recheck,
    steps: wf.steps.map((s) => {
      const m = seen.get(s.address);
      return m ? record(s, { id: 'recheck', ok: m.ok, saw: `checked again ${when}: ${m.saw}`, at: recheck.at }) : s;
    }),
  };
}

/** The members that keep an upgrade from being simply done. */
export const exceptionsOf = (recheck: Recheck | null): MemberRecheck[] => recheck?.members.filter((m) => !m.ok) ?? [];

/** Every step ended: done when every member checks out, otherwise done with exceptions, each one named. */
export function finishWithRecheck(wf: UpgradeWorkflow, health: EnsembleHealth, at: number): UpgradeWorkflow {
  const checked = recordOnSteps(wf, recheckMembers(wf, health, at, 'end'));
  const exceptions = exceptionsOf(checked.recheck);
  if (exceptions.length === 0) return { ...checked, state: 'done', reason: null, finishedAt: at };
  return { ...checked, state: 'doneWithExceptions', reason: `${exceptions.map((m) => m.saw).join('; ')}.`, finishedAt: at };
}

/** On a resume: the finished steps' members, checked again; what is off target stays on their timelines and in `recheck`. */
export function recheckOnResume(wf: UpgradeWorkflow, health: EnsembleHealth, at: number): UpgradeWorkflow {
  const recheck = recheckMembers(wf, health, at, 'resume');
  return recheck.members.length === 0 ? { ...wf, recheck } : recordOnSteps(wf, recheck);
}

/**
 * Why a workflow cannot be resumed on this ensemble: its plan names other members. Its state is
 * keyed by the ensemble's identity, so this means the configuration changed (or the identity
 * marker was copied): Keeper would wait on, or restart, members that are not the plan's.
 */
export function membersMismatch(wf: UpgradeWorkflow, health: EnsembleHealth): string | null {
  const planned = wf.steps.map((s) => s.address).sort();
  const now = health.members.map((m) => m.address).sort();
  if (planned.length === now.length && planned.every((a, i) => a === now[i])) return null;
  const missing = planned.filter((a) => !now.includes(a));
  const added = now.filter((a) => !planned.includes(a));
  const parts = [
    missing.length > 0 ? `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in the ensemble now` : null,
    added.length > 0 ? `${added.join(', ')} ${added.length === 1 ? 'was' : 'were'} not in the plan` : null,
  ].filter((p) => p !== null);
  return `Keeper will not resume this upgrade: it was planned for ${planned.join(', ')}, but ${parts.join(', and ')}. Abort it and plan a new one for the members as they are.`;
}
