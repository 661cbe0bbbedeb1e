/**
 * "Watches by path (wchp)": expensive on a big member (the docs warn it holds a lock for the whole
 * dump), so the cost is stated beside the button, a confirmation restates it, and the server
 * rate-limits it. The answer: paths with the most watchers, and herd warnings (many sessions on
 * one path: every change wakes them all at once).
 */
import { useDeferredValue, useState } from 'react';
import { Link } from 'react-router-dom';
import { formatClock } from '../../lib/time';
import { useNow } from '../../lib/useNow';
import { toHexId } from '../../lib/zxid';
import { Dialog } from '../../ui/Dialog';
import { RelativeTime } from '../../ui/RelativeTime';
import { FilterField } from '../../ui/FilterField';
import { errorText } from '../../lib/api';
import { count, plural } from '../../ui/format';
import { sessionUrl } from '../../app/urls/sessionUrls';
import { znodeUrl } from '../../app/urls/treeUrls';
import { consoleFirst, topPaths, watchedByConsole } from './watchFigures';
import type { ByPath } from './watchesApi';

const ROWS_SHOWN = 200;
const SESSIONS_SHOWN = 3;

export function ByPathPanel({
  ensemble,
  costWarning,
  result,
  run,
  members,
}: {
  ensemble: string;
  costWarning: string;
  result: ByPath | undefined;
  run: { run: () => void; pending: boolean; error: unknown; blockedUntil: number | null };
  members: number;
}) {
  const [confirming, setConfirming] = useState(false);
  const now = useNow();
  const blockedFor = run.blockedUntil === null ? 0 : Math.max(0, Math.ceil((run.blockedUntil - now) / 1000));
  return (
    <section className="wsection" aria-label="Watches by path">
      <h2 className="section-title">Watches by path</h2>
      <div className="bypath__action">
        <button
          type="button"
          className="btn btn--outline btn--primary"
          disabled={run.pending || blockedFor > 0}
          aria-busy={run.pending}
          onClick={() => setConfirming(true)}
        >
          Watches by path (wchp)
        </button>
        <p className="bypath__cost tone-degraded">
          <span className="status">costly</span> {costWarning}
        </p>
      </div>
      {run.pending && (
        <p className="note" role="status">
          Running wchp on every member…
        </p>
      )}
      {blockedFor > 0 && !run.pending && (
        <p className="note" role="status">
          The server runs wchp at most every 30 s per ensemble: the next is allowed in {blockedFor} s ({formatClock(run.blockedUntil ?? now)}).
        </p>
      )}
      {run.error !== null && run.error !== undefined && blockedFor === 0 && (
        <p className="error-note" role="alert">
          <span className="status tone-lost">failed</span> {errorText(run.error)}
        </p>
      )}
      <Dialog open={confirming} onClose={() => setConfirming(false)} title="Run wchp on every member?">
        <div className="bypath__confirm">
          <p>
            Keeper will ask {plural(members, 'member')} for every watched path and the sessions watching it. {costWarning}
          </p>
          <p className="note">Prefer a quiet moment on a large ensemble. The per-member summary above (wchs) is cheap and usually enough.</p>
          <div className="bypath__buttons">
            <button type="button" className="btn btn--outline" onClick={() => setConfirming(false)}>
              Cancel
            </button>
            <button
              type="button"
              className="btn btn--outline btn--primary"
              autoFocus
              onClick={() => {
                setConfirming(false);
                run.run();
              }}
            >
              Run wchp
            </button>
          </div>
        </div>
      </Dialog>
      {result ? (
        <ByPathResult ensemble={ensemble} result={result} />
      ) : (
        <p className="note">Not run yet in this page. The result lists the most watched paths and herds.</p>
      )}
    </section>
  );
}

function ByPathResult({ ensemble, result }: { ensemble: string; result: ByPath }) {
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const { rows, matched } = topPaths(result.paths, deferred, ROWS_SHOWN);
  const consoleId = result.consoleSessionId ?? null;
  const consolePaths = result.paths.filter((p) => watchedByConsole(p, consoleId)).length;
  const distinct = result.distinctPaths ?? result.paths.length;
  return (
    <div className="bypath__result">
      <p className="bypath__when">
        Gathered <RelativeTime at={result.gatheredAt} /> · {plural(distinct, 'distinct watched path')}
        {distinct > result.paths.length && ` (the ${count(result.paths.length)} most watched listed)`}
        <span className="muted"> · data watches only (exists, getData); child watches are not listed by wchp</span>
      </p>
      {consoleId !== null && (
        <p className="bypath__console note">
          <span className="badge badge--accent">console</span> marks Keeper’s own session, <span className="mono">{toHexId(consoleId)}</span>, which watches the
          znodes browsers have open: {consolePaths > 0 ? plural(consolePaths, 'listed path') : 'none of the listed paths'}.
        </p>
      )}
      {result.gaps.length > 0 && (
        <p className="bypath__gaps tone-degraded">
          <span className="status">incomplete</span>
          {result.gaps.map((g) => (
            <span key={g.member}>
              <span className="mono">{g.member}</span>: {g.reason}
            </span>
          ))}
        </p>
      )}
      {result.herds.length > 0 && (
        <ul className="herds" aria-label="Herd warnings">
          {result.herds.map((h) => (
            <li key={h.path} className="herd tinted-edge tone-degraded">
              <span className="badge">herd</span>
              <Link className="mono link herd__path" to={znodeUrl(ensemble, h.path)}>
                {h.path}
              </Link>
              <span className="herd__count">{count(h.watchers)} watchers</span>
              <p className="herd__msg">{h.message}</p>
            </li>
          ))}
        </ul>
      )}
      {result.paths.length > 0 && (
        <>
          <FilterField className="bypath__filter" label="Filter watched paths" placeholder="Filter paths" value={query} onChange={setQuery} />
          <div className="wtable-wrap">
            <table className="data-table wtable wtable--paths" aria-label="Most watched paths">
              <thead>
                <tr>
                  <th scope="col">Path</th>
                  <th scope="col" className="num">
                    Watchers
                  </th>
                  <th scope="col">Sessions</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((p) => (
                  <tr key={p.path} className={watchedByConsole(p, consoleId) ? 'is-console' : undefined}>
                    <th scope="row" className="wtable__path">
                      <Link className="mono link" to={znodeUrl(ensemble, p.path)} title={p.path}>
                        {p.path}
                      </Link>
                    </th>
                    <td className="num mono">{count(p.watchers)}</td>
                    <td className="wtable__sessions">
                      <span className="wtable__ids">
                        {consoleFirst(p.sessions, consoleId)
                          .slice(0, SESSIONS_SHOWN)
                          .map((id) => (
                            <Link
                              key={id}
                              className="mono link"
                              to={sessionUrl(ensemble, toHexId(id))}
                              title={id === consoleId ? 'Keeper’s own session' : undefined}
                            >
                              {toHexId(id)}
                              {id === consoleId && (
                                <>
                                  {' '}
                                  <span className="badge badge--accent">console</span>
                                </>
                              )}
                            </Link>
                          ))}
                        {p.sessions.length > SESSIONS_SHOWN && <span className="muted">+{count(p.sessions.length - SESSIONS_SHOWN)} more</span>}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {matched > rows.length && (
            <p className="note">
              Showing the {ROWS_SHOWN} most watched of {count(matched)}; filter to find others.
            </p>
          )}
        </>
      )}
    </div>
  );
}
