/**
 * What the upgrade itself writes to the audit trail as it goes (operators' actions are audited by
 * the routes): each restart issued, each step finished, paused or failed, and the end.
 */
import type { AuditInput } from '../audit/auditLog.js';
import type { UpgradeWorkflow } from '@keeper/shared';

type Handover = UpgradeWorkflow['handovers'][number];

const KEEPER = { name: 'keeper', role: null, via: 'upgrade' } as const;
const WATCHED = new Set(['restarting', 'done', 'paused', 'failed', 'skipped']);

export function transitionEntries(prev: UpgradeWorkflow | null, next: UpgradeWorkflow): AuditInput[] {
  const entries: AuditInput[] = [];
  next.steps.forEach((step, i) => {
    const before = prev?.id === next.id ? prev.steps[i] : undefined;
    if (before?.state === step.state || !WATCHED.has(step.state) || step.state === 'skipped') return;
    const bad = step.state === 'paused' || step.state === 'failed';
    entries.push({
      action: 'upgrade.step',
      ensemble: next.ensemble,
      actor: KEEPER,
      outcome: bad ? 'failed' : 'ok',
      ...(bad && step.reason ? { error: { code: step.state === 'failed' ? 'UPGRADE_STEP_FAILED' : 'UPGRADE_STEP_PAUSED', message: step.reason } } : {}),
      details: {
        upgradeId: next.id,
        member: step.address,
        memberId: step.memberId,
        state: step.state,
        ...(step.evidence ? { evidence: step.evidence } : {}),
        ...(step.state === 'restarting' ? { method: step.restartMethod, command: step.command?.line ?? null } : {}),
      },
    });
  });
  const ended = next.state === 'done' || next.state === 'doneWithExceptions' || next.state === 'failed';
  const pausedItself = next.state === 'paused' && next.steps.some((s) => s.state === 'paused');
  if (prev?.state !== next.state && (ended || pausedItself) && prev !== null) {
    entries.push({
      action: 'upgrade.action',
      ensemble: next.ensemble,
      actor: KEEPER,
      // Done with exceptions ended as planned, but not everywhere: the note names each member and its build.
      outcome: next.state === 'failed' ? 'failed' : 'ok',
      ...(next.reason ? { note: next.reason } : {}),
      details: { upgradeId: next.id, state: next.state },
    });
  }
  return entries;
}

/**
 * A hand-over between replicas, in the trail as well as in the timeline: "replica b:8080 took over
 * upgrade <id> at 14:02:31 UTC after replica a:8080's session ended". Written by the replica that
 * took over (the shared window marks each entry with its replica); `at` is ZooKeeper's ctime of its
 * owner znode.
 */
export function handoverEntry(wf: UpgradeWorkflow, h: Handover): AuditInput {
  const at = new Date(h.at).toISOString().slice(11, 19);
  const before = h.from ? `replica ${h.from.name}'s session ended` : 'the session of the Keeper that ran it ended';
  return {
    action: 'upgrade.action',
    ensemble: wf.ensemble,
    actor: KEEPER,
    outcome: 'ok',
    note: `replica ${h.to.name} took over upgrade ${wf.id} at ${at} UTC after ${before}`,
    details: { upgradeId: wf.id, action: 'handover', state: wf.state, at: h.at, from: h.from?.name ?? null, to: h.to.name },
  };
}
