/**
 * Deleting one contender node. A leaked or persistent node: one confirmation, and the server
 * re-checks right before that its owner and version are unchanged and that it has not become the
 * holder. A node in a holding position: its name typed, after reading what it does (the next
 * waiter enters while the old owner still believes it holds the lock).
 */
import { useState } from 'react';
import type { Contender } from '@keeper/shared';
import { ApiError } from '../../lib/api';
import { escapeHiddenChars } from '../../lib/invisibleChars';
import { Callout } from '../../ui/Callout';
import { Dialog } from '../../ui/Dialog';
import { useSubmit } from '../../ui/useSubmit';
import { TypedConfirm, typedMatches } from '../../ui/TypedConfirm';
import { deleteContender } from './locksApi';
import { lockDeleteErrorText } from './lockErrors';
import { deleteMode } from './lockWords';
import '../../ui/forms.css';

export const HOLDER_CONSEQUENCE = 'the next waiter enters while the old owner still believes it holds the lock';

export function DeleteContenderDialog({ ensemble, contender, onClose }: { ensemble: string; contender: Contender; onClose: () => void }) {
  return (
    <Dialog
      open
      onClose={onClose}
      title={`Delete ${contender.status === 'holder' || contender.holding ? 'the holder' : `a ${contender.status} node`}`}
      className="lock-dialog"
    >
      <DeleteFlow ensemble={ensemble} contender={contender} onClose={onClose} />
    </Dialog>
  );
}

function DeleteFlow({ ensemble, contender: c, onClose }: { ensemble: string; contender: Contender; onClose: () => void }) {
  // A refusal saying it holds now turns a plain confirmation into the typed one.
  const [typedNeeded, setTypedNeeded] = useState(deleteMode(c) === 'typed');
  const [typed, setTyped] = useState('');
  const { busy, error, submit: send } = useSubmit(lockDeleteErrorText);
  const ready = !typedNeeded || typedMatches(c.name, typed);
  const owner = c.owner?.sessionId ?? '0x0';

  const submit = () =>
    send(
      () => deleteContender(ensemble, c, typedNeeded ? c.name : undefined),
      onClose,
      (err) => {
        if (err instanceof ApiError && err.code === 'LOCK_HOLDER') setTypedNeeded(true);
      },
    );

  return (
    <form
      className="lock-flow"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready && !busy) submit();
      }}
    >
      <p>
        Delete <span className="mono lock-flow__path">{c.path}</span>?
      </p>
      <p className="muted">
        {c.owner ? (
          <>
            Owner session <span className="mono">{owner}</span>
          </>
        ) : (
          'No owner session (persistent)'
        )}
        , version <span className="mono">{c.version}</span>. Keeper checks again right before deleting that both are unchanged
        {typedNeeded ? '' : ' and that it has not become the holder'}; otherwise nothing is deleted. This cannot be undone.
      </p>
      {typedNeeded ? (
        <>
          <Callout tone="lost" role="status">
            <strong>This node holds the lock</strong>
            <p>
              If you delete it, {HOLDER_CONSEQUENCE}: two parties then act as the holder at once. Do it only when you know the owner is gone or stuck for good.
            </p>
          </Callout>
          <TypedConfirm phrase={c.name} value={typed} onChange={setTyped} autoFocus ariaLabel={`Type ${escapeHiddenChars(c.name)} to confirm`} />
        </>
      ) : (
        c.consequence && <p className="muted">{c.consequence}</p>
      )}
      {error && (
        <Callout tone="lost" role="alert">
          <strong>Not deleted</strong>
          <p>{error}</p>
        </Callout>
      )}
      <div className="form-actions">
        <span className="form-actions__hint">Esc to cancel</span>
        <button type="button" className="btn" onClick={onClose} autoFocus={!typedNeeded}>
          Cancel
        </button>
        <button type="submit" className="btn btn--danger" disabled={!ready || busy}>
          {busy ? 'Deleting…' : typedNeeded ? 'Delete the holder' : 'Delete'}
        </button>
      </div>
    </form>
  );
}
