/**
 * Aborting a resize (or discarding a plan): no further step is sent; the steps already verified
 * stay in the configuration (ZooKeeper has no undo: a new resize reverses them). A reason may be
 * given for the audit trail and the history.
 */
import { useState } from 'react';
import type { ReconfigWorkflow } from '@keeper/shared';
import { Callout } from '../../../ui/Callout';
import { Dialog } from '../../../ui/Dialog';
import { Field } from '../../../ui/Field';
import { useSubmit } from '../../../ui/useSubmit';
import { reconfigAction, resizeErrorText } from './resizeApi';
import { stepsDone } from './resizeWords';

export function AbortResizeDialog({
  ensemble,
  wf,
  onClose,
  onDone,
}: {
  ensemble: string;
  wf: ReconfigWorkflow;
  onClose: () => void;
  onDone: (wf: ReconfigWorkflow) => void;
}) {
  const [reason, setReason] = useState('');
  const { busy, error, submit: send } = useSubmit(resizeErrorText);
  const planned = wf.state === 'planned';
  const done = stepsDone(wf);
  const submit = () =>
    send(
      () => reconfigAction(ensemble, wf.id, 'abort', reason.trim() ? { reason: reason.trim() } : {}),
      (answer) => {
        onDone(answer);
        onClose();
      },
    );
  return (
    <Dialog open onClose={onClose} title={planned ? 'Discard the plan' : 'Abort the resize'} className="resize-dialog">
      <form
        className="resize-dialog__form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy) submit();
        }}
      >
        <p>
          {planned
            ? 'The plan is set aside; nothing was sent to ZooKeeper.'
            : `Keeper sends no further step. ${done === 0 ? 'No step was verified yet' : `The ${done} step${done === 1 ? '' : 's'} verified stay in the configuration`}; a step already sent may still be applied by ZooKeeper. Plan a new resize to reverse them.`}
        </p>
        <Field label="Reason (optional)" hint="Kept in the audit trail and the history.">
          {(control) => <input {...control} data-autofocus className="input" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} />}
        </Field>
        {error && (
          <Callout tone="lost" role="alert">
            <strong>{planned ? 'Not discarded' : 'Not aborted'}</strong>
            <p>{error}</p>
          </Callout>
        )}
        <div className="form-actions">
          <span className="form-actions__hint">Esc to cancel</span>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--danger" disabled={busy}>
            {busy ? 'Aborting…' : planned ? 'Discard the plan' : 'Abort the resize'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
