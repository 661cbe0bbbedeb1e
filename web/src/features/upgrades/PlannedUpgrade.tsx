/**
 * A plan waiting to start: the preflight's checks, the order ("Order: member 2, member 3, then
 * the leader, member 1"), the full mode's risk, the plan's warnings and, when the plan means an
 * outage, the exact phrase to type. Admins start it or discard it; everyone else reads it.
 */
import { useState } from 'react';
import { confirmationMatches, type UpgradeAnswer } from '@keeper/shared';
import { Callout } from '../../ui/Callout';
import { useSubmit } from '../../ui/useSubmit';
import { TypedConfirm } from '../../ui/TypedConfirm';
import { AbortDialog } from './AbortDialog';
import { PreflightChecks } from './PreflightChecks';
import { upgradeAction } from './upgradesApi';
import { upgradeErrorText } from './upgradeErrors';
import { RestartNote } from './RestartNote';
import '../../ui/forms.css';

export function PlannedUpgrade({
  ensemble,
  upgrade,
  admin,
  live,
  onAnswer,
}: {
  ensemble: string;
  upgrade: UpgradeAnswer;
  admin: boolean;
  live: boolean;
  onAnswer: (answer: UpgradeAnswer) => void;
}) {
  const { plan } = upgrade;
  const [typed, setTyped] = useState('');
  const { busy, error, submit } = useSubmit(upgradeErrorText);
  const [discarding, setDiscarding] = useState(false);
  const ready = confirmationMatches(plan.confirmation, typed);

  const start = () => submit(() => upgradeAction(ensemble, upgrade.id, 'start', plan.confirmation ? { confirmation: typed.trim() } : {}), onAnswer);

  return (
    <form
      className="upgrade-panel"
      aria-label="The plan"
      onSubmit={(e) => {
        e.preventDefault();
        if (admin && ready && live && !busy) start();
      }}
    >
      <h2 className="section-title">
        {plan.mode === 'full' ? 'Full restart' : 'Rolling restart'}, planned{upgrade.createdBy ? ` by ${upgrade.createdBy}` : ''}
      </h2>
      <p className="upgrade-plan__order">{plan.sentence}</p>
      <RestartNote method={upgrade.restartMethod} targetVersion={plan.targetVersion} note={plan.note} />
      <PreflightChecks checks={upgrade.preflight} />
      {plan.risk && (
        <Callout tone="degraded" role="note">
          <strong>An outage</strong>
          <p>{plan.risk}</p>
        </Callout>
      )}
      {plan.warnings.length > 0 && (
        <Callout tone="degraded" role="note">
          <ul className="upgrade-warnings">
            {plan.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Callout>
      )}
      {admin && plan.confirmation && (
        <TypedConfirm
          className="upgrade-confirm"
          phrase={plan.confirmation.phrase}
          value={typed}
          onChange={setTyped}
          label={(p) => <>Type {p} to accept the outage</>}
          hint={plan.confirmation.why === plan.risk ? undefined : plan.confirmation.why}
        />
      )}
      {error && (
        <Callout tone="lost" role="alert">
          <strong>Not started</strong>
          <p>{error}</p>
        </Callout>
      )}
      {admin ? (
        <div className="form-actions upgrade-panel__actions">
          <span className="form-actions__hint">The gates are checked again when it starts, and before each member.</span>
          <button type="button" className="btn btn--outline" onClick={() => setDiscarding(true)}>
            Discard…
          </button>
          <button type="submit" className="btn btn--primary" disabled={!ready || busy || !live} title={live ? undefined : 'Not while the data is not live'}>
            {busy ? 'Starting…' : 'Start'}
          </button>
        </div>
      ) : (
        <p className="note">An admin starts it.</p>
      )}
      {discarding && <AbortDialog ensemble={ensemble} upgrade={upgrade} onClose={() => setDiscarding(false)} onDone={onAnswer} />}
    </form>
  );
}
