/**
 * Export a subtree as JSON (a keeper-export file the import reads back): counts it first, so the
 * operator knows the size before waiting, then downloads it; Cancel aborts the request.
 */
import { useEffect, useRef, useState } from 'react';
import { MAX_EXPORT_NODES } from '@keeper/shared';
import { Dialog } from '../../../ui/Dialog';
import { ApiError, errorText } from '../../../lib/api';
import { formatBytes, formatCount } from '../../../lib/bytes';
import { countSubtree, exportSubtree, type SubtreeCount } from '../ops/opsApi';
import { exportFileName } from './importModel';
import { Callout } from '../../../ui/Callout';
import '../../../ui/forms.css';
import './transfer.css';

export function ExportDialog({ ensemble, path, open, onClose }: { ensemble: string; path: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Export subtree" className="transfer-dialog">
      {open && <ExportFlow ensemble={ensemble} path={path} onClose={onClose} />}
    </Dialog>
  );
}

type State =
  | { kind: 'counting' }
  | { kind: 'ready'; count: SubtreeCount }
  | { kind: 'exporting'; count: SubtreeCount }
  | { kind: 'done'; nodes: number; bytes: number; file: string; skipped: string[] }
  | { kind: 'failed'; message: string; count: SubtreeCount | null };

function ExportFlow({ ensemble, path, onClose }: { ensemble: string; path: string; onClose: () => void }) {
  const [state, setState] = useState<State>({ kind: 'counting' });
  const abortRef = useRef<AbortController | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    countSubtree(ensemble, path, abort.signal).then(
      (count) => setState({ kind: 'ready', count }),
      (e: unknown) => !abort.signal.aborted && setState({ kind: 'failed', message: errorText(e), count: null }),
    );
    return () => {
      abort.abort();
      abortRef.current?.abort();
    };
  }, [ensemble, path]);

  const start = async (count: SubtreeCount) => {
    const abort = new AbortController();
    abortRef.current = abort;
    setState({ kind: 'exporting', count });
    try {
      const doc = await exportSubtree(ensemble, path, abort.signal);
      const text = JSON.stringify(doc, null, 2);
      const file = exportFileName(ensemble, path, new Date());
      const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = file;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setState({ kind: 'done', nodes: doc.nodes.length, bytes: text.length, file, skipped: (doc.skipped ?? []).map((s) => s.path) });
    } catch (e) {
      if (abort.signal.aborted) return setState({ kind: 'ready', count });
      const message = e instanceof ApiError && e.code === 'TOO_MANY_NODES' ? `${e.message}. Export a smaller subtree (one of its children).` : errorText(e);
      setState({ kind: 'failed', message, count });
    }
  };

  const tooMany = (c: SubtreeCount) => c.truncated || c.count > MAX_EXPORT_NODES;

  return (
    <div className="transfer-flow">
      <p className="transfer-lead">
        <span className="mono">{path}</span> and everything under it, with data (base64), ACLs and stats, as one JSON file.
      </p>
      {state.kind === 'counting' && (
        <p className="muted" aria-busy="true">
          Counting nodes…
        </p>
      )}
      {(state.kind === 'ready' || state.kind === 'exporting') && (
        <p>
          <strong>{formatCount(state.count.count)}</strong> {state.count.count === 1 ? 'node' : 'nodes'}
          {state.count.depth > 0 ? `, ${state.count.depth} ${state.count.depth === 1 ? 'level' : 'levels'} deep` : ''}.
          {tooMany(state.count) && (
            <span className="status tone-degraded"> more than an export holds ({formatCount(MAX_EXPORT_NODES)}): export a child instead</span>
          )}
        </p>
      )}
      {state.kind === 'exporting' && (
        <div className="progress is-indeterminate" role="progressbar" aria-label="Exporting">
          <div className="progress__fill" />
        </div>
      )}
      {state.kind === 'done' && (
        <Callout tone={state.skipped.length > 0 ? 'degraded' : 'live'} role="status">
          <strong>Downloaded {state.file}</strong>
          <p>
            {formatCount(state.nodes)} nodes, {formatBytes(state.bytes)}.
          </p>
          {state.skipped.length > 0 && (
            <p className="transfer-refusal">
              Left out, because the console may not read {state.skipped.length === 1 ? 'it' : 'them'} (nor anything below):{' '}
              <span className="mono">{state.skipped.slice(0, 5).join(', ')}</span>
              {state.skipped.length > 5 ? ` and ${formatCount(state.skipped.length - 5)} more (listed in the file's "skipped")` : ''}.
            </p>
          )}
        </Callout>
      )}
      {state.kind === 'failed' && (
        <Callout tone="lost" role="alert">
          <strong>Not exported</strong>
          <p>{state.message}</p>
        </Callout>
      )}
      <div className="form-actions">
        {state.kind === 'exporting' ? (
          <button type="button" className="btn btn--outline" onClick={() => abortRef.current?.abort()}>
            Cancel
          </button>
        ) : (
          <button type="button" className="btn" onClick={onClose}>
            {state.kind === 'done' ? 'Close' : 'Cancel'}
          </button>
        )}
        {state.kind === 'ready' && (
          <button type="button" className="btn btn--primary" autoFocus disabled={tooMany(state.count)} onClick={() => void start(state.count)}>
            Download JSON
          </button>
        )}
      </div>
    </div>
  );
}
