/**
 * Editing an ACL: scheme, id and the five permission letters as toggles, per entry; checked with
 * ZooKeeper's rules before sending; saved against the ACL version it was read at (409 if someone
 * changed it meanwhile, shown with their ACL, never overwritten silently). An ACL that would take
 * read or admin from the console itself (the server decides, from the console's credentials and
 * address: 409 ACL_LOCKS_OUT) is applied only after the path is typed back.
 */
import { useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ACL_SCHEMES, type AclScheme } from '@keeper/shared';
import { Dialog } from '../../../ui/Dialog';
import { ApiError } from '../../../lib/api';
import { writeErrorText } from '../../../app/writeErrors';
import { useSeenAs } from '../../../app/consoleSession/consoleSessionTopic';
import { Close } from '../../../ui/icons';
import { getAcl, setAcl, type AclAnswer } from '../ops/opsApi';
import { checkRows, ID_PLACEHOLDER, lockoutReason, newRow, PERMISSIONS, rowsFrom, sameAcl, togglePerm, toInput, type AclRow } from './aclModel';
import { Callout } from '../../../ui/Callout';
import { TypedConfirm, typedMatches } from '../../../ui/TypedConfirm';
import '../../../ui/forms.css';
import '../../../ui/table.css';
import './acl.css';

export function AclEditDialog({
  ensemble,
  path,
  open,
  current,
  onClose,
}: {
  ensemble: string;
  path: string;
  open: boolean;
  current: AclAnswer;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} title="Edit ACL" className="acl-dialog">
      {open && <AclEditor ensemble={ensemble} path={path} initial={current} onClose={onClose} />}
    </Dialog>
  );
}

function AclEditor({ ensemble, path, initial, onClose }: { ensemble: string; path: string; initial: AclAnswer; onClose: () => void }) {
  const [base, setBase] = useState(initial);
  const [rows, setRows] = useState<AclRow[]>(() => rowsFrom(initial.acl));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [stale, setStale] = useState<AclAnswer | null>(null);
  /** The server's reason when the ACL would lock the console out; cleared by any edit. */
  const [lockout, setLockout] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const seenAs = useSeenAs(ensemble);
  const check = useMemo(() => checkRows(rows), [rows]);
  const unchanged = sameAcl(rows, base.acl);
  const valid = check.error === null && check.rowErrors.size === 0;

  const edit = (change: (rs: AclRow[]) => AclRow[]) => {
    setLockout(null);
    setRows(change);
  };
  const update = (key: number, patch: Partial<AclRow>) => edit((rs) => rs.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  const save = async (version: number, confirm?: string) => {
    setBusy(true);
    setError(null);
    try {
      await setAcl(ensemble, path, toInput(rows), version, confirm);
      await queryClient.invalidateQueries({ queryKey: ['ensembles', ensemble, 'acl', path] });
      onClose();
    } catch (e) {
      if (e instanceof ApiError && e.code === 'ACL_LOCKS_OUT') {
        setLockout(e.message);
      } else if (e instanceof ApiError && e.code === 'BAD_VERSION') {
        try {
          setStale(await getAcl(ensemble, path));
        } catch (readError) {
          setError(`${e.message}; reading the current ACL failed too: ${writeErrorText(readError, 'acl')}`);
        }
      } else setError(e instanceof ApiError && e.code === 'INVALID_ACL' ? `ZooKeeper refused this ACL: ${e.message}` : writeErrorText(e, 'acl', seenAs));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="acl-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid && !unchanged && !busy && !stale && !lockout) void save(base.stat.aversion);
      }}
    >
      <p className="acl-form__lead">
        <span className="mono">{path}</span> <span className="muted">· ACL version {base.stat.aversion}</span>
      </p>
      <div className="acl-table" role="table" aria-label="ACL entries">
        <div role="row" className="acl-table__row acl-table__row--head column-head">
          <span role="columnheader">Scheme</span>
          <span role="columnheader">Id</span>
          <span role="columnheader">Permissions</span>
          <span role="columnheader">
            <span className="visually-hidden">Remove</span>
          </span>
        </div>
        {rows.map((row, i) => {
          const rowError = check.rowErrors.get(row.key);
          return (
            <div role="row" key={row.key} className={`acl-table__row${rowError ? ' is-invalid' : ''}`}>
              <span role="cell">
                <select
                  className="input"
                  aria-label={`Scheme of entry ${i + 1}`}
                  value={row.scheme}
                  onChange={(e) => {
                    const scheme = e.target.value as AclScheme;
                    update(row.key, { scheme, id: scheme === 'world' ? 'anyone' : row.scheme === 'world' ? '' : row.id });
                  }}
                >
                  {ACL_SCHEMES.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </select>
              </span>
              <span role="cell" className="acl-table__id">
                <input
                  className="input mono"
                  aria-label={`Id of entry ${i + 1}`}
                  value={row.id}
                  placeholder={ID_PLACEHOLDER[row.scheme]}
                  spellCheck="false"
                  onChange={(e) => update(row.key, { id: e.target.value })}
                />
                {rowError && <span className="field__error">{rowError}</span>}
              </span>
              <span role="cell" className="acl-toggles" aria-label={`Permissions of entry ${i + 1}`}>
                {PERMISSIONS.map((p) => (
                  <button
                    key={p.letter}
                    type="button"
                    className="acl-toggle mono"
                    aria-pressed={row.perms.includes(p.letter)}
                    aria-label={`${p.name} (${p.letter})`}
                    title={`${p.name}: ${p.hint}`}
                    onClick={() => update(row.key, { perms: togglePerm(row.perms, p.letter) })}
                  >
                    {p.letter}
                  </button>
                ))}
              </span>
              <span role="cell">
                <button
                  type="button"
                  className="btn btn--icon"
                  aria-label={`Remove entry ${i + 1}`}
                  title="Remove this entry"
                  onClick={() => edit((rs) => rs.filter((r) => r.key !== row.key))}
                >
                  <Close />
                </button>
              </span>
            </div>
          );
        })}
      </div>
      <div>
        <button
          type="button"
          className="btn btn--outline btn--small"
          onClick={() => edit((rs) => [...rs, newRow(rs.some((r) => r.scheme === 'world') ? 'digest' : 'world')])}
        >
          Add entry
        </button>
      </div>
      {check.error && <p className="field__error">{check.error}</p>}
      {check.warnings.map((w) => (
        <Callout key={w} tone="degraded" role="note">
          <p>{w}</p>
        </Callout>
      ))}
      {stale && (
        <Callout tone="degraded" role="alert">
          <strong>Not saved: the ACL changed since you opened it (now version {stale.stat.aversion})</strong>
          <p>
            Now: <span className="mono">{stale.acl.map((e) => `${e.scheme}:${e.id} ${e.perms}`).join(', ')}</span>
          </p>
          <div className="form-actions acl-stale-actions">
            <button
              type="button"
              className="btn btn--outline"
              onClick={() => {
                setBase(stale);
                setRows(rowsFrom(stale.acl));
                setStale(null);
              }}
            >
              Start again from theirs
            </button>
            <button type="button" className="btn btn--danger" disabled={busy || !valid} onClick={() => void save(stale.stat.aversion)}>
              Overwrite with mine at version {stale.stat.aversion}
            </button>
          </div>
        </Callout>
      )}
      {lockout && (
        <LockoutConfirm
          path={path}
          reason={lockout}
          busy={busy}
          onCancel={() => setLockout(null)}
          onConfirm={(typed) => void save(base.stat.aversion, typed)}
        />
      )}
      {error && (
        <Callout tone="lost" role="alert">
          <strong>Not saved</strong>
          <p>{error}</p>
        </Callout>
      )}
      {!stale && !lockout && (
        <div className="form-actions">
          <span className="form-actions__hint">Enter to save · Esc to cancel</span>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={busy || !valid || unchanged}>
            {busy ? 'Saving…' : 'Save ACL'}
          </button>
        </div>
      )}
    </form>
  );
}

/** The server's lock-out warning, and Apply only once the path is typed back exactly. */
function LockoutConfirm({
  path,
  reason,
  busy,
  onCancel,
  onConfirm,
}: {
  path: string;
  reason: string;
  busy: boolean;
  onCancel: () => void;
  onConfirm: (typed: string) => void;
}) {
  const [typed, setTyped] = useState('');
  const matches = typedMatches(path, typed);
  return (
    <Callout tone="lost" role="alert" className="acl-lockout">
      <strong>Not saved: with this ACL the console {reason.startsWith('this ACL may lock') ? 'may lose' : 'loses'} its own access to this node</strong>
      <p>{lockoutReason(reason, path)}</p>
      <TypedConfirm
        phrase={path}
        value={typed}
        onChange={setTyped}
        autoFocus
        label={(p) => <>To apply it anyway, type the path {p}</>}
        ariaLabel="Type the path to confirm"
        onKeyDown={(e) => {
          // Enter here must never submit the form's ordinary save.
          if (e.key === 'Enter') {
            e.preventDefault();
            if (matches && !busy) onConfirm(path);
          }
        }}
      />
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Back to editing
        </button>
        <button type="button" className="btn btn--danger" disabled={!matches || busy} onClick={() => onConfirm(path)}>
          {busy ? 'Applying…' : 'Apply anyway'}
        </button>
      </div>
    </Callout>
  );
}
