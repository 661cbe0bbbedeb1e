/**
 * The selected znode's children: naturally sorted (the socket keeps them sorted), filterable with
 * `/`, and virtualized so 100,000 children scroll as smoothly as ten.
 */
import { useDeferredValue, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { useVirtualizer } from '@tanstack/react-virtual';
import { joinPath } from '@keeper/shared';
import { useChildrenEntry, useSubscriptionError, useZnodeEntry } from './znodeTopic';
import { escapeHiddenChars } from '../../lib/invisibleChars';
import { formatCount } from '../../lib/bytes';
import { useFreshness } from '../freshness/useFreshness';
import { FilterField } from '../../ui/FilterField';
import { filterChildren } from './filterChildren';
import { isFinalFailure, readFailureOf } from './readFailure';
import { ZnodeName } from './ZnodeName';
import { znodeUrl } from './urls';

const ROW_HEIGHT = 26;

export function ChildrenList({ ensemble, path }: { ensemble: string; path: string }) {
  const entry = useChildrenEntry(ensemble, path);
  const node = useZnodeEntry(ensemble, path);
  const freshness = useFreshness(ensemble, entry?.epoch);
  const failure = readFailureOf(useSubscriptionError(ensemble, path));
  // Waiting will not bring a list: say why instead of "loading…".
  const cannotList = entry === undefined && isFinalFailure(failure);
  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query);
  const names = useMemo(() => entry?.names ?? [], [entry]);
  const filtered = useMemo(() => filterChildren(names, deferredQuery), [names, deferredQuery]);
  const total = entry?.total ?? 0;
  const deleted = node !== undefined && !node.node.exists;
  const absent = deleted && node.last === null;

  const scrollRef = useRef<HTMLDivElement>(null);
  // TanStack Virtual returns new functions every render, so the React Compiler leaves this component
  // unmemoized; that is fine for a list that re-renders on scroll anyway.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: filtered.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });

  const summary = absent
    ? '—'
    : cannotList
      ? failure?.kind === 'noAuth'
        ? 'no access'
        : 'could not be read'
      : entry === undefined
        ? 'loading…'
        : query.trim() === '' && filtered.length === total
          ? `${formatCount(total)} ${total === 1 ? 'child' : 'children'}`
          : `showing ${formatCount(filtered.length)} of ${formatCount(total)}`;

  return (
    <section className={`children${freshness.live && !deleted ? '' : ' is-stale'}`}>
      <header className="children__head">
        <h2 className="section-title">Children</h2>
        <span className="children__summary muted" aria-live="polite">
          {summary}
        </span>
      </header>
      <FilterField className="children__filter" label="Filter children" placeholder="Filter  /" value={query} onChange={setQuery} shortcut />
      <div ref={scrollRef} className="children__scroll">
        {/* The list is always there (tests and readers find it even when empty); the note explains an empty one. */}
        <div role="list" aria-label="Children" className="children__list" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const name = filtered[item.index] ?? '';
            return (
              <div key={name} role="listitem" className="children__row" style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}>
                <Link to={znodeUrl(ensemble, joinPath(path, name))} className="children__link mono" title={escapeHiddenChars(joinPath(path, name))}>
                  <ZnodeName name={name} />
                </Link>
              </div>
            );
          })}
        </div>
        {cannotList && (
          <p className="children__empty muted" role="status">
            {failure?.kind === 'noAuth'
              ? 'Keeper may not list the children: this node’s ACL does not give the console READ.'
              : `The children could not be read: ${failure?.message ?? 'unknown error'}.`}
          </p>
        )}
        {entry !== undefined && filtered.length === 0 && (
          <p className="children__empty muted">{absent ? 'The node does not exist.' : total === 0 ? 'No children.' : 'No child matches the filter.'}</p>
        )}
      </div>
    </section>
  );
}
