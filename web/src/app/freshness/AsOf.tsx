import { formatAbsolute, formatClock } from '../../lib/time';
import type { Freshness } from './freshness';
import './freshness.css';

/**
 * The grey "as of 14:02:31" (or "unconfirmed since 14:02:31") note every view shows while its data
 * is not live. Renders nothing when live. `data-as-of` carries the exact time for tests and scripts.
 */
export function AsOf({ freshness }: { freshness: Freshness }) {
  if (freshness.live) return null;
  const label = freshness.label ?? 'as of';
  return (
    <span
      className="as-of"
      role="note"
      data-as-of={freshness.asOf ?? undefined}
      title={freshness.asOf === null ? freshness.reason : `${label} ${formatAbsolute(freshness.asOf)} — ${freshness.reason}`}
    >
      <span className="as-of__dot" aria-hidden="true" />
      {freshness.asOf === null ? 'not live' : `${label} ${formatClock(freshness.asOf)}`}
      <span className="as-of__why"> · {freshness.reason}</span>
    </span>
  );
}
