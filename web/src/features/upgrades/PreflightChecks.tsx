/** The preflight's five gates, each passing or failing with what it saw. */
import type { Check } from '@keeper/shared';
import { formatAbsolute, formatClock } from '../../lib/time';
import { CHECK_LABEL } from './upgradeWords';

export function PreflightChecks({ checks }: { checks: readonly Check[] }) {
  if (checks.length === 0) return <p className="note">The preflight has not run yet.</p>;
  const failing = checks.filter((c) => !c.ok).length;
  return (
    <div className="upgrade-preflight">
      <p className={`upgrade-preflight__head tone-${failing === 0 ? 'live' : 'lost'}`}>
        <span className="status">{failing === 0 ? 'preflight passed' : `preflight: ${failing} failing`}</span>{' '}
        <time className="muted" dateTime={new Date(checks[0]!.at).toISOString()} title={formatAbsolute(checks[0]!.at)}>
          at {formatClock(checks[0]!.at)}
        </time>
      </p>
      <ul className="upgrade-checks" aria-label="Preflight checks">
        {checks.map((c) => (
          <li key={c.id} className={`upgrade-check tone-${c.ok ? 'live' : 'lost'}`}>
            <span className="status upgrade-check__word">{c.ok ? 'ok' : 'failing'}</span>
            <span className="upgrade-check__label">{CHECK_LABEL[c.id]}</span>
            <span className="upgrade-check__saw">{c.saw}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
