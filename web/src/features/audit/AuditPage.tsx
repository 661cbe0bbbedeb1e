/**
 * /audit: every write, sign-in and share-link event, newest first. Virtualized (a long trail
 * scrolls like a short one), filtered by any word (`/` focuses the box, `?q=` in the URL),
 * older pages loaded on demand. Each line says who, what, where, before → after, and how it ended.
 */
import { useDeferredValue, useMemo, useRef } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { AuditEntry } from '@keeper/shared';
import { errorText } from '../../lib/api';
import { formatCount } from '../../lib/bytes';
import { formatAbsolute, formatClock } from '../../lib/time';
import { RelativeTime } from '../../ui/RelativeTime';
import { useNow } from '../../lib/useNow';
import { FilterField } from '../../ui/FilterField';
import { AdminArea } from '../../app/AdminArea';
import { parseZnodeLocation, znodeUrl } from '../../app/urls/treeUrls';
import { useAuditTrail } from './auditApi';
import { actionLabel, changeOf, entryNote, matchesFilter, outcomeOf, shortenPath } from './auditFormat';
import { Callout } from '../../ui/Callout';
import '../../ui/table.css';
import './audit.css';

const ROW = 35;
const ROW_WITH_NOTE = 57;

export function AuditPage() {
  const [params, setParams] = useSearchParams();
  const query = params.get('q') ?? '';
  const deferred = useDeferredValue(query);
  const trail = useAuditTrail();
  const all = useMemo(() => trail.data?.pages.flatMap((p) => p.entries) ?? [], [trail.data]);
  const shown = useMemo(() => all.filter((e) => matchesFilter(e, deferred)), [all, deferred]);
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (shown[i] && entryNote(shown[i]) ? ROW_WITH_NOTE : ROW),
    getItemKey: (i) => shown[i]?.seq ?? i,
    overscan: 12,
  });

  const setQuery = (q: string) => {
    const next = new URLSearchParams(params);
    if (q === '') next.delete('q');
    else next.set('q', q);
    setParams(next, { replace: true });
  };

  const loaded = formatCount(all.length);
  const meta = trail.data
    ? query
      ? `${formatCount(shown.length)} of ${loaded} loaded entries match`
      : `${loaded} entries loaded${trail.hasNextPage ? '' : ' · the whole trail'}`
    : 'loading…';

  return (
    <AdminArea
      title="Audit"
      meta={meta}
      aside={
        <button type="button" className="btn btn--outline" onClick={() => void trail.refetch()} disabled={trail.isFetching}>
          {trail.isFetching && !trail.isFetchingNextPage ? 'Refreshing…' : 'Refresh'}
        </button>
      }
    >
      <div className="audit-tools">
        <FilterField
          className="audit-filter"
          label="Filter audit entries"
          placeholder="Filter: who, action, path, error, link id   /"
          value={query}
          onChange={setQuery}
          shortcut
        />
        <span className="audit-tools__note muted">Newest first. Data, passwords and tokens are never recorded: values appear as version · size · hash.</span>
      </div>
      {trail.error && (
        <Callout tone="lost" role="alert" className="audit-error">
          <strong>Cannot read the audit trail</strong>
          <p>{errorText(trail.error)}</p>
        </Callout>
      )}
      <div className="atable" role="table" aria-label="Audit entries" aria-rowcount={shown.length + 1}>
        <div role="rowgroup" className="atable__head">
          <div role="row" className="arow arow--head column-head">
            <span role="columnheader" className="acell acell--time">
              Time
            </span>
            <span role="columnheader" className="acell acell--who">
              Who
            </span>
            <span role="columnheader" className="acell acell--action">
              Action
            </span>
            <span role="columnheader" className="acell acell--where">
              Ensemble · path
            </span>
            <span role="columnheader" className="acell acell--change">
              Before → after
            </span>
            <span role="columnheader" className="acell acell--outcome">
              Outcome
            </span>
          </div>
        </div>
        <div ref={scrollRef} className="atable__scroll">
          <div role="rowgroup" className="atable__body" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((v) => {
              const entry = shown[v.index];
              if (!entry) return null;
              return (
                <div
                  key={v.key}
                  data-index={v.index}
                  ref={virtualizer.measureElement}
                  className="atable__item"
                  style={{ transform: `translateY(${v.start}px)` }}
                >
                  <AuditRow entry={entry} index={v.index} />
                </div>
              );
            })}
          </div>
          {trail.data && shown.length === 0 && (
            <p className="muted audit-empty">{query ? 'No loaded entry matches. Load older entries, or change the filter.' : 'Nothing recorded yet.'}</p>
          )}
          <div className="audit-more">
            {trail.hasNextPage ? (
              <button type="button" className="btn btn--outline" onClick={() => void trail.fetchNextPage()} disabled={trail.isFetchingNextPage}>
                {trail.isFetchingNextPage ? 'Loading…' : 'Load older entries'}
              </button>
            ) : trail.data ? (
              <span className="muted">{trail.data.pages[0]?.shared ? trail.data.pages[0].shared.note : 'That is the beginning of the trail.'}</span>
            ) : null}
          </div>
        </div>
      </div>
    </AdminArea>
  );
}

function ConsolePage({ path }: { path: string }) {
  const znode = parseZnodeLocation(path.split('?')[0] ?? path);
  return (
    <>
      {znode && <span className="muted">{znode.ensemble}</span>}
      <Link className="acell__path link" to={path} title={`page ${path}`} aria-label={path}>
        {shortenPath(znode ? znode.path : path, 40)}
      </Link>
    </>
  );
}

function sameDay(a: number, b: number): boolean {
  return new Date(a).toDateString() === new Date(b).toDateString();
}

function AuditRow({ entry, index }: { entry: AuditEntry; index: number }) {
  const change = changeOf(entry);
  const note = entryNote(entry);
  const { word, tone } = outcomeOf(entry);
  const now = useNow();
  const today = sameDay(entry.at, now);
  return (
    <div role="row" aria-rowindex={index + 2} className={`arow${note ? ' has-note' : ''}`}>
      <span role="cell" className="acell acell--time" title={formatAbsolute(entry.at)}>
        <span className="mono">{today ? formatClock(entry.at) : formatAbsolute(entry.at).slice(5, 16)}</span>
        <RelativeTime at={entry.at} className="muted acell__ago" />
      </span>
      <span
        role="cell"
        className="acell acell--who"
        title={`${entry.actor.name} · ${entry.actor.role ?? 'no role'} · via ${entry.actor.via}${entry.remoteAddress ? ` · from ${entry.remoteAddress}` : ''}${entry.replica ? ` · on replica ${entry.replica.name}` : ''}`}
      >
        <span className="acell__name">{entry.actor.name}</span>
        <span className="muted acell__role">{entry.actor.role ?? '—'}</span>
        {entry.replica && <span className="muted acell__replica">on {entry.replica.name}</span>}
      </span>
      <span role="cell" className="acell acell--action">
        {actionLabel(entry)}
      </span>
      <span role="cell" className="acell acell--where mono">
        {entry.ensemble && <span className="muted">{entry.ensemble}</span>}
        {entry.path &&
          (entry.ensemble ? (
            <Link className="acell__path link" to={znodeUrl(entry.ensemble, entry.path)} title={entry.path} aria-label={entry.path}>
              {shortenPath(entry.path, 40)}
            </Link>
          ) : entry.path.startsWith('/') ? (
            // A console page (share links): a znode page reads like the znode entries around it.
            <ConsolePage path={entry.path} />
          ) : (
            <span className="acell__path">{entry.path}</span>
          ))}
      </span>
      <span role="cell" className="acell acell--change mono">
        {change ? (
          <>
            <span className={change.before ? '' : 'muted'}>{change.before ?? 'none'}</span>
            <span className="acell__arrow" aria-label="to">
              →
            </span>
            <span className={change.after ? '' : 'muted'}>{change.after ?? (entry.outcome === 'ok' ? 'none' : 'unchanged')}</span>
          </>
        ) : (
          <span className="muted">—</span>
        )}
      </span>
      <span role="cell" className={`acell acell--outcome tone-${tone}`}>
        <span className="status">{word}</span>
      </span>
      {note && (
        <span role="cell" className={`acell acell--note tone-${tone}`} title={note}>
          {note}
        </span>
      )}
    </div>
  );
}
