/**
 * The sessions view at /ensembles/:name/sessions[/:id]: every client session on the ensemble
 * (cons joined with dump across members), gathered by the server on a slow cadence. Problems
 * first: flagged sessions sort to the top. `/` filters; a session's URL opens it expanded. Rates
 * (requests per second since the previous gathering) sort the busiest first, "By host" sums them
 * per client host, and a request herd the server found is shown above, with what to do.
 */
import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { clientHost } from '@keeper/shared';
import { toHexId } from '../../lib/zxid';
import { FilterField } from '../../ui/FilterField';
import { errorText } from '../../lib/api';
import { plural } from '../../ui/format';
import { ViewHeader } from '../../app/ViewHeader';
import { GatherBar } from './GatherBar';
import { HerdNotice } from './HerdNotice';
import { HostGroups } from './HostGroups';
import { groupByHost } from './rates';
import { SessionsTable } from './SessionsTable';
import { useGatherNow, useSessions } from './sessionsApi';
import { DEFAULT_SORT, filterSessions, nextSort, sameSessionId, sortSessions, SORT_KEYS, type Sort, type SortKey } from './sessionTable';
import { COLUMNS } from './columns';
import { sessionsUrl, sessionUrl } from '../../app/urls/sessionUrls';
import './sessions.css';

export function SessionsView() {
  const params = useParams();
  const ensemble = params.name ?? '';
  return <Sessions key={ensemble} ensemble={ensemble} selectedId={params.sessionId ?? null} />;
}

function Sessions({ ensemble, selectedId }: { ensemble: string; selectedId: string | null }) {
  const navigate = useNavigate();
  const query = useSessions(ensemble);
  const gather = useGatherNow(ensemble);
  const [text, setText] = useState('');
  const deferredText = useDeferredValue(text);
  const [flaggedOnly, setFlaggedOnly] = useState(false);
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const [byHost, setByHost] = useState(false);
  const [host, setHost] = useState<string | null>(null);

  const all = query.data?.sessions;
  const rows = useMemo(() => {
    const ofHost = host === null || !byHost ? (all ?? []) : (all ?? []).filter((s) => (s.client === '' ? '' : clientHost(s.client)) === host);
    return sortSessions(filterSessions(ofHost, deferredText, flaggedOnly), sort);
  }, [all, byHost, host, deferredText, flaggedOnly, sort]);
  const groups = useMemo(() => (byHost ? groupByHost(all ?? []) : []), [all, byHost]);
  const herd = query.data?.herd ?? null;
  const herdHosts = useMemo(() => new Set(herd?.hosts.map((h) => h.host) ?? []), [herd]);
  const ratesOver = query.data?.ratesOverSeconds ?? null;
  const flagged = useMemo(() => (all ?? []).filter((s) => s.flags.length > 0).length, [all]);
  const selectedExists = selectedId !== null && (all ?? []).some((s) => sameSessionId(s.sessionId, selectedId));
  const selectedHidden = selectedExists && !rows.some((s) => sameSessionId(s.sessionId, selectedId ?? ''));

  const onToggle = useCallback(
    (sessionId: string) => {
      const open = selectedId !== null && sameSessionId(sessionId, selectedId);
      navigate(open ? sessionsUrl(ensemble) : sessionUrl(ensemble, toHexId(sessionId)), { replace: false });
    },
    [ensemble, navigate, selectedId],
  );
  const onClose = useCallback(() => navigate(sessionsUrl(ensemble)), [ensemble, navigate]);
  const onSort = useCallback((key: SortKey) => setSort((s) => nextSort(s, key)), []);

  return (
    <div className="view sessions">
      <ViewHeader title="Sessions">
        {all && (
          <>
            {plural(all.length, 'session')} · {flagged === 0 ? 'none flagged' : `${flagged} flagged`}
            {ratesOver !== null && <> · rates over the last {ratesOver} s</>}
          </>
        )}
      </ViewHeader>
      <div className="sessions__body">
        {query.data ? (
          <GatherBar
            data={query.data}
            dataUpdatedAt={query.dataUpdatedAt}
            refreshError={query.isRefetchError ? query.error : null}
            control={gather}
            reading={query.isFetching}
          />
        ) : query.error ? (
          <div className="gather">
            <p className="error-note" role="alert">
              <span className="status tone-lost">cannot read sessions</span> {errorText(query.error)}{' '}
              <button type="button" className="btn btn--outline" onClick={() => void query.refetch()}>
                Retry
              </button>
            </p>
          </div>
        ) : (
          <div className="gather">
            <p className="note" aria-busy="true">
              Reading the sessions…
            </p>
          </div>
        )}
        <HerdNotice alerts={query.data?.alerts ?? []} />
        <div className="sessions__tools">
          <FilterField
            className="sessions__filter"
            label="Filter sessions"
            placeholder="Filter: id, client, member, path  /"
            value={text}
            onChange={setText}
            shortcut
          />
          <button type="button" className="btn btn--outline" aria-pressed={flaggedOnly} onClick={() => setFlaggedOnly((f) => !f)}>
            Flagged only{flagged > 0 ? ` (${flagged})` : ''}
          </button>
          <button
            type="button"
            className="btn btn--outline"
            aria-pressed={byHost}
            title="Sessions and requests per second summed by client host"
            onClick={() => setByHost((b) => !b)}
          >
            By host
          </button>
          <button
            type="button"
            className="btn btn--outline"
            aria-pressed={sort.key === 'rate' && sort.dir === 'desc'}
            title="The sessions sending the most requests per second first"
            onClick={() => setSort({ key: 'rate', dir: 'desc' })}
          >
            Busiest first
          </button>
          <label className="sessions__sort">
            <span className="muted">Sort</span>
            <select
              className="input"
              value={`${sort.key}:${sort.dir}`}
              onChange={(e) => {
                const [key, dir] = e.target.value.split(':');
                if (SORT_KEYS.includes(key as SortKey) && (dir === 'asc' || dir === 'desc')) setSort({ key: key as SortKey, dir });
              }}
            >
              {COLUMNS.flatMap((c) => [
                <option key={`${c.key}:asc`} value={`${c.key}:asc`}>
                  {c.label} ↑
                </option>,
                <option key={`${c.key}:desc`} value={`${c.key}:desc`}>
                  {c.label} ↓
                </option>,
              ])}
            </select>
          </label>
          <span className="sessions__count muted" aria-live="polite">
            {all === undefined ? '' : rows.length === all.length ? plural(all.length, 'session') : `showing ${rows.length} of ${all.length}`}
          </span>
        </div>
        {byHost && <HostGroups groups={groups} herdHosts={herdHosts} activeHost={host} onPick={(h) => setHost((current) => (current === h ? null : h))} />}
        {selectedId !== null && all !== undefined && !selectedExists && (
          <p className="sessions__missing error-note" role="note">
            <span className="status tone-stale">not found</span> Session <span className="mono">{selectedId}</span> is not in this gathering: it ended, or its
            member could not be asked.
          </p>
        )}
        {selectedHidden && (
          <p className="sessions__missing note" role="note">
            Session <span className="mono">{selectedId}</span> is hidden by the filter.
          </p>
        )}
        <SessionsTable ensemble={ensemble} sessions={rows} sort={sort} onSort={onSort} selectedId={selectedId} onToggle={onToggle} onClose={onClose} />
        {all !== undefined && rows.length === 0 && (
          <p className="sessions__empty note">
            {all.length === 0 ? 'No client sessions: nothing is connected to this ensemble.' : 'No session matches the filter.'}
          </p>
        )}
      </div>
    </div>
  );
}
