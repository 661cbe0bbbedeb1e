/**
 * "Edit data": the value as it was when the editor opened, edited as text, JSON (checked live,
 * the broken line marked, pretty-print) or base64, saved with the version it was opened at. A
 * stale save is refused by the server (409) and shown as a conflict; nothing is overwritten
 * unless the operator says so, at the version they have now seen.
 */
import { useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import type { EncodedData, ZnodeState } from '@keeper/shared';
import { Dialog } from '../../../ui/Dialog';
import { useZnodeEntry } from '../znodeTopic';
import { ApiError, errorText } from '../../../lib/api';
import { noAuthWriteText, writeErrorText } from '../../../app/writeErrors';
import { useSeenAs } from '../../../app/consoleSession/consoleSessionTopic';
import { formatBytes } from '../../../lib/bytes';
import { readWholeValue, setZnodeData, staleVersionOf, type StaleVersion } from '../ops/opsApi';
import { CodeEditor } from './CodeEditor';
import { ConflictView } from './ConflictView';
import { checkJson, prettyJson } from './jsonCheck';
import { convertFormat, FORMAT_LABELS, initialFormat, isUnchanged, offsetOfLine, payloadFor, textFor, type EditorFormat } from './editorModel';
import { Callout } from '../../../ui/Callout';
import '../../../ui/forms.css';
import './edit.css';

interface Base {
  version: number;
  data: EncodedData;
}

export function EditDataDialog({ ensemble, path, open, onClose }: { ensemble: string; path: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Edit data" className="edit-dialog">
      {open && <EditSession ensemble={ensemble} path={path} onClose={onClose} />}
    </Dialog>
  );
}

/** Takes the value as it is when the dialog opens; a value longer than the live view carries is read in full first. */
function EditSession({ ensemble, path, onClose }: { ensemble: string; path: string; onClose: () => void }) {
  const entry = useZnodeEntry(ensemble, path);
  const seenAs = useSeenAs(ensemble);
  const [opened] = useState<Base | null>(() => (entry?.node.exists ? { version: entry.node.stat.version, data: entry.node.data } : null));
  const [full, setFull] = useState<Base | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const truncated = opened?.data.truncated ?? false;

  useEffect(() => {
    if (!truncated) return;
    const abort = new AbortController();
    // The live view carries the first 64 KiB; GET .../data has the stored bytes, whatever their size.
    readWholeValue(ensemble, path, abort.signal).then(
      (whole) => setFull(whole),
      (e: unknown) => {
        if (!abort.signal.aborted) setLoadError(errorText(e));
      },
    );
    return () => abort.abort();
  }, [ensemble, path, truncated]);

  if (!opened) {
    return (
      <Callout tone="stale" role="status">
        <strong>There is no value to edit</strong>
        <p>
          <span className="mono">{path}</span> does not exist (any more), or has not been read yet.
        </p>
      </Callout>
    );
  }
  if (truncated && !full) {
    return loadError ? (
      <Callout tone="lost" role="alert">
        <strong>Cannot read the whole value</strong>
        <p>
          It is {formatBytes(opened.data.size)}; the live view carries the first 64 KiB, and reading the rest failed: {loadError}
        </p>
      </Callout>
    ) : (
      <p className="muted" aria-busy="true">
        Reading the whole value ({formatBytes(opened.data.size)})…
      </p>
    );
  }
  return <Editor ensemble={ensemble} path={path} initial={full ?? opened} liveNode={entry?.node} seenAs={seenAs} onClose={onClose} />;
}

type Conflict = { current: StaleVersion; source: 'save' | 'live' };

/** The editor itself; `liveNode` is the node as the live view has it now (given, not read here, so tests render it without a socket). */
export function Editor({
  ensemble,
  path,
  initial,
  liveNode,
  seenAs = null,
  onClose,
}: {
  ensemble: string;
  path: string;
  initial: Base;
  liveNode: ZnodeState | undefined;
  /** "ZooKeeper sees Keeper as …" (whoAmI), for a NO_AUTH refusal; null when not known. */
  seenAs?: string | null;
  onClose: () => void;
}) {
  const [base, setBase] = useState<Base>(initial);
  const [format, setFormat] = useState<EditorFormat>(() => initialFormat(initial.data));
  const [text, setText] = useState(() => textFor(initial.data, initialFormat(initial.data)));
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [savedNote, setSavedNote] = useState<string | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);

  const checked = useDeferredValue(text);
  const jsonProblem = useMemo(() => (format === 'json' ? checkJson(checked) : null), [format, checked]);
  const payload = useMemo(() => payloadFor(format, checked), [format, checked]);
  const unchanged = useMemo(() => isUnchanged(base.data, format, checked), [base.data, format, checked]);

  const liveVersion = liveNode?.exists ? liveNode.stat.version : null;
  const changedLive = liveNode !== undefined && (liveNode.exists ? liveNode.stat.version !== base.version : true);

  const save = async (version: number) => {
    const p = payloadFor(format, text);
    if (!p.ok) {
      setError(p.reason);
      return;
    }
    setSaving(true);
    setError(null);
    try {
      const answer = await setZnodeData(ensemble, path, { data: p.data, encoding: p.encoding, version });
      if (answer.note) setSavedNote(answer.note);
      else onClose();
    } catch (e) {
      const stale = staleVersionOf(e);
      if (stale) setConflict({ current: stale, source: 'save' });
      else setError(saveErrorText(e, seenAs));
    } finally {
      setSaving(false);
    }
  };

  const changeFormat = (next: EditorFormat) => {
    const converted = convertFormat(format, next, text);
    if (!converted.ok) return setError(converted.reason);
    setError(null);
    setFormat(next);
    setText(converted.text);
  };

  const goToError = () => {
    const t = inputRef.current;
    if (!t || !jsonProblem) return;
    const at = offsetOfLine(text, jsonProblem.line) + jsonProblem.column - 1;
    t.focus();
    t.setSelectionRange(at, at);
  };

  if (savedNote) {
    return (
      <div className="edit-saved">
        <Callout tone="degraded" role="status">
          <strong>Saved, after a lost reply</strong>
          <p>{savedNote}</p>
        </Callout>
        <div className="form-actions">
          <button type="button" className="btn btn--primary" onClick={onClose} autoFocus>
            Done
          </button>
        </div>
      </div>
    );
  }

  if (conflict) {
    const theirs = conflict.current;
    return (
      <ConflictView
        path={path}
        baseVersion={base.version}
        current={theirs.stat}
        theirsText={textFor(theirs.data, format)}
        theirsTruncated={theirs.data.truncated}
        mineText={text}
        source={conflict.source}
        busy={saving}
        onTakeTheirs={onClose}
        onEditTheirs={
          theirs.data.truncated
            ? null
            : () => {
                setBase({ version: theirs.stat.version, data: theirs.data });
                setText(textFor(theirs.data, format));
                setConflict(null);
              }
        }
        onOverwrite={() => void save(theirs.stat.version)}
      />
    );
  }

  const sizeNote = payload.ok ? formatBytes(payload.bytes) : null;
  return (
    <form
      className="edit-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!unchanged) void save(base.version);
      }}
    >
      <div className="edit-bar">
        <span className="edit-bar__path mono" title={path}>
          {path}
        </span>
        <div className="segmented" role="group" aria-label="Edit as">
          {(['text', 'json', 'base64'] as const).map((f) => (
            <button key={f} type="button" className="segmented__btn" aria-pressed={format === f} onClick={() => changeFormat(f)}>
              {FORMAT_LABELS[f]}
            </button>
          ))}
        </div>
        {format === 'json' && (
          <button
            type="button"
            className="btn btn--outline btn--small"
            disabled={jsonProblem !== null}
            title={jsonProblem ? 'Fix the JSON first' : 'Indent by two spaces'}
            onClick={() => {
              const pretty = prettyJson(text);
              if (pretty !== null) setText(pretty);
            }}
          >
            Pretty-print
          </button>
        )}
        <span className="edit-bar__spacer" />
        <span className="edit-bar__meta muted">
          opened at version <span className="mono">{base.version}</span> · {formatBytes(base.data.size)}
          {sizeNote && !unchanged ? <> → {sizeNote}</> : null}
        </span>
      </div>
      {changedLive && (
        <Callout tone="degraded" role="status" className="edit-live">
          {liveVersion === null ? (
            <p>
              <strong>Deleted meanwhile.</strong> Another client deleted this node after you opened it: saving will fail.
            </p>
          ) : (
            <p>
              <strong>Changed meanwhile:</strong> another client wrote version <span className="mono">{liveVersion}</span> after you opened version{' '}
              <span className="mono">{base.version}</span>. Saving will be refused; compare first.{' '}
              {liveNode?.exists && (
                <button
                  type="button"
                  className="btn btn--outline btn--small"
                  onClick={() => setConflict({ current: { stat: liveNode.stat, data: liveNode.data }, source: 'live' })}
                >
                  Compare with version {liveVersion}
                </button>
              )}
            </p>
          )}
        </Callout>
      )}
      <CodeEditor
        value={text}
        onChange={(v) => {
          setText(v);
          setError(null);
        }}
        label="Znode data editor"
        errorLine={jsonProblem?.line ?? null}
        wrap={format === 'base64'}
        onSubmit={() => {
          if (!unchanged && !saving) void save(base.version);
        }}
        inputRef={inputRef}
      />
      <div className="edit-status" aria-live="polite">
        {format === 'json' &&
          (jsonProblem ? (
            <button type="button" className="edit-status__problem" onClick={goToError} title="Go to the problem">
              <span className="status tone-lost">invalid JSON</span>
              <span>
                line {jsonProblem.line}, column {jsonProblem.column}: {jsonProblem.message}
              </span>
            </button>
          ) : (
            <span className="status tone-live">valid JSON</span>
          ))}
        {format === 'base64' && !payload.ok && <span className="status tone-lost">{payload.reason}</span>}
        {format === 'base64' && payload.ok && <span className="muted">base64 of {formatBytes(payload.bytes)}; line breaks are ignored</span>}
        {format === 'text' && <span className="muted">saved as UTF-8 text</span>}
        {payload.ok === false && format !== 'base64' && format !== 'json' && <span className="status tone-lost">{payload.reason}</span>}
      </div>
      {error && (
        <Callout tone="lost" role="alert">
          <strong>Not saved</strong>
          <p>{error}</p>
        </Callout>
      )}
      <div className="form-actions">
        <span className="form-actions__hint">Ctrl+Enter to save · Esc to cancel</span>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button
          type="submit"
          className="btn btn--primary"
          disabled={saving || unchanged || !payload.ok}
          title={unchanged ? 'Nothing changed' : `Save, if the node is still at version ${base.version}`}
        >
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

function saveErrorText(e: unknown, seenAs: string | null): string {
  if (e instanceof ApiError) {
    switch (e.code) {
      case 'OUTCOME_UNKNOWN':
        return `${e.message}. Look at the node's value before saving again.`;
      case 'NO_NODE':
        return 'The node no longer exists: it was deleted after you opened it.';
      case 'NO_AUTH':
        return seenAs
          ? noAuthWriteText('the node’s', 'write it', seenAs)
          : `ZooKeeper refused: the node's ACL does not let the console write it (${e.message}).`;
      default:
        return writeErrorText(e, 'edit');
    }
  }
  return errorText(e);
}
