/**
 * Aborting the upgrade: nothing more is restarted; a member already restarting is not stopped
 * (its restart was issued). A reason may be given for the audit trail and the history.
 */
import { useState } from 'react';
import type { UpgradeAnswer } from '@keeper/shared';
import { Callout } from '../../ui/Callout';
import { Dialog } from '../../ui/Dialog';
import { Field } from '../../ui/Field';
import { useSubmit } from '../../ui/useSubmit';
import { upgradeAction } from './upgradesApi';
import { upgradeErrorText } from './upgradeErrors';
import '../../ui/forms.css';

export function AbortDialog({
  ensemble,
  upgrade,
  onClose,
  onDone,
}: {
  ensemble: string;
  upgrade: UpgradeAnswer;
  onClose: () => void;
  onDone: (answer: UpgradeAnswer) => void;
}) {
  const [reason, setReason] = useState('');
  const { busy, error, submit: send } = useSubmit(upgradeErrorText);
  const planned = upgrade.state === 'planned';

  const submit = () =>
    send(
      () => upgradeAction(ensemble, upgrade.id, 'abort', reason.trim() ? { reason: reason.trim() } : {}),
      (answer) => {
        onDone(answer);
        onClose();
      },
    );

  return (
    <Dialog open onClose={onClose} title={planned ? 'Discard the plan' : 'Abort the upgrade'} className="upgrade-dialog">
      <form
        className="upgrade-flow"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy) submit();
        }}
      >
        <p>
          {planned
            ? 'The plan is set aside; nothing was restarted.'
            : 'Keeper restarts no further member. A member whose restart was already issued is not stopped: check that it comes back. Members not yet restarted stay as they are.'}
        </p>
        <Field label="Reason (optional)" hint="Kept in the audit trail and the history.">
          {(control) => <input {...control} className="input" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} />}
        </Field>
        {error && (
          <Callout tone="lost" role="alert">
            <strong>{planned ? 'Not discarded' : 'Not aborted'}</strong>
            <p>{error}</p>
          </Callout>
        )}
        <div className="form-actions">
          <span className="form-actions__hint">Esc to cancel</span>
          <button type="button" className="btn" onClick={onClose} autoFocus>
            Cancel
          </button>
          <button type="submit" className="btn btn--danger" disabled={busy}>
            {busy ? 'Aborting…' : planned ? 'Discard the plan' : 'Abort the upgrade'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
