/** The children list past PLAIN_ROWS: only the rows in view are in the DOM, so 100,000 children scroll as smoothly as ten. */
import { useVirtualizer } from '@tanstack/react-virtual';
import { ChildRow, ROW_HEIGHT, type ChildrenRowsProps } from './ChildrenRows';

export function VirtualChildrenRows({ ensemble, path, names, scrollRef }: ChildrenRowsProps) {
  // TanStack Virtual returns new functions every render, so the React Compiler leaves this component
  // unmemoized; that is fine for a list that re-renders on scroll anyway.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: names.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  return (
    <div role="list" aria-label="Children" className="children__list" style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((item) => {
        const name = names[item.index] ?? '';
        return <ChildRow key={name} ensemble={ensemble} path={path} name={name} style={{ position: 'absolute', transform: `translateY(${item.start}px)` }} />;
      })}
    </div>
  );
}
