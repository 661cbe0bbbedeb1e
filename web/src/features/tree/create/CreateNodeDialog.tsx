/**
 * "Create child": a name, a value (text, JSON or base64, checked as in the editor) and a mode.
 * Ephemeral modes are offered with the reason they are rarely right from a console: the node
 * belongs to the console's own session and vanishes with it.
 */
import { useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { CreateModeName } from '@keeper/shared';
import { Dialog } from '../../../ui/Dialog';
import { Field } from '../../../ui/Field';
import { ApiError, errorText } from '../../../lib/api';
import { noAuthWriteText, writeErrorText } from '../../../app/writeErrors';
import { formatBytes } from '../../../lib/bytes';
import { useSeenAs, useSessionEntry } from '../../../app/consoleSession/consoleSessionTopic';
import { createZnode, type WriteAnswer } from '../ops/opsApi';
import { CodeEditor } from '../edit/CodeEditor';
import { checkJson, prettyJson } from '../edit/jsonCheck';
import { convertFormat, FORMAT_LABELS, payloadFor, type EditorFormat } from '../edit/editorModel';
import { znodeUrl } from '../../../app/urls/treeUrls';
import { checkChildName, MODES, modeInfo, previewPath } from './createModel';
import { Callout } from '../../../ui/Callout';
import '../../../ui/forms.css';
import '../edit/edit.css';
import './create.css';

export function CreateNodeDialog({ ensemble, parent, open, onClose }: { ensemble: string; parent: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Create child" className="create-dialog">
      {open && <CreateForm ensemble={ensemble} parent={parent} onClose={onClose} />}
    </Dialog>
  );
}

function CreateForm({ ensemble, parent, onClose }: { ensemble: string; parent: string; onClose: () => void }) {
  const navigate = useNavigate();
  const sessionId = useSessionEntry(ensemble)?.snapshot.sessionId ?? null;
  const seenAs = useSeenAs(ensemble);
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [format, setFormat] = useState<EditorFormat>('text');
  const [text, setText] = useState('');
  const [mode, setMode] = useState<CreateModeName>('persistent');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<WriteAnswer | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);

  const nameCheck = checkChildName(parent, name);
  const jsonProblem = useMemo(() => (format === 'json' && text !== '' ? checkJson(text) : null), [format, text]);
  const payload = useMemo(() => (text === '' ? null : payloadFor(format, text)), [format, text]);
  const info = modeInfo(mode);
  const preview = previewPath(parent, name, mode);

  const submit = async () => {
    setTouched(true);
    if (!nameCheck.ok || busy) return;
    if (payload && !payload.ok) return setError(payload.reason);
    setBusy(true);
    setError(null);
    try {
      const answer = await createZnode(ensemble, nameCheck.path, { mode, ...(payload?.ok ? { data: payload.data, encoding: payload.encoding } : {}) });
      if (answer.warning || answer.note) setCreated(answer);
      else {
        onClose();
        navigate(znodeUrl(ensemble, answer.path));
      }
    } catch (e) {
      setError(createErrorText(e, nameCheck.path, seenAs));
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <div className="create-done">
        <p>
          Created <span className="mono">{created.path}</span>.
        </p>
        {created.warning && (
          <Callout tone="degraded" role="status">
            <strong>Ephemeral: it belongs to the console</strong>
            <p>{created.warning}</p>
          </Callout>
        )}
        {created.note && (
          <Callout tone="degraded" role="status">
            <strong>After a lost reply</strong>
            <p>{created.note}</p>
          </Callout>
        )}
        <div className="form-actions">
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
          <button
            type="button"
            className="btn btn--primary"
            autoFocus
            onClick={() => {
              onClose();
              navigate(znodeUrl(ensemble, created.path));
            }}
          >
            Open it
          </button>
        </div>
      </div>
    );
  }

  return (
    <form
      className="create-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Field
        label="Name"
        error={touched && !nameCheck.ok ? nameCheck.reason : undefined}
        hint={
          <>
            Creates <span className="mono create-preview">{preview.path}</span>
            {preview.counter && <span className="mono muted">0000000001</span>}
          </>
        }
      >
        {(p) => (
          <input
            {...p}
            className="input mono"
            autoFocus
            value={name}
            onChange={(e) => setName(e.target.value)}
            onBlur={() => name !== '' && setTouched(true)}
            spellCheck="false"
          />
        )}
      </Field>

      <fieldset className="create-modes">
        <legend className="field__label">Mode</legend>
        {MODES.map((m) => (
          <label key={m.mode} className={`create-mode${mode === m.mode ? ' is-selected' : ''}`}>
            <input type="radio" name="mode" value={m.mode} checked={mode === m.mode} onChange={() => setMode(m.mode)} />
            <span className="create-mode__label">{m.label}</span>
            <span className="create-mode__hint muted">{m.hint}</span>
          </label>
        ))}
      </fieldset>
      {info.ephemeral && (
        <Callout tone="degraded" role="note">
          <strong>An ephemeral made here is rarely what you want</strong>
          <p>
            It belongs to the session that creates it: the console’s own ZooKeeper session
            {sessionId ? (
              <>
                {' '}
                (<span className="mono">{sessionId}</span>)
              </>
            ) : null}
            . It vanishes when that session ends or expires: a Keeper restart, or a partition longer than the session timeout. Locks, leader election and
            service registrations should be created by the process that holds them.
          </p>
        </Callout>
      )}

      <div className="field">
        <div className="create-data-head">
          <span className="field__label">Data (optional)</span>
          <div className="segmented" role="group" aria-label="Data as">
            {(['text', 'json', 'base64'] as const).map((f) => (
              <button
                key={f}
                type="button"
                className="segmented__btn"
                aria-pressed={format === f}
                onClick={() => {
                  const converted = convertFormat(format, f, text);
                  if (!converted.ok) return setError(converted.reason);
                  setError(null);
                  setFormat(f);
                  setText(converted.text);
                }}
              >
                {FORMAT_LABELS[f]}
              </button>
            ))}
          </div>
          {format === 'json' && (
            <button
              type="button"
              className="btn btn--outline btn--small"
              disabled={text === '' || jsonProblem !== null}
              onClick={() => setText(prettyJson(text) ?? text)}
            >
              Pretty-print
            </button>
          )}
          <span className="create-data-head__spacer" />
          <span className="muted create-data-head__size">{payload?.ok ? formatBytes(payload.bytes) : text === '' ? 'empty' : ''}</span>
        </div>
        <div className="create-editor">
          <CodeEditor
            value={text}
            onChange={setText}
            label="New znode data"
            errorLine={jsonProblem?.line ?? null}
            wrap={format === 'base64'}
            onSubmit={() => void submit()}
            inputRef={inputRef}
          />
        </div>
        {jsonProblem && (
          <span className="field__error">
            line {jsonProblem.line}, column {jsonProblem.column}: {jsonProblem.message}
          </span>
        )}
        {payload && !payload.ok && !jsonProblem && <span className="field__error">{payload.reason}</span>}
      </div>

      {error && (
        <Callout tone="lost" role="alert">
          <strong>Not created</strong>
          <p>{error}</p>
        </Callout>
      )}
      <div className="form-actions">
        <span className="form-actions__hint">Enter to create · Esc to cancel</span>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn--primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create'}
        </button>
      </div>
    </form>
  );
}

function createErrorText(e: unknown, path: string, seenAs: string | null): string {
  if (!(e instanceof ApiError)) return errorText(e);
  switch (e.code) {
    case 'NODE_EXISTS':
      return `${path} already exists. Pick another name, or open it and edit its data.`;
    case 'NO_NODE':
      return 'The parent no longer exists: it was deleted meanwhile.';
    case 'NO_AUTH':
      return seenAs
        ? noAuthWriteText('the parent’s', 'create children', seenAs)
        : `ZooKeeper refused: the parent's ACL does not let the console create children (${e.message}).`;
    case 'OUTCOME_UNKNOWN':
      return `${e.message}. Check whether the node exists before trying again.`;
    default:
      return writeErrorText(e, 'create', seenAs);
  }
}
