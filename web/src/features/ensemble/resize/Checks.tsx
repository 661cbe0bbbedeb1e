/** A preflight's or a step's checks, each passing or failing with what it saw. */
import type { ReconfigWorkflow } from '@keeper/shared';
import { formatAbsolute, formatClock } from '../../../lib/time';
import { checkLabel } from './resizeWords';

export function Checks({ checks, label, empty }: { checks: ReconfigWorkflow['preflight']; label: string; empty: string }) {
  if (checks.length === 0) return empty ? <p className="note">{empty}</p> : null;
  const failing = checks.filter((c) => !c.ok).length;
  return (
    <div className="resize-checks">
      <p className={`resize-checks__head tone-${failing === 0 ? 'live' : 'lost'}`}>
        <span className="status">{failing === 0 ? 'all passed' : `${failing} failing`}</span>{' '}
        <time className="muted" dateTime={new Date(checks[0]!.at).toISOString()} title={formatAbsolute(checks[0]!.at)}>
          at {formatClock(checks[0]!.at)}
        </time>
      </p>
      <ul className="resize-check-list" aria-label={label}>
        {checks.map((c) => (
          <li key={c.id} className={`resize-check tone-${c.ok ? 'live' : 'lost'}`}>
            <span className="status resize-check__word">{c.ok ? 'ok' : 'failing'}</span>
            <span className="resize-check__label">{checkLabel(c.id)}</span>
            <span className="resize-check__saw">{c.saw}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
