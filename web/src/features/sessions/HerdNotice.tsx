/**
 * The request-rate herd of this gathering (the server finds it from the sessions' rates): the
 * same alert card as the ensemble view's, with what it is, why it matters and what to do. It
 * goes away by itself at the first gathering after the loop stops, so it has no dismiss.
 */
import type { Alert } from '@keeper/shared';
import '../../ui/alerts.css';

export function HerdNotice({ alerts }: { alerts: readonly Alert[] }) {
  if (alerts.length === 0) return null;
  return (
    <section className="alerts sessions__alerts" aria-label="Session alerts">
      {alerts.map((a) => (
        <article key={a.id} className={`alert tone-${a.severity === 'critical' ? 'lost' : 'degraded'}`} aria-label={a.title} role="alert">
          <div className="alert__head">
            <span className="status alert__severity">{a.severity}</span>
            <h3 className="alert__title">{a.title}</h3>
          </div>
          <p className="alert__why">{a.why}</p>
          <p className="alert__action">
            <span className="alert__label">What to do</span> {a.action}
          </p>
        </article>
      ))}
    </section>
  );
}
