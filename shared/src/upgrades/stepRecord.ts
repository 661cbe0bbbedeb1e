/** Helpers every step transition uses: a fresh step, the check log, pausing with a reason. */
import type { Check, PlannedMember, StepPhase, UpgradeStep } from './schemas.js';
import { memberName } from './members.js';

/** A step's log keeps flips, not every poll: a check repeating its outcome replaces its last entry. */
const MAX_CHECKS = 300;

export function newStep(member: PlannedMember): UpgradeStep {
  return {
    memberId: member.memberId,
    address: member.address,
    host: member.host,
    clientPort: member.clientPort,
    adminPort: member.adminPort,
    role: member.role,
    state: 'pending',
    pausedFrom: null,
    reason: null,
    startedAt: null,
    finishedAt: null,
    phases: { gatesChecked: null, restarting: null, wentDown: null, back: null, synced: null },
    deadlineAt: null,
    settleUntil: null,
    baseline: null,
    evidence: null,
    restartRequestedAt: null,
    restartMethod: null,
    command: null,
    checks: [],
  };
}

export function record(step: UpgradeStep, ...checks: Check[]): UpgradeStep {
  const out = [...step.checks];
  for (const check of checks) {
    let last = -1;
    for (let i = out.length - 1; i >= 0; i--) {
      if (out[i]!.id === check.id) {
        last = i;
        break;
      }
    }
    if (last >= 0 && out[last]!.ok === check.ok) out[last] = check;
    else out.push(check);
  }
  return { ...step, checks: out.length > MAX_CHECKS ? out.slice(out.length - MAX_CHECKS) : out };
}

/** The latest outcome of each check, in the order they were first made: what a timeout reports. */
export function latestChecks(step: UpgradeStep): Check[] {
  const byId = new Map<Check['id'], Check>();
  for (const check of step.checks) byId.set(check.id, check);
  return [...byId.values()];
}

/** The phase a step is in, for pausing (terminal and paused steps have none). */
export function phaseOf(step: UpgradeStep): StepPhase | null {
  switch (step.state) {
    case 'pending':
    case 'gatesChecked':
    case 'restarting':
    case 'wentDown':
    case 'back':
    case 'settling':
      return step.state;
    case 'paused':
      return step.pausedFrom;
    case 'done':
    case 'failed':
    case 'skipped':
      return null;
    default: {
      const never: never = step.state;
      throw new Error(`unhandled step state ${String(never)}`);
    }
  }
}

export function pauseStep(step: UpgradeStep, at: number, reason: string, checkId: Check['id'] = 'timeout'): UpgradeStep {
  const from = phaseOf(step);
  if (from === null || step.state === 'paused') return step;
  return { ...record(step, { id: checkId, ok: false, saw: reason, at }), state: 'paused', pausedFrom: from, reason, deadlineAt: null };
}

export const stepName = (step: Pick<UpgradeStep, 'memberId' | 'address'>): string => memberName(step);

/** "member 2 (zk2:2181)". */
export const stepTitle = (step: Pick<UpgradeStep, 'memberId' | 'address'>): string =>
  step.memberId === null ? step.address : `${memberName(step)} (${step.address})`;
