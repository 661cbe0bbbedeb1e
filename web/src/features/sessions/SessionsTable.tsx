/**
 * The sessions table: sortable headers, virtualized rows (thousands of sessions scroll like ten),
 * one row expanded at a time (the URL's session). Keyboard: ↑/↓ move between rows, Home/End,
 * Enter opens or closes the focused row, Esc closes it.
 */
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { EnsembleSession } from '@keeper/shared';
import { SortIcon } from './icons';
import { COLUMNS } from './columns';
import { SessionRow } from './SessionRow';
import { sameSessionId, type Sort, type SortKey } from './sessionTable';

const ROW_HEIGHT = 30;

export function SessionsTable({
  ensemble,
  sessions,
  sort,
  onSort,
  selectedId,
  onToggle,
  onClose,
}: {
  ensemble: string;
  sessions: readonly EnsembleSession[];
  sort: Sort;
  onSort: (key: SortKey) => void;
  selectedId: string | null;
  onToggle: (sessionId: string) => void;
  onClose: () => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const selectedIndex = selectedId === null ? -1 : sessions.findIndex((s) => sameSessionId(s.sessionId, selectedId));
  const [active, setActive] = useState(0);
  const activeIndex = Math.min(Math.max(0, active), Math.max(0, sessions.length - 1));
  const focusAfterScroll = useRef<number | null>(null);

  // TanStack Virtual returns new functions every render, so the React Compiler leaves this component unmemoized.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: sessions.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey: (i) => sessions[i]?.sessionId ?? i,
    overscan: 12,
  });

  // A deep link (or a newly found session) scrolls its row into view once.
  const scrolledTo = useRef<string | null>(null);
  useEffect(() => {
    if (selectedIndex < 0 || selectedId === null || scrolledTo.current === selectedId) return;
    scrolledTo.current = selectedId;
    virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, selectedId, virtualizer]);

  // Keyboard moves: scroll the row in, then focus it once it is rendered.
  useEffect(() => {
    const i = focusAfterScroll.current;
    if (i === null) return;
    const el = scrollRef.current?.querySelector<HTMLElement>(`[data-index="${i}"]`);
    if (el) {
      focusAfterScroll.current = null;
      el.focus({ preventScroll: true });
    }
  });

  const moveTo = useCallback(
    (i: number) => {
      const next = Math.min(Math.max(0, i), sessions.length - 1);
      if (next < 0) return;
      setActive(next);
      focusAfterScroll.current = next;
      virtualizer.scrollToIndex(next, { align: 'auto' });
    },
    [sessions.length, virtualizer],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1);
    const handled: Record<string, () => void> = {
      ArrowDown: () => moveTo(activeIndex + 1),
      ArrowUp: () => moveTo(activeIndex - 1),
      PageDown: () => moveTo(activeIndex + page),
      PageUp: () => moveTo(activeIndex - page),
      Home: () => moveTo(0),
      End: () => moveTo(sessions.length - 1),
      Enter: () => {
        const s = sessions[activeIndex];
        if (s) onToggle(s.sessionId);
      },
      Escape: () => onClose(),
    };
    const handler = handled[e.key];
    if (!handler || (e.key === 'Escape' && selectedId === null)) return;
    e.preventDefault();
    handler();
  };

  return (
    <div role="table" aria-label="Sessions" aria-rowcount={sessions.length + 1} className="stable">
      <div role="rowgroup" className="stable__head">
        <div role="row" aria-rowindex={1} className="srow srow--head">
          {COLUMNS.map((c) => {
            const dir = sort.key === c.key ? sort.dir : null;
            return (
              <div
                key={c.key}
                role="columnheader"
                aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}
                className={`scell scell--head${c.numeric ? ' scell--num' : ''} scell--${c.key}`}
              >
                <button type="button" className={`shead${dir ? ' is-sorted' : ''}`} title={`${c.hint}; click to sort`} onClick={() => onSort(c.key)}>
                  {c.label}
                  <SortIcon dir={dir} />
                </button>
              </div>
            );
          })}
        </div>
      </div>
      <div ref={scrollRef} className="stable__scroll" onKeyDown={onKeyDown}>
        <div role="rowgroup" className="stable__body" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const s = sessions[item.index];
            if (!s) return null;
            return (
              <SessionRow
                key={item.key}
                ensemble={ensemble}
                session={s}
                index={item.index}
                expanded={item.index === selectedIndex}
                focusable={item.index === activeIndex}
                start={item.start}
                rowRef={virtualizer.measureElement}
                onToggle={onToggle}
                onFocusRow={setActive}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}
