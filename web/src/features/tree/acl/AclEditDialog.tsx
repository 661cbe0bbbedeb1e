/**
 * Editing an ACL: scheme, id and the five permission letters as toggles, per entry; checked with
 * ZooKeeper's rules before sending; saved against the ACL version it was read at (409 if someone
 * changed it meanwhile, shown with their ACL, never overwritten silently).
 */
import { useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ACL_SCHEMES, type AclScheme } from '@keeper/shared';
import { Dialog } from '../../../ui/Dialog';
import { ApiError, errorText } from '../../../lib/api';
import { Close } from '../../../ui/icons';
import { getAcl, setAcl, type AclAnswer } from '../ops/opsApi';
import { checkRows, ID_PLACEHOLDER, newRow, PERMISSIONS, rowsFrom, sameAcl, togglePerm, toInput, type AclRow } from './aclModel';
import '../../../ui/forms.css';
import './acl.css';

export function AclEditDialog({ ensemble, path, open, current, onClose }: { ensemble: string; path: string; open: boolean; current: AclAnswer; onClose: () => void }) {
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
  const queryClient = useQueryClient();
  const check = useMemo(() => checkRows(rows), [rows]);
  const unchanged = sameAcl(rows, base.acl);
  const valid = check.error === null && check.rowErrors.size === 0;

  const update = (key: number, patch: Partial<AclRow>) => setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  const save = async (version: number) => {
    setBusy(true);
    setError(null);
    try {
      await setAcl(ensemble, path, toInput(rows), version);
      await queryClient.invalidateQueries({ queryKey: ['ensembles', ensemble, 'acl', path] });
      onClose();
    } catch (e) {
      if (e instanceof ApiError && e.code === 'BAD_VERSION') {
        try {
          setStale(await getAcl(ensemble, path));
        } catch (readError) {
          setError(`${e.message}; reading the current ACL failed too: ${errorText(readError)}`);
        }
      } else setError(e instanceof ApiError && e.code === 'INVALID_ACL' ? `ZooKeeper refused this ACL: ${e.message}` : errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="acl-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid && !unchanged && !busy && !stale) void save(base.stat.aversion);
      }}
    >
      <p className="acl-form__lead">
        <span className="mono">{path}</span> <span className="muted">· ACL version {base.stat.aversion}</span>
      </p>
      <div className="acl-table" role="table" aria-label="ACL entries">
        <div role="row" className="acl-table__row acl-table__row--head">
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
                  spellCheck={false}
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
                <button type="button" className="btn btn--icon" aria-label={`Remove entry ${i + 1}`} title="Remove this entry" onClick={() => setRows((rs) => rs.filter((r) => r.key !== row.key))}>
                  <Close />
                </button>
              </span>
            </div>
          );
        })}
      </div>
      <div>
        <button type="button" className="btn btn--outline btn--small" onClick={() => setRows((rs) => [...rs, newRow(rs.some((r) => r.scheme === 'world') ? 'digest' : 'world')])}>
          Add entry
        </button>
      </div>
      {check.error && <p className="field__error">{check.error}</p>}
      {check.warnings.map((w) => (
        <div key={w} className="callout tone-degraded" role="note">
          <p>{w}</p>
        </div>
      ))}
      {stale && (
        <div className="callout tone-degraded" role="alert">
          <strong>Not saved: the ACL changed since you opened it (now version {stale.stat.aversion})</strong>
          <p>
            Now:{' '}
            <span className="mono">
              {stale.acl.map((e) => `${e.scheme}:${e.id} ${e.perms}`).join(', ')}
            </span>
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
        </div>
      )}
      {error && (
        <div className="callout tone-lost" role="alert">
          <strong>Not saved</strong>
          <p>{error}</p>
        </div>
      )}
      {!stale && (
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
