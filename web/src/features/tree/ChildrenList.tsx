/**
 * The selected znode's children: naturally sorted (the socket keeps them sorted), filterable with
 * `/`, and virtualized past a few hundred (ChildrenRows) so 100,000 children scroll as smoothly as ten.
 */
import { useDeferredValue, useMemo, useRef, useState } from 'react';
import { useChildrenEntry, useSubscriptionError, useZnodeEntry } from './znodeTopic';
import { formatCount } from '../../lib/bytes';
import { useFreshness } from '../../app/freshness/useFreshness';
import { FilterField } from '../../ui/FilterField';
import { filterChildren } from './filterChildren';
import { isFinalFailure, readFailureOf } from './readFailure';
import { ChildrenRows } from './ChildrenRows';

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
        <ChildrenRows ensemble={ensemble} path={path} names={filtered} scrollRef={scrollRef} />
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
