/**
 * The poller's alerts: severity word and color, what is wrong, why it matters, what to do, and
 * the members involved. Each can be dismissed for this browser session; dismissed ones are one
 * click away, never silently lost.
 */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { Alert } from '@keeper/shared';
import { Close } from '../../ui/icons';
import { QUORUM_ALERT_IDS, type Tone } from './memberState';
import { RelativeTime } from '../../ui/RelativeTime';
import { ensembleViewUrl, memberUrl } from '../../app/urls/ensembleUrls';

const SEVERITY_TONE: Record<Alert['severity'], Tone> = { critical: 'lost', warning: 'degraded', info: 'stale' };

export function AlertList({
  ensemble,
  alerts,
  dismissed,
  onDismiss,
  onRestore,
  stale,
}: {
  ensemble: string;
  alerts: readonly Alert[];
  dismissed: ReadonlySet<string>;
  onDismiss: (id: string) => void;
  onRestore: () => void;
  stale: boolean;
}) {
  const [showDismissed, setShowDismissed] = useState(false);
  // The quorum banner above already says these, with what to do.
  const listed = alerts.filter((a) => !QUORUM_ALERT_IDS.has(a.id));
  const hidden = listed.filter((a) => dismissed.has(a.id));
  const shown = showDismissed ? listed : listed.filter((a) => !dismissed.has(a.id));
  if (alerts.length === 0) return <p className="alerts__none note">No alerts.</p>;
  if (listed.length === 0) return null;
  return (
    <section className="alerts" aria-label="Alerts">
      {shown.map((a) => (
        <AlertItem key={a.id} ensemble={ensemble} alert={a} dismissed={dismissed.has(a.id)} stale={stale} onDismiss={() => onDismiss(a.id)} />
      ))}
      {hidden.length > 0 && (
        <p className="alerts__hidden note">
          {hidden.length} dismissed for this session ·{' '}
          <button type="button" className="linklike" onClick={() => setShowDismissed((s) => !s)} aria-expanded={showDismissed}>
            {showDismissed ? 'hide them' : 'show them'}
          </button>{' '}
          ·{' '}
          <button type="button" className="linklike" onClick={onRestore}>
            restore all
          </button>
        </p>
      )}
    </section>
  );
}

function AlertItem({
  ensemble,
  alert,
  dismissed,
  stale,
  onDismiss,
}: {
  ensemble: string;
  alert: Alert;
  dismissed: boolean;
  stale: boolean;
  onDismiss: () => void;
}) {
  const tone = stale ? 'stale' : SEVERITY_TONE[alert.severity];
  // Members the title already names need no second mention.
  const extraMembers = alert.members.filter((m) => !alert.title.includes(m));
  return (
    <article className={`alert tone-${tone}${dismissed ? ' is-dismissed' : ''}`} aria-label={alert.title}>
      <div className="alert__head">
        <span className="status alert__severity">{alert.severity}</span>
        <h3 className="alert__title">{alert.title}</h3>
        {!dismissed && (
          <button
            type="button"
            className="btn btn--icon alert__dismiss"
            aria-label={`Dismiss: ${alert.title}`}
            title="Dismiss for this session"
            onClick={onDismiss}
          >
            <Close size={14} />
          </button>
        )}
      </div>
      <p className="alert__why">{alert.why}</p>
      <p className="alert__action">
        <span className="alert__label">What to do</span> {alert.action}
      </p>
      {(alert.see || alert.asOf !== undefined) && (
        <p className="alert__see note">
          {alert.asOf !== undefined && (
            // Its evidence is not this poll's: the sessions gathering it came from.
            <span>
              seen in the sessions gathering <RelativeTime at={alert.asOf} />
            </span>
          )}
          {alert.see && (
            <Link className="link" to={ensembleViewUrl(ensemble, alert.see.view)}>
              {alert.see.label} →
            </Link>
          )}
        </p>
      )}
      {extraMembers.length > 0 && (
        <p className="alert__members">
          {extraMembers.map((address) => (
            <Link key={address} className="mono link" to={memberUrl(ensemble, address)}>
              {address}
            </Link>
          ))}
        </p>
      )}
    </article>
  );
}
