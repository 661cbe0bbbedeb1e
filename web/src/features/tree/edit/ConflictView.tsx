/**
 * What a stale save shows instead of overwriting: the value that won (from the 409) next to the
 * operator's, changed lines marked, and three ways on: take theirs, edit on top of theirs, or
 * overwrite with mine at the version now there. Nothing is written until one is chosen.
 */
import { useMemo, useState, type ReactNode } from 'react';
import type { ZnodeStat } from '@keeper/shared';
import { CopyButton } from '../../../ui/CopyButton';
import { RelativeTime } from '../../../ui/RelativeTime';
import { formatCount } from '../../../lib/bytes';
import { prettyJson } from './jsonCheck';
import { sideBySide, type DiffLine } from './lineDiff';
import { Callout } from '../../../ui/Callout';

export function ConflictView({
  path,
  baseVersion,
  current,
  theirsText,
  theirsTruncated,
  mineText,
  source,
  busy,
  onTakeTheirs,
  onEditTheirs,
  onOverwrite,
}: {
  path: string;
  baseVersion: number;
  current: ZnodeStat;
  theirsText: string;
  theirsTruncated: boolean;
  mineText: string;
  /** 'save': the server refused a save (409); 'live': the live view showed a newer version first. */
  source: 'save' | 'live';
  busy: boolean;
  onTakeTheirs: () => void;
  onEditTheirs: (() => void) | null;
  onOverwrite: () => void;
}) {
  // Two JSON values written differently (one line vs indented) compare best formatted alike.
  const pretty = useMemo(() => {
    const theirs = theirsTruncated ? null : prettyJson(theirsText);
    const mine = prettyJson(mineText);
    return theirs !== null && mine !== null ? { theirs, mine } : null;
  }, [theirsText, mineText, theirsTruncated]);
  const [formatted, setFormatted] = useState(true);
  const asJson = pretty !== null && formatted;
  const diff = useMemo(() => (asJson ? sideBySide(pretty.theirs, pretty.mine) : sideBySide(theirsText, mineText)), [asJson, pretty, theirsText, mineText]);
  const differs = diff.added + diff.removed;
  return (
    <section className="conflict" role="alert" aria-labelledby="conflict-title">
      <Callout tone="degraded">
        <strong id="conflict-title">
          {source === 'save' ? 'Not saved: ' : ''}
          <span className="mono">{path}</span> changed since you opened it
        </strong>
        <p>
          You started from version <span className="mono">{baseVersion}</span>; it is now version <span className="mono">{current.version}</span>, changed{' '}
          <RelativeTime at={current.mtime} />. {source === 'save' ? 'Nothing was written.' : 'Nothing has been written yet.'} Compare, then choose.
        </p>
      </Callout>
      <div className="conflict__cols">
        <DiffColumn title={`Current value · version ${current.version}`} note={theirsTruncated ? 'first 64 KiB shown' : null} lines={diff.left} kind="theirs" />
        <DiffColumn title="Your value" note={null} lines={diff.right} kind="mine" action={<CopyButton text={mineText} label="Copy your value" />} />
      </div>
      <p className="conflict__summary muted">
        {pretty !== null && (
          <button
            type="button"
            className="segmented__btn conflict__format"
            aria-pressed={asJson}
            onClick={() => setFormatted((f) => !f)}
            title="Both values parse as JSON"
          >
            Compare formatted
          </button>
        )}
        {differs === 0
          ? asJson
            ? 'The two values are the same JSON, written differently.'
            : 'The two values are the same text.'
          : `${formatCount(diff.removed)} ${diff.removed === 1 ? 'line' : 'lines'} only in theirs, ${formatCount(diff.added)} only in yours${diff.approximate ? ' (compared line by line at the same position: the values are large)' : ''}.`}
      </p>
      <div className="form-actions conflict__actions">
        <button type="button" className="btn btn--outline" onClick={onTakeTheirs} disabled={busy}>
          Take theirs
        </button>
        {onEditTheirs && (
          <button type="button" className="btn btn--outline" onClick={onEditTheirs} disabled={busy}>
            Edit theirs
          </button>
        )}
        <button type="button" className="btn btn--danger" onClick={onOverwrite} disabled={busy}>
          {busy ? 'Saving…' : `Overwrite with mine at version ${current.version}`}
        </button>
      </div>
    </section>
  );
}

function DiffColumn({
  title,
  note,
  lines,
  kind,
  action,
}: {
  title: string;
  note: string | null;
  lines: DiffLine[];
  kind: 'theirs' | 'mine';
  action?: ReactNode;
}) {
  return (
    <div className={`conflict__col conflict__col--${kind}`} role="region" aria-label={title}>
      <div className="conflict__col-head">
        <span>{title}</span>
        {note && <span className="muted">{note}</span>}
        <span className="conflict__col-spacer" />
        {action}
      </div>
      <pre className="conflict__text mono">
        {lines.map((l, i) => (
          <span key={i} className={`conflict__line${l.changed ? ' is-changed' : ''}`}>
            <span className="conflict__mark" aria-hidden="true">
              {l.changed ? (kind === 'mine' ? '+' : '−') : ' '}
            </span>
            {l.text === '' ? ' ' : l.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </div>
  );
}
