/**
 * A resize in the ensemble's timeline: started, each step verified (with the version it made),
 * paused, failed, aborted or done. The runner's workflow is compared before and after each change
 * it commits; a step's time is its own record of it. The configuration's own change is told apart
 * (configEvents), from /zookeeper/config, whoever made it.
 */
import type { ReconfigWorkflow } from '../../reconfig/workflow.js';
import type { DynamicConfig } from '../../reconfig/dynamicConfig.js';
import { ensembleSize } from '../../reconfig/plan.js';
import type { NewEnsembleEvent } from './schema.js';

export function reconfigEvents(prev: ReconfigWorkflow | null, next: ReconfigWorkflow, now: number): NewEnsembleEvent[] {
  const same = prev?.id === next.id ? prev : null;
  const events: NewEnsembleEvent[] = [];
  const base = { member: null, reconfigId: next.id } as const;
  if (next.state === 'running' && same?.state !== 'running' && same?.state !== 'paused') {
    events.push({
      ...base,
      at: now,
      kind: 'resize',
      text: `resize started: ${next.sizeSentence} (${next.steps.length} ${next.steps.length === 1 ? 'step' : 'steps'})`,
      severity: 'info',
    });
  }
  next.steps.forEach((step, i) => {
    const before = same?.steps[i];
    if (before?.state === step.state || step.state !== 'done') return;
    events.push({
      ...base,
      at: step.doneAt ?? now,
      kind: 'resize',
      text: `resize step ${step.index} of ${next.steps.length} verified: ${step.zkCli} (configuration version ${step.version})`,
      severity: 'info',
    });
  });
  if (same !== null && same.state !== next.state && (next.state === 'paused' || next.state === 'done' || next.state === 'failed' || next.state === 'aborted')) {
    const reason = next.reason ?? '';
    events.push({
      ...base,
      at: next.finishedAt ?? now,
      kind: 'resize',
      text: next.state === 'done' ? `resize done: ${next.sizeSentence}` : `resize ${next.state}${reason ? `: ${reason}` : ''}`,
      severity: next.state === 'done' ? 'info' : 'warning',
    });
  }
  return events;
}

const roleWord = (role: string) => (role === 'participant' ? 'a voter' : 'an observer');

/** host:port each member serves clients at (its client host, else its quorum host); null when one has no client port (a TLS-only line). */
export function clientAddresses(config: DynamicConfig): string[] | null {
  const out: string[] = [];
  for (const m of config.members) {
    if (m.clientPort === null) return null;
    const host = m.clientHost ?? m.host;
    out.push(`${host.includes(':') ? `[${host}]` : host}:${m.clientPort}`);
  }
  return out;
}

/** "configuration version 100000007: member 4 added as a voter; member 1 removed (3 voters tolerate 1 failure → 3 voters tolerate 1 failure)". */
export function configChangeSentence(prev: DynamicConfig, next: DynamicConfig): string {
  const before = new Map(prev.members.map((m) => [m.id, m]));
  const after = new Map(next.members.map((m) => [m.id, m]));
  const parts: string[] = [];
  for (const m of next.members) {
    const was = before.get(m.id);
    if (!was) parts.push(`member ${m.id} added as ${roleWord(m.role)}`);
    else if (was.role !== m.role) parts.push(`member ${m.id} now ${roleWord(m.role)}`);
    else if (was.value !== m.value) parts.push(`member ${m.id} now server.${m.id}=${m.value}`);
  }
  for (const m of prev.members) if (!after.has(m.id)) parts.push(`member ${m.id} removed`);
  const sizes = `${ensembleSize(prev.members).sentence} → ${ensembleSize(next.members).sentence}`;
  return `configuration version ${next.version}: ${parts.length > 0 ? parts.join('; ') : 'no member changed'} (${sizes})`;
}

/** The configuration's change as the timeline tells it (none for the first read, or the same version read again). */
export function configEvents(prev: DynamicConfig | null, next: DynamicConfig, now: number): NewEnsembleEvent[] {
  if (prev === null || next.version === null || prev.version === next.version) return [];
  return [{ at: now, kind: 'configuration', text: configChangeSentence(prev, next), severity: 'info', member: null, configVersion: next.version }];
}
