/**
 * Skipping a member: it will not be restarted (nor upgraded) by this workflow. The exact phrase
 * ("skip member 2") must be typed, as the server also requires.
 */
import { useState } from 'react';
import { skipPhrase, stepTitle, type UpgradeAnswer, type UpgradeStep } from '@keeper/shared';
import { Callout } from '../../ui/Callout';
import { Dialog } from '../../ui/Dialog';
import { TypedConfirm, typedMatches } from '../../ui/TypedConfirm';
import { useSubmit } from '../../ui/useSubmit';
import { upgradeStepAction } from './upgradesApi';
import { upgradeErrorText } from './upgradeErrors';
import '../../ui/forms.css';

export function SkipStepDialog({
  ensemble,
  upgradeId,
  step,
  onClose,
  onDone,
}: {
  ensemble: string;
  upgradeId: string;
  step: UpgradeStep;
  onClose: () => void;
  onDone: (answer: UpgradeAnswer) => void;
}) {
  const phrase = skipPhrase(step);
  const [typed, setTyped] = useState('');
  const { busy, error, submit: send } = useSubmit(upgradeErrorText);
  const ready = typedMatches(phrase, typed);

  const submit = () =>
    send(
      () => upgradeStepAction(ensemble, upgradeId, step.address, 'skip', typed.trim()),
      (answer) => {
        onDone(answer);
        onClose();
      },
    );

  return (
    <Dialog open onClose={onClose} title={`Skip ${stepTitle(step)}`} className="upgrade-dialog">
      <form
        className="upgrade-flow"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready && !busy) submit();
        }}
      >
        <p>
          {stepTitle(step)} will not be restarted by this upgrade
          {step.restartRequestedAt !== null ? ' (its restart was already asked for: Keeper stops waiting for it)' : ''}. If a target version was given, it stays
          on the version it runs.
        </p>
        <TypedConfirm phrase={phrase} value={typed} onChange={setTyped} autoFocus />
        {error && (
          <Callout tone="lost" role="alert">
            <strong>Not skipped</strong>
            <p>{error}</p>
          </Callout>
        )}
        <div className="form-actions">
          <span className="form-actions__hint">Esc to cancel</span>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--danger" disabled={!ready || busy}>
            {busy ? 'Skipping…' : 'Skip this member'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
