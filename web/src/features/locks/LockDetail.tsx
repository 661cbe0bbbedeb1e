/**
 * One lock directory: its recipe, permits and notes, the wait chain drawn as words ("c waits for
 * b waits for a (holder)"), and every listed contender in the recipe's order. A huge directory
 * is counted, not listed: the page says how many it shows of how many.
 */
import { Link } from 'react-router-dom';
import type { LockAnswer } from '@keeper/shared';
import { formatCount } from '../../lib/bytes';
import { formatAbsolute, formatClock } from '../../lib/time';
import { Callout } from '../../ui/Callout';
import { plural } from '../../ui/format';
import { ViewHeader } from '../../app/ViewHeader';
import type { Freshness } from '../../app/freshness/freshness';
import { ContendersTable } from './ContendersTable';
import { HerdList, LeakCheckLine } from './LockContext';
import { longestChain } from './lockWords';
import type { LockEntry } from './locksTopic';
import { locksUrl } from './urls';
import '../../ui/table.css';
import '../../ui/sectionTitle.css';
import './locks.css';

export function LockDetail({
  ensemble,
  path,
  entry,
  freshness,
  admin,
}: {
  ensemble: string;
  path: string;
  entry: LockEntry | undefined;
  freshness: Freshness;
  admin: boolean;
}) {
  const data = entry?.kind === 'lock' ? entry.lock : undefined;
  return (
    <div className={`view locks lock-detail${freshness.live ? '' : ' is-stale'}`}>
      <ViewHeader title="Lock" freshness={freshness} liveHint="Keeper watches this directory: a release moves the holder here as it happens">
        <span className="mono" title={path}>
          {path}
        </span>
      </ViewHeader>
      <div className="locks__body">
        {/* A share link without the ensemble views may not open the list. */}
        {!data?.ownersHidden && (
          <nav className="locks__pad lock-detail__back">
            <Link to={locksUrl(ensemble)}>← All locks</Link>
          </nav>
        )}
        {entry?.kind === 'refused' ? (
          <p className="error-note locks__pad" role="alert">
            <span className="status tone-lost">cannot show this lock</span> {entry.message}
          </p>
        ) : entry?.kind === 'notLock' ? (
          <Callout tone="stale" role="status" className="locks__pad-box">
            <strong>Not a lock</strong>
            <p>{entry.message}</p>
            <p className="muted" title={formatAbsolute(entry.at)}>
              as Keeper saw it at {formatClock(entry.at)}
            </p>
          </Callout>
        ) : data === undefined ? (
          <p className="note locks__pad" aria-busy="true">
            Nothing to show yet — {freshness.live ? 'reading the lock' : freshness.reason}.
          </p>
        ) : (
          <DetailBody ensemble={ensemble} data={data} admin={admin} live={freshness.live} />
        )}
      </div>
    </div>
  );
}

function DetailBody({ ensemble, data, admin, live }: { ensemble: string; data: LockAnswer; admin: boolean; live: boolean }) {
  const { lock } = data;
  const chain = longestChain(lock);
  const listed = lock.contenders.length;
  return (
    <>
      <section className="locks__pad lock-summary" aria-label="Lock summary">
        <p className="mono lock-detail__path">{lock.path}</p>
        <dl className="lock-summary__facts">
          <div>
            <dt>Recipe</dt>
            <dd title={lock.recipe.id}>{lock.recipe.label}</dd>
          </div>
          <div>
            <dt>Holders</dt>
            <dd>{formatCount(lock.holders)}</dd>
          </div>
          <div>
            <dt>Waiters</dt>
            <dd>{formatCount(lock.waiters)}</dd>
          </div>
          <div>
            <dt>Contenders</dt>
            <dd>{formatCount(lock.total)}</dd>
          </div>
          {(lock.recipe.kind === 'semaphore' || lock.permits !== null) && (
            <div>
              <dt>Permits</dt>
              <dd>
                {lock.permits === null ? 'unknown' : formatCount(lock.permits)}
                {lock.permitsSource && <span className="muted"> ({lock.permitsSource})</span>}
              </dd>
            </div>
          )}
        </dl>
        {lock.note && <p className="note">{lock.note}</p>}
        {lock.notes.length > 0 && (
          <ul className="lock-summary__notes">
            {lock.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
        {chain && (
          <p className="lock-chain" aria-label="Wait chain">
            <span className="section-title">Chain</span> <span className="mono">{chain}</span>
          </p>
        )}
        <LeakCheckLine check={data.leakCheck} />
        {data.ownersHidden && (
          <p className="note lock-detail__hidden">
            Owner sessions and client and member addresses are hidden: this share link was not given the ensemble views.
          </p>
        )}
        <HerdList ensemble={ensemble} herds={data.herds} />
      </section>
      <p className="locks__pad note lock-detail__count" aria-live="polite">
        {listed < lock.total
          ? `showing the first ${formatCount(listed)} of ${formatCount(lock.total)} contenders (the counts cover all of them)`
          : plural(lock.total, 'contender')}
      </p>
      {listed > 0 && <ContendersTable ensemble={ensemble} contenders={lock.contenders} admin={admin} live={live} asOf={lock.computedAt} />}
    </>
  );
}
