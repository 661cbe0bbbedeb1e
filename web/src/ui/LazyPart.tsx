/**
 * Where a part loaded on demand (lib/lazyNamed) sits: nothing while its code arrives (a click's
 * worth), and a line with a reload button if it cannot arrive. Any other error goes on up.
 */
import { Component, Suspense, useState, type ReactNode } from 'react';
import { LazyChunkError } from '../lib/lazyNamed';

export function LazyPart({ children }: { children: ReactNode }) {
  return (
    <LazyPartBoundary>
      <Suspense fallback={null}>{children}</Suspense>
    </LazyPartBoundary>
  );
}

/**
 * True from the first time `open` is: a dialog loaded on its first opening then stays mounted,
 * closed, as it always was (a job it started keeps its progress; reopening costs nothing).
 */
export function useOpenedOnce(open: boolean): boolean {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  return opened || open;
}

class LazyPartBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    const { error } = this.state;
    if (error === null) return this.props.children;
    if (!(error instanceof LazyChunkError)) throw error;
    return (
      <p className="muted" role="alert">
        {error.message}: the Keeper server may have been upgraded or is out of reach.{' '}
        <button type="button" className="btn btn--small btn--outline" onClick={() => window.location.reload()}>
          Reload
        </button>
      </p>
    );
  }
}
