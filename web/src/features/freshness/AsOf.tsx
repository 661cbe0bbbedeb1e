import { formatAbsolute, formatClock } from '../../lib/time';
import type { Freshness } from './freshness';
import './freshness.css';

/** The grey "as of 14:02:31" note every view shows while its data is not live. Renders nothing when live. */
export function AsOf({ freshness }: { freshness: Freshness }) {
  if (freshness.live) return null;
  return (
    <span className="as-of" role="note" title={freshness.asOf === null ? freshness.reason : `${formatAbsolute(freshness.asOf)} — ${freshness.reason}`}>
      <span className="as-of__dot" aria-hidden="true" />
      {freshness.asOf === null ? 'not live' : `as of ${formatClock(freshness.asOf)}`}
      <span className="as-of__why"> · {freshness.reason}</span>
    </span>
  );
}
