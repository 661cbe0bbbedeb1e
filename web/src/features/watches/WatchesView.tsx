/**
 * The watches view at /ensembles/:name/watches: how many watches each member holds (wchs, cheap),
 * and on request which paths are watched by how many sessions (wchp, expensive), with the herds.
 */
import { useParams } from 'react-router-dom';
import { formatAbsolute } from '../../lib/time';
import { useNow } from '../../lib/useNow';
import { allowedAt } from '../../lib/gatherSchedule';
import { RelativeTime } from '../../ui/RelativeTime';
import { errorText } from '../../lib/api';
import { Refresh } from '../../ui/icons';
import { ViewHeader } from '../../app/ViewHeader';
import { ByPathPanel } from './ByPathPanel';
import { distinctPaths, headline, totals } from './watchFigures';
import { useByPathResult, useRunByPath, useWatches } from './watchesApi';
import { WatchSummary } from './WatchSummary';
import '../../ui/callout.css';
import '../../ui/table.css';
import './watches.css';

export function WatchesView() {
  const ensemble = useParams().name ?? '';
  return <Watches key={ensemble} ensemble={ensemble} />;
}

function Watches({ ensemble }: { ensemble: string }) {
  const query = useWatches(ensemble);
  const byPath = useByPathResult(ensemble);
  const run = useRunByPath(ensemble);
  const data = query.data;
  const now = useNow();
  const sum = data ? totals(data.summary) : null;
  const distinct = distinctPaths(byPath, now);
  const line = data && sum ? headline(sum, data.summary.length, distinct) : null;
  // Every answer says when wchp is allowed again; a refusal (429) may say later.
  const blockedUntil = data ? allowedAt(query.dataUpdatedAt, data.byPathNextInSeconds ?? 0, run.refusedUntil, now) : null;

  return (
    <div className="view watches">
      <ViewHeader
        title="Watches"
        aside={
          data && (
            <span className="watches__read">
              <span className="muted">
                read <RelativeTime at={query.dataUpdatedAt} />
              </span>
              <button
                type="button"
                className="btn btn--icon"
                aria-label="Read the summary again"
                title={`Read wchs again (last read ${formatAbsolute(query.dataUpdatedAt)})`}
                onClick={() => void query.refetch()}
                disabled={query.isFetching}
              >
                <Refresh size={14} />
              </button>
            </span>
          )
        }
      >
        {line && <span title={line.title}>{line.text}</span>}
      </ViewHeader>
      <div className="watches__body">
        <section className="wsection" aria-label="Watches per member">
          <h2 className="section-title">Per member (wchs)</h2>
          {data ? (
            <>
              <WatchSummary ensemble={ensemble} summary={data.summary} distinctPaths={distinct} />
              <p className="note">
                wchs counts every watch a member holds for its clients, data and child watches alike (like mntr’s zk_watch_count). A client’s watches live on
                the member it is connected to.
              </p>
            </>
          ) : query.error ? (
            <p className="error-note" role="alert">
              <span className="status tone-lost">cannot read watches</span> {errorText(query.error)}{' '}
              <button type="button" className="btn btn--outline" onClick={() => void query.refetch()}>
                Retry
              </button>
            </p>
          ) : (
            <p className="note" aria-busy="true">
              Reading wchs from the members…
            </p>
          )}
          {query.isRefetchError && data && (
            <p className="error-note" role="alert">
              <span className="status tone-stale">not refreshed</span> {errorText(query.error)}
            </p>
          )}
        </section>
        {data && (
          <ByPathPanel
            ensemble={ensemble}
            costWarning={data.costWarning}
            result={byPath}
            run={{ run: run.run, pending: run.pending, error: run.error, blockedUntil }}
            members={data.summary.length}
          />
        )}
      </div>
    </div>
  );
}
