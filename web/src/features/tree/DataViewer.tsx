/** A znode's data: JSON pretty-printed and colored, text as is, binary as a hex dump or base64. */
import { useMemo, useState } from 'react';
import type { EncodedData } from '@keeper/shared';
import { formatBytes } from '../../lib/bytes';
import { CopyButton } from '../../ui/CopyButton';
import { pickMode, renderData, tokenizeJson, truncationNotice, viewModesFor, VIEW_LABELS, type DataViewMode } from './dataView';

const KIND_LABEL: Record<EncodedData['encoding'], string> = { json: 'JSON', utf8: 'UTF-8 text', base64: 'binary' };

export function DataViewer({ data }: { data: EncodedData }) {
  const modes = viewModesFor(data);
  const [chosen, setChosen] = useState<DataViewMode | null>(null);
  const mode = pickMode(data, chosen);
  const text = useMemo(() => renderData(data, mode), [data, mode]);
  // Prose and base64 read better wrapped; JSON and hex dumps are laid out in lines and columns.
  const [wrapChoice, setWrapChoice] = useState<boolean | null>(null);
  const wrap = wrapChoice ?? (mode === 'text' || mode === 'base64');
  const notice = truncationNotice(data);
  const empty = data.size === 0;

  return (
    <section className={`data-viewer${empty ? ' is-empty' : ''}`} aria-label="Znode data">
      <div className="data-viewer__bar">
        <div className="segmented" role="group" aria-label="Show data as">
          {modes.map((m) => (
            <button key={m} type="button" className="segmented__btn" aria-pressed={m === mode} onClick={() => setChosen(m)} disabled={empty}>
              {VIEW_LABELS[m]}
            </button>
          ))}
        </div>
        <span className="data-viewer__meta muted">
          {KIND_LABEL[data.encoding]} · {formatBytes(data.size)}
        </span>
        {notice && (
          <span className="data-viewer__truncated" role="note">
            {notice}
          </span>
        )}
        <span className="data-viewer__spacer" />
        {!empty && (
          <button type="button" className="segmented__btn" aria-pressed={wrap} onClick={() => setWrapChoice(!wrap)} title="Wrap long lines">
            Wrap
          </button>
        )}
        {!empty && <CopyButton text={text} label="Copy data as shown" />}
      </div>
      {empty ? (
        <p className="data-viewer__empty muted">No data (0 bytes).</p>
      ) : (
        <pre className={`data-viewer__pre mono${wrap ? ' is-wrapped' : ''}`} tabIndex={0}>
          {mode === 'json' ? <JsonText text={text} /> : text}
        </pre>
      )}
    </section>
  );
}

function JsonText({ text }: { text: string }) {
  // Beyond this, coloring costs more than it helps: show plain text.
  const tokens = useMemo(() => (text.length > 200_000 ? null : tokenizeJson(text)), [text]);
  if (tokens === null) return <>{text}</>;
  return (
    <>
      {tokens.map((t, i) =>
        t.kind === 'space' || t.kind === 'punct' ? (
          t.text
        ) : (
          <span key={i} className={`json-${t.kind}`}>
            {t.text}
          </span>
        ),
      )}
    </>
  );
}
