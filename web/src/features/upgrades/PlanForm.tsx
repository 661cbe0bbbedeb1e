/**
 * Planning an upgrade (admins): rolling (the default) or full, with the full mode's risk said
 * before anything is asked of the server; an optional target version and note. "Check and plan"
 * makes the plan: the server runs the preflight at once and answers the order and each check.
 */
import { useState } from 'react';
import { fullRestartRisk, type UpgradeAnswer, type UpgradeMode } from '@keeper/shared';
import { Callout } from '../../ui/Callout';
import { useSubmit } from '../../ui/useSubmit';
import { Field } from '../../ui/Field';
import { createUpgrade } from './upgradesApi';
import { upgradeErrorText } from './upgradeErrors';
import '../../ui/forms.css';

export function PlanForm({ ensemble, live, onPlanned }: { ensemble: string; live: boolean; onPlanned: (answer: UpgradeAnswer) => void }) {
  const [mode, setMode] = useState<UpgradeMode>('rolling');
  const [targetVersion, setTargetVersion] = useState('');
  const [note, setNote] = useState('');
  const { busy, error, submit: send } = useSubmit(upgradeErrorText);

  const submit = () => {
    const body = { mode, ...(targetVersion.trim() ? { targetVersion: targetVersion.trim() } : {}), ...(note.trim() ? { note: note.trim() } : {}) };
    send(() => createUpgrade(ensemble, body), onPlanned);
  };

  return (
    <form
      className="upgrade-panel upgrade-plan"
      aria-label="Plan an upgrade"
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy && live) submit();
      }}
    >
      <h2 className="section-title">Plan an upgrade or restart</h2>
      <fieldset className="upgrade-plan__modes">
        <legend className="field__label">Mode</legend>
        <label className="upgrade-plan__mode">
          <input type="radio" name="mode" value="rolling" checked={mode === 'rolling'} onChange={() => setMode('rolling')} />
          <span>
            <strong>Rolling</strong> <span className="muted">one member at a time, the leader last; clients move to the others</span>
          </span>
        </label>
        <label className="upgrade-plan__mode">
          <input type="radio" name="mode" value="full" checked={mode === 'full'} onChange={() => setMode('full')} />
          <span>
            <strong>Full</strong> <span className="muted">every member at once</span>
          </span>
        </label>
      </fieldset>
      {mode === 'full' && (
        <Callout tone="degraded" role="note">
          <strong>An outage</strong>
          <p>{fullRestartRisk(null)}</p>
        </Callout>
      )}
      <div className="upgrade-plan__fields">
        <Field label="Target version (optional)" hint='Each member must report it once back: "3.8.0", or a part such as "built on 2024-12-29".'>
          {(control) => (
            <input
              {...control}
              className="input mono"
              value={targetVersion}
              onChange={(e) => setTargetVersion(e.target.value)}
              maxLength={200}
              spellCheck="false"
              autoComplete="off"
            />
          )}
        </Field>
        <Field label="Note (optional)" hint="What changes, for the audit trail and the history.">
          {(control) => <input {...control} className="input" value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} />}
        </Field>
      </div>
      {error && (
        <Callout tone="lost" role="alert">
          <strong>Not planned</strong>
          <p>{error}</p>
        </Callout>
      )}
      <div className="form-actions upgrade-panel__actions">
        <span className="form-actions__hint">Nothing is restarted until you start the plan.</span>
        <button
          type="submit"
          className="btn btn--outline btn--primary"
          disabled={busy || !live}
          title={live ? undefined : 'Not while the data is not live: the checks would judge an ensemble not known to be current'}
        >
          {busy ? 'Checking…' : 'Check and plan'}
        </button>
      </div>
    </form>
  );
}
