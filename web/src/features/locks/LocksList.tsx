/**
 * The Locks list: one row per lock directory, worst first (the server's order, kept), with what
 * the leak check can say yet, the herds, what Keeper watches, and the last scan. Admins get
 * "Scan for locks…" and "Clean leaked…"; viewers see the same page without them.
 */
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { LOCK_LIST_PAGE, LOCK_LIST_PAGE_MAX, type LocksAnswer } from '@keeper/shared';
import { formatCount } from '../../lib/bytes';
import { FilterField } from '../../ui/FilterField';
import { plural } from '../../ui/format';
import { ViewHeader } from '../../app/ViewHeader';
import type { Freshness } from '../../app/freshness/freshness';
import { LockAdminTools } from './LockAdminTools';
import { LockContext } from './LockContext';
import { filterLocks } from './filterLocks';
import { LocksTable } from './LocksTable';
import { FIRST_PAGE, type LocksEntry, type LocksPage } from './locksTopic';
import '../../ui/table.css';
import '../../ui/sectionTitle.css';
import './locks.css';

export function LocksList({
  ensemble,
  entry,
  freshness,
  admin,
  page = FIRST_PAGE,
  onPage = () => {},
}: {
  ensemble: string;
  entry: LocksEntry | undefined;
  freshness: Freshness;
  admin: boolean;
  /** The page the view subscribes to, and how to ask for another (the filter and the rows wanted). */
  page?: LocksPage;
  onPage?: (page: LocksPage) => void;
}) {
  const data = entry?.kind === 'locks' ? entry.locks : undefined;
  return (
    <div className={`view locks${freshness.live ? '' : ' is-stale'}`}>
      <ViewHeader title="Locks" freshness={freshness} liveHint="Keeper watches every tracked lock directory: each change appears here as it happens">
        {data && <Headline data={data} />}
      </ViewHeader>
      <div className="locks__body">
        {entry?.kind === 'refused' ? (
          <p className="error-note locks__pad" role="alert">
            <span className="status tone-lost">cannot show locks</span> {entry.message}
          </p>
        ) : data === undefined ? (
          <p className="note locks__pad" aria-busy="true">
            Nothing to show yet — {freshness.live ? 'reading the locks' : freshness.reason}.
          </p>
        ) : (
          <ListBody ensemble={ensemble} data={data} admin={admin} notLive={freshness.live ? null : freshness.reason} page={page} onPage={onPage} />
        )}
      </div>
    </div>
  );
}

function Headline({ data }: { data: LocksAnswer }) {
  const leaked = data.counts.leaked;
  return (
    <>
      {plural(data.total, 'lock')}
      {data.q && ' matching'}
      {leaked > 0 && ` · ${formatCount(leaked)} with a leaked node`}
      {data.herds.length > 0 && ` · ${plural(data.herds.length, 'herd')}`}
    </>
  );
}

function ListBody({
  ensemble,
  data,
  admin,
  notLive,
  page,
  onPage,
}: {
  ensemble: string;
  data: LocksAnswer;
  admin: boolean;
  /** Why the data is not live, or null while it is. */
  notLive: string | null;
  page: LocksPage;
  onPage: (page: LocksPage) => void;
}) {
  const live = notLive === null;
  const [text, setText] = useState(page.q);
  const deferred = useDeferredValue(text);
  // The page in hand is filtered at once; the server then sends the page of every lock that matches.
  const rows = useMemo(() => filterLocks(data.locks, deferred), [data.locks, deferred]);
  const q = deferred.trim().slice(0, 200);
  useEffect(() => {
    if (q !== page.q) onPage({ q, limit: LOCK_LIST_PAGE });
  }, [q, page.q, onPage]);
  const more = data.total > data.locks.length && data.q === q;
  return (
    <>
      <LockContext ensemble={ensemble} data={data} admin={admin} />
      <div className="locks__tools">
        <FilterField
          className="locks__filter"
          label="Filter locks"
          placeholder="Filter: path, recipe, status, flag  /"
          value={text}
          onChange={setText}
          shortcut
        />
        {admin && <LockAdminTools ensemble={ensemble} root={data.root} notLive={notLive} />}
        <span className="locks__count muted" aria-live="polite">
          {rows.length < data.locks.length
            ? `showing ${formatCount(rows.length)} of ${formatCount(data.total)}`
            : data.locks.length < data.total
              ? `the ${formatCount(data.locks.length)} worst of ${plural(data.total, 'lock')}`
              : plural(data.total, 'lock')}
        </span>
      </div>
      {data.locks.length === 0 ? (
        <p className="note locks__pad">
          No lock directories tracked yet. {data.roots.length === 0 ? 'No lock roots are configured (locks.roots in the config file). ' : ''}
          {admin ? 'Scan a subtree to find the locks in it.' : 'An admin can scan a subtree to find the locks in it.'}
        </p>
      ) : rows.length === 0 ? (
        <p className="note locks__pad">No lock matches the filter.</p>
      ) : (
        <LocksTable ensemble={ensemble} locks={rows} live={live} asOf={data.at} />
      )}
      {more && (
        <p className="note locks__pad locks__more">
          {page.limit < LOCK_LIST_PAGE_MAX ? (
            <button
              type="button"
              className="btn btn--outline btn--small"
              onClick={() => onPage({ q: page.q, limit: Math.min(LOCK_LIST_PAGE_MAX, page.limit + LOCK_LIST_PAGE) })}
            >
              Show {formatCount(Math.min(LOCK_LIST_PAGE, data.total - data.locks.length))} more
            </button>
          ) : (
            `The ${formatCount(LOCK_LIST_PAGE_MAX)} worst are shown: filter to see others.`
          )}{' '}
          {formatCount(data.total - data.locks.length)} more {data.total - data.locks.length === 1 ? 'lock is' : 'locks are'} tracked beyond these.
        </p>
      )}
    </>
  );
}
