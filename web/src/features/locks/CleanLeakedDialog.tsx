/**
 * "Clean leaked…": a dry run first lists every contender proven leaked under a path; only then
 * does a second button delete exactly those (the dry run's list is sent back, pinned), each
 * re-checked by the server right before: still proven leaked, same owner and version, still not
 * holding, and still unwatched in a watch gathering made right then. The outcome lists what was
 * deleted and what was left alone, with why.
 */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { isValidPath, type LockCleanAnswer } from '@keeper/shared';
import { Callout } from '../../ui/Callout';
import { useSubmit } from '../../ui/useSubmit';
import { Dialog } from '../../ui/Dialog';
import { plural } from '../../ui/format';
import { cleanLeaked } from './locksApi';
import { lockCleanErrorText } from './lockErrors';
import { lockUrl } from './urls';
import '../../ui/forms.css';

export function CleanLeakedDialog({ ensemble, root, open, onClose }: { ensemble: string; root: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Clean leaked contenders" className="lock-dialog">
      {open && <CleanFlow ensemble={ensemble} root={root} onClose={onClose} />}
    </Dialog>
  );
}

type Step = { kind: 'ask' } | { kind: 'dryRun'; answer: LockCleanAnswer } | { kind: 'done'; answer: LockCleanAnswer };

function CleanFlow({ ensemble, root, onClose }: { ensemble: string; root: string; onClose: () => void }) {
  const [path, setPath] = useState(root);
  const [step, setStep] = useState<Step>({ kind: 'ask' });
  const { busy, error, submit } = useSubmit(lockCleanErrorText);
  const valid = isValidPath(path.trim());

  const run = (dryRun: boolean) =>
    submit(
      () =>
        cleanLeaked(
          ensemble,
          dryRun || step.kind !== 'dryRun' ? path.trim() : step.answer.path,
          dryRun,
          step.kind === 'dryRun' ? step.answer.candidates : undefined,
        ),
      (answer) => setStep({ kind: dryRun ? 'dryRun' : 'done', answer }),
    );

  const failure = error && (
    <Callout tone="lost" role="alert">
      <strong>{step.kind === 'ask' ? 'No dry run' : 'Nothing deleted'}</strong>
      <p>{error}</p>
    </Callout>
  );

  if (step.kind === 'done') return <CleanOutcome answer={step.answer} onClose={onClose} />;

  if (step.kind === 'dryRun') {
    const { candidates, candidatesTotal, leakCheck, leakedHolders } = step.answer;
    return (
      <div className="lock-flow">
        {candidates.length === 0 ? (
          <p>
            No leaked contender to clean under <span className="mono">{step.answer.path}</span>
            {leakedHolders.length === 0 ? ': nothing to clean.' : '.'}
          </p>
        ) : (
          <>
            <p>
              Dry run: {plural(candidates.length, 'leaked contender')} under <span className="mono">{step.answer.path}</span> would be deleted
              {candidatesTotal > candidates.length ? ` (the first ${candidates.length} of ${candidatesTotal})` : ''}. Only these; each is checked again right
              before: a node that changed, now holds its lock, or whose owner watches the lock again is left alone.
            </p>
            <ul className="lock-flow__list mono" aria-label="Leaked contenders">
              {candidates.map((c) => (
                <li key={c.path} title={`owner ${c.owner}, version ${c.version}`}>
                  {c.path}
                </li>
              ))}
            </ul>
          </>
        )}
        {leakedHolders.length > 0 && <LeakedHolders ensemble={ensemble} holders={leakedHolders} />}
        <p className="muted">{leakCheck.sentence}</p>
        {failure}
        <div className="form-actions">
          <button type="button" className="btn" onClick={onClose}>
            {candidates.length === 0 ? 'Close' : 'Cancel'}
          </button>
          {candidates.length > 0 && (
            <button type="button" className="btn btn--danger" disabled={busy} onClick={() => run(false)}>
              {busy ? 'Deleting…' : `Delete ${plural(candidates.length, 'leaked node')}`}
            </button>
          )}
        </div>
      </div>
    );
  }

  return (
    <form
      className="lock-flow"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid && !busy) run(true);
      }}
    >
      <p className="muted">First a dry run: it lists the leaked contenders and deletes nothing.</p>
      <label className={`field${valid ? '' : ' field--invalid'}`}>
        <span className="field__label">Under</span>
        <input className="input mono" autoFocus value={path} onChange={(e) => setPath(e.target.value)} spellCheck="false" autoComplete="off" />
        {!valid && <span className="field__error">A ZooKeeper path: it starts with / and does not end with one.</span>}
      </label>
      {failure}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn--primary" disabled={!valid || busy}>
          {busy ? 'Looking…' : 'Dry run'}
        </button>
      </div>
    </form>
  );
}

function CleanOutcome({ answer, onClose }: { answer: LockCleanAnswer; onClose: () => void }) {
  return (
    <div className="lock-flow">
      <Callout tone={answer.skipped.length === 0 ? 'live' : 'degraded'} role="status">
        <strong>
          {plural(answer.deleted.length, 'node')} deleted{answer.skipped.length > 0 ? `, ${answer.skipped.length} left alone` : ''}
        </strong>
      </Callout>
      {answer.deleted.length > 0 && (
        <ul className="lock-flow__list mono" aria-label="Deleted">
          {answer.deleted.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {answer.skipped.length > 0 && (
        <ul className="lock-flow__list" aria-label="Left alone">
          {answer.skipped.map((s) => (
            <li key={s.path}>
              <span className="mono">{s.path}</span> <span className="muted">— {s.reason}</span>
            </li>
          ))}
        </ul>
      )}
      <div className="form-actions">
        <button type="button" className="btn btn--primary" autoFocus onClick={onClose}>
          Done
        </button>
      </div>
    </div>
  );
}

/** Leaked nodes that hold their lock: Clean leaves them (a holder's delete hands the lock on), so the dry run names them and where to delete each. */
function LeakedHolders({ ensemble, holders }: { ensemble: string; holders: LockCleanAnswer['leakedHolders'] }) {
  return (
    <Callout tone="lost">
      <strong>{holders.length === 1 ? 'A leaked node holds its lock' : `${holders.length} leaked nodes hold their locks`}</strong>
      <p>
        Proven leaked while it waited, a leaked holder holds for nobody who knows it, and every waiter behind it waits. Clean never deletes a holder (its delete
        hands the lock on): delete each on its lock&apos;s page, with typed confirmation.
      </p>
      <ul className="lock-flow__list mono" aria-label="Leaked holders">
        {holders.map((h) => (
          <li key={h.path} title={`owner ${h.owner}, version ${h.version}`}>
            <Link to={lockUrl(ensemble, h.lock)}>{h.path}</Link>
          </li>
        ))}
      </ul>
    </Callout>
  );
}
