/**
 * With several Keeper replicas (docs/operating/replicas.md), an upgrade is run by one of them; when that
 * replica's ZooKeeper session ends (it was killed, its host went away), another takes it over. The
 * hand-over goes into the workflow (`handovers`, `runBy`) and into the timeline of each step being
 * worked on, so every browser following the upgrade, on whichever replica, reads who took over,
 * when (ZooKeeper's time of the new owner's znode) and why.
 */
import { MAX_HANDOVERS, type Handover, type UpgradeReplica, type UpgradeWorkflow } from './schemas.js';
import { record } from './stepRecord.js';
import { currentSteps } from './workflowSteps.js';

const who = (r: UpgradeReplica): string => `replica ${r.name}`;

/** "replica b:8080 took over after replica a:8080's session ended". */
export function handoverSentence(h: Pick<Handover, 'from' | 'to'>): string {
  const before = h.from ? `${who(h.from)}'s session ended` : 'the session of the Keeper that ran it ended';
  return `${who(h.to)} took over after ${before}`;
}

/** The upgrade is now run by `to`: recorded in the workflow and on each current step's timeline. */
export function recordHandover(wf: UpgradeWorkflow, h: Handover): UpgradeWorkflow {
  const current = new Set(currentSteps(wf));
  const saw = `${handoverSentence(h)}; it goes on from what was stored, and runs no step again`;
  return {
    ...wf,
    runBy: { ...h.to, since: h.at },
    handovers: [...wf.handovers, h].slice(-MAX_HANDOVERS),
    steps: wf.steps.map((s) => (current.has(s) ? record(s, { id: 'handover', ok: true, saw, at: h.at }) : s)),
    updatedAt: Math.max(wf.updatedAt, h.at),
  };
}
