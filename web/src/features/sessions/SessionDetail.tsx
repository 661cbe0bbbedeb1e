/** The expanded part of a session row: every flag in full, the figures, and its ephemeral nodes (links into the tree). */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { EnsembleSession } from '@keeper/shared';
import { formatAbsolute, formatClock } from '../../lib/time';
import { toHexId } from '../../lib/zxid';
import { CopyButton } from '../../ui/CopyButton';
import { count, duration, latencyTriple } from '../../ui/format';
import { znodeUrl } from '../../app/urls/treeUrls';
import { FLAG_LABEL } from './flags';
import { sessionUrl } from '../../app/urls/sessionUrls';

const EPHEMERALS_SHOWN = 100;

export function SessionDetail({ ensemble, session }: { ensemble: string; session: EnsembleSession }) {
  const [all, setAll] = useState(false);
  const id = toHexId(session.sessionId);
  const shown = all ? session.ephemerals : session.ephemerals.slice(0, EPHEMERALS_SHOWN);
  const expiresAt = session.expiresAt ?? null;
  return (
    // Clicks inside the detail (links, copy) must not collapse the row.
    <div role="cell" className="sdetail" onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
      {session.flags.length > 0 && (
        <ul className="sdetail__flags">
          {session.flags.map((f) => (
            <li key={f.kind} className="tone-degraded">
              <span className="badge">{FLAG_LABEL[f.kind]}</span> {f.message}
            </li>
          ))}
        </ul>
      )}
      <dl className="figure-grid sdetail__figures">
        <div>
          <dt>timeout</dt>
          <dd>{duration(session.timeoutMs)}</dd>
        </div>
        <div>
          <dt>latency min/avg/max</dt>
          <dd>{latencyTriple(session.latencyMin, session.latencyAvg, session.latencyMax)}</dd>
        </div>
        <div>
          <dt>queued</dt>
          <dd>{count(session.queued)}</dd>
        </div>
        <div>
          <dt>packets received / sent</dt>
          <dd>
            {count(session.received)} / {count(session.sent)}
          </dd>
        </div>
        <div>
          <dt>established</dt>
          <dd>{session.establishedAt === null ? '—' : formatAbsolute(session.establishedAt)}</dd>
        </div>
        <div>
          <dt>last response</dt>
          <dd>{session.lastResponseAt === null ? '—' : formatAbsolute(session.lastResponseAt)}</dd>
        </div>
        {expiresAt !== null && (
          // A time, not a countdown: it was true at the gathering, and the client may have been heard since.
          <div title={`The leader expires it at ${formatAbsolute(expiresAt)} if nothing is heard from it after the gathering`}>
            <dt>expires if silent</dt>
            <dd>at {formatClock(expiresAt)}</dd>
          </div>
        )}
      </dl>
      <div className="sdetail__ephemerals">
        <h4 className="section-title">
          Ephemeral nodes <span className="sdetail__count">{count(session.ephemeralCount)}</span>
        </h4>
        {session.ephemerals.length === 0 ? (
          <p className="note">{session.ephemeralCount > 0 ? 'Not listed (dump was not available).' : 'None: this session owns no ephemeral node.'}</p>
        ) : (
          <ul className="sdetail__paths">
            {shown.map((p) => (
              <li key={p}>
                <Link className="mono link" to={znodeUrl(ensemble, p)}>
                  {p}
                </Link>
              </li>
            ))}
          </ul>
        )}
        {session.ephemerals.length > EPHEMERALS_SHOWN && (
          <button type="button" className="linklike" onClick={() => setAll((a) => !a)}>
            {all ? 'show fewer' : `show all ${count(session.ephemerals.length)}`}
          </button>
        )}
      </div>
      <div className="sdetail__actions">
        <span>
          <CopyButton text={id} label="Copy session id" /> id
        </span>
        <span>
          <CopyButton text={`${window.location.origin}${sessionUrl(ensemble, id)}`} label="Copy link to this session" /> link
        </span>
      </div>
    </div>
  );
}
