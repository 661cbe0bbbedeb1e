/**
 * The Locks list: one row per lock directory, worst first (the server's order, kept), with what
 * the leak check can say yet, the herds, what Keeper watches, and the last scan. Admins get
 * "Scan for locks…" and "Clean leaked…"; viewers see the same page without them.
 */
import { useDeferredValue, useMemo, useState } from 'react';
import type { LocksResponse } from '@keeper/shared';
import { FilterField } from '../../ui/FilterField';
import { plural } from '../ensemble/format';
import { ViewHeader } from '../ensemble/ViewHeader';
import type { Freshness } from '../freshness/freshness';
import { LockAdminTools } from './LockAdminTools';
import { LockContext } from './LockContext';
import { filterLocks } from './filterLocks';
import { LocksTable } from './LocksTable';
import type { LocksEntry } from './locksTopics';
import '../../ui/table.css';
import '../../ui/sectionTitle.css';
import './locks.css';

export function LocksList({ ensemble, entry, freshness, admin }: { ensemble: string; entry: LocksEntry | undefined; freshness: Freshness; admin: boolean }) {
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
          <ListBody ensemble={ensemble} data={data} admin={admin} live={freshness.live} />
        )}
      </div>
    </div>
  );
}

function Headline({ data }: { data: LocksResponse }) {
  const leaked = data.locks.filter((l) => l.worstStatus === 'leaked').length;
  return (
    <>
      {plural(data.locks.length, 'lock')}
      {leaked > 0 && ` · ${leaked} with a leaked node`}
      {data.herds.length > 0 && ` · ${plural(data.herds.length, 'herd')}`}
    </>
  );
}

function ListBody({ ensemble, data, admin, live }: { ensemble: string; data: LocksResponse; admin: boolean; live: boolean }) {
  const [text, setText] = useState('');
  const deferred = useDeferredValue(text);
  const rows = useMemo(() => filterLocks(data.locks, deferred), [data.locks, deferred]);
  return (
    <>
      <LockContext ensemble={ensemble} data={data} />
      <div className="locks__tools">
        <FilterField
          className="locks__filter"
          label="Filter locks"
          placeholder="Filter: path, recipe, status, flag  /"
          value={text}
          onChange={setText}
          shortcut
        />
        {admin && <LockAdminTools ensemble={ensemble} root={data.root} live={live} />}
        <span className="locks__count muted" aria-live="polite">
          {rows.length === data.locks.length ? plural(data.locks.length, 'lock') : `showing ${rows.length} of ${data.locks.length}`}
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
        <LocksTable ensemble={ensemble} locks={rows} />
      )}
    </>
  );
}
