/**
 * Makes a read-only link to one page: choose what it reaches (the znode's subtree or an
 * ancestor's, and whether the ensemble views come with it), how long it lasts, a note for the
 * list; copy the URL. The URL (with its token) is shown once; the Share links page lists and
 * revokes links. The server enforces the reach; this only says it before and after.
 */
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Dialog } from '../../ui/Dialog';
import { CopyButton } from '../../ui/CopyButton';
import { Field } from '../../ui/Field';
import { errorText } from '../../lib/api';
import { formatAbsolute, formatDuration } from '../../lib/time';
import { useNow } from '../../lib/useNow';
import { describeScope } from '@keeper/shared';
import { createShareLink, DEFAULT_EXPIRY_MINUTES, EXPIRY_CHOICES, scopeOptions, shareLinksQueryKey } from './shareLinks';
import { Callout } from '../../ui/Callout';
import '../../ui/forms.css';
import './share.css';

export function ShareDialog({ open, path, onClose }: { open: boolean; path: string; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Share a read-only link" className="share-dialog">
      {/* Remounted per opening: a new link each time, never the last one's URL. */}
      {open && <ShareForm path={path} onClose={onClose} />}
    </Dialog>
  );
}

function ShareForm({ path, onClose }: { path: string; onClose: () => void }) {
  const [minutes, setMinutes] = useState<number>(DEFAULT_EXPIRY_MINUTES);
  const [note, setNote] = useState('');
  const options = scopeOptions(path);
  const [root, setRoot] = useState(options?.roots[0] ?? '/');
  const [views, setViews] = useState(options?.viewsRequired ?? false);
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () =>
      createShareLink({
        path,
        expiresInMinutes: minutes,
        ...(note.trim() ? { note: note.trim() } : {}),
        ...(options ? { scope: { root, ensembleViews: views } } : {}),
      }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: shareLinksQueryKey }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!create.isPending && !create.data) create.mutate();
  };
  const link = create.data;
  const now = useNow();

  if (link) {
    return (
      <div className="share-result">
        <p className="share-lead">
          Anyone with this link opens <span className="mono share-path">{link.path}</span> and sees{' '}
          <strong className="share-path">{describeScope(link.scope)}</strong>, live, until{' '}
          <time title={formatAbsolute(link.expiresAt)}>{formatAbsolute(link.expiresAt).slice(0, 16)}</time> (in {formatDuration(link.expiresAt - now + 30_000)}
          ).
        </p>
        <Field label="Share link" hint="Copy it now: it is shown only once. Revoke it any time under Audit → Share links; open pages close at once.">
          {(p) => (
            <span className="share-url">
              <input {...p} className="input mono" readOnly value={link.url} onFocus={(e) => e.currentTarget.select()} autoFocus />
              <CopyButton text={link.url} label="Copy link" className="btn--outline" />
            </span>
          )}
        </Field>
        <div className="form-actions">
          <Link to="/audit/share-links" className="btn" onClick={onClose}>
            All share links
          </Link>
          <button type="button" className="btn btn--primary" onClick={onClose}>
            Done
          </button>
        </div>
      </div>
    );
  }

  return (
    <form onSubmit={submit} className="share-form">
      <p className="share-lead">
        A link that opens <span className="mono share-path">{path}</span> for someone without an account: live, nothing changeable.
      </p>
      {options ? (
        <>
          <div className="field">
            <span className="field__label" id="share-reach-label">
              Reaches
            </span>
            <div className="share-reach" role="radiogroup" aria-labelledby="share-reach-label">
              {options.roots.map((r, i) => (
                <label key={r} className="share-reach__choice">
                  <input type="radio" name="share-reach" value={r} checked={root === r} onChange={() => setRoot(r)} />
                  <span className="mono share-path">{r === '/' ? '/ (the whole tree)' : `${r} and below`}</span>
                  {i === 0 && options.roots.length > 1 && <span className="muted"> · this znode</span>}
                </label>
              ))}
            </div>
          </div>
          <label className="share-views">
            <input type="checkbox" checked={views} disabled={options.viewsRequired} onChange={(e) => setViews(e.target.checked)} />
            <span>
              Also the ensemble views: members and quorum, sessions, watches
              <span className="field__hint">{options.viewsRequired ? 'This page is one of them.' : 'Off by default: sessions show client addresses.'}</span>
            </span>
          </label>
          <p className="share-scope-summary" aria-label="What the holder will see">
            <span className="share-scope-summary__yes">
              Will see: <strong>{describeScope({ ensemble: options.ensemble, root, ensembleViews: views })}</strong>.
            </span>{' '}
            <span className="muted">
              Will not see: {root === '/' ? '' : 'the rest of the tree, '}
              {views ? '' : 'members, sessions, watches, '}other ensembles, the audit trail, or any way to change anything.
            </span>
          </p>
        </>
      ) : (
        <Callout tone="degraded" role="alert">
          <strong>Not a page of one ensemble</strong>
          <p>Share links open a znode or an ensemble view. Open one, then share it.</p>
        </Callout>
      )}
      <div className="field">
        <span className="field__label" id="share-expiry-label">
          Expires after
        </span>
        <div className="segmented" role="radiogroup" aria-labelledby="share-expiry-label">
          {EXPIRY_CHOICES.map((c) => (
            <button
              key={c.minutes}
              type="button"
              role="radio"
              aria-checked={minutes === c.minutes}
              aria-pressed={minutes === c.minutes}
              className="segmented__btn"
              onClick={() => setMinutes(c.minutes)}
            >
              {c.label}
            </button>
          ))}
        </div>
      </div>
      <Field label="Note (optional)" hint="Shown in the list of share links, so you know later what a link was for.">
        {(p) => (
          <input
            {...p}
            className="input"
            maxLength={200}
            placeholder="e.g. INC-2231 for the payments on-call"
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        )}
      </Field>
      {create.error && (
        <Callout tone="lost" role="alert">
          <strong>No link was made</strong>
          <p>{errorText(create.error)}</p>
        </Callout>
      )}
      <div className="form-actions">
        <span className="form-actions__hint">Enter to create · Esc to cancel</span>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn--primary" disabled={create.isPending || !options} autoFocus>
          {create.isPending ? 'Creating…' : 'Create link'}
        </button>
      </div>
    </form>
  );
}
