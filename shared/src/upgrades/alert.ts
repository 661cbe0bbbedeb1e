/**
 * The alert a paused or failed upgrade raises, in the ensemble view's alert shape, so it shows
 * wherever the ensemble's alerts do: the reason is the step's own sentence.
 */
import type { Alert } from '../ensemble/types.js';
import type { UpgradeWorkflow } from './schemas.js';
import { skipPhrase } from './stepActions.js';

export function upgradeAlert(wf: UpgradeWorkflow): Alert | null {
  if (wf.state !== 'paused' && wf.state !== 'failed') return null;
  const step = wf.steps.find((s) => s.state === 'paused' || s.state === 'failed') ?? null;
  const members = step ? [step.address] : [];
  if (wf.state === 'failed') {
    return {
      id: `upgrade:${wf.id}`,
      severity: 'critical',
      title: 'Upgrade failed',
      why: wf.reason ?? 'The upgrade cannot go on.',
      action: 'Nothing else was restarted. Check the member, then plan a new upgrade.',
      members,
    };
  }
  return {
    id: `upgrade:${wf.id}`,
    // A pause the operator asked for is information; one the upgrade took itself needs someone.
    severity: step ? 'critical' : 'info',
    title: step ? 'Upgrade paused: it needs you' : 'Upgrade paused',
    why: wf.reason ?? 'Paused.',
    action: step
      ? `Nothing else is restarted. ${step.restartRequestedAt !== null ? 'Restart it again, or bring the member back and resume' : 'Bring the member back and resume'}, or skip it by typing "${skipPhrase(step)}".`
      : 'Resume when ready, or abort.',
    members,
  };
}
