import { Component, Suspense, useEffect, useState, type ReactNode } from 'react';
import { Navigate, Route, Routes } from 'react-router-dom';
import { AppShell } from './features/shell/AppShell';
import { NotFound } from './features/shell/NotFound';
import { RootRedirect } from './features/shell/RootRedirect';
import { RequireAuth } from './features/auth/RequireAuth';
import { LazyChunkError, lazyNamed } from './lib/lazyNamed';

/*
 * Each view is its own chunk, loaded when its route is first opened: the first page needs the
 * frame (shell, socket, sign-in gate) and one view, not all of them. The frame stays on screen
 * while a view loads.
 */
const LoginPage = lazyNamed(() => import('./features/auth/LoginPage'), 'LoginPage');
const TreeExplorer = lazyNamed(() => import('./features/tree/TreeExplorer'), 'TreeExplorer');
const EnsembleView = lazyNamed(() => import('./features/ensemble/EnsembleView'), 'EnsembleView');
const ResizeView = lazyNamed(() => import('./features/ensemble/resize/ResizeView'), 'ResizeView');
const SessionsView = lazyNamed(() => import('./features/sessions/SessionsView'), 'SessionsView');
const WatchesView = lazyNamed(() => import('./features/watches/WatchesView'), 'WatchesView');
const LocksView = lazyNamed(() => import('./features/locks/LocksView'), 'LocksView');
const UpgradesView = lazyNamed(() => import('./features/upgrades/UpgradesView'), 'UpgradesView');
const AuditPage = lazyNamed(() => import('./features/audit/AuditPage'), 'AuditPage');
const ShareLinksPage = lazyNamed(() => import('./features/share/ShareLinksPage'), 'ShareLinksPage');
const ReplicasPage = lazyNamed(() => import('./features/replicas/ReplicasPage'), 'ReplicasPage');

/**
 * Every view has its own URL (see notes/product.md); new views add a route here and a line in navItems.ts.
 * Everything but /login sits behind the sign-in gate, which also owns the socket.
 */
export function App() {
  return (
    <Routes>
      <Route path="/login" element={view('LoginPage', <LoginPage />)} />
      <Route element={<RequireAuth />}>
        <Route path="/" element={<RootRedirect />} />
        <Route path="/ensembles/:name" element={<AppShell />}>
          <Route index element={<Navigate to="znodes/" replace />} />
          <Route path="znodes/*" element={view('TreeExplorer', <TreeExplorer />)} />
          <Route path="members/:address?" element={view('EnsembleView', <EnsembleView />)} />
          {/* Resizing from the sizing view, and one resize by its id (a member's address is never "resize"). */}
          <Route path="members/resize/:reconfigId?" element={view('ResizeView', <ResizeView />)} />
          <Route path="sessions/:sessionId?" element={view('SessionsView', <SessionsView />)} />
          <Route path="watches" element={view('WatchesView', <WatchesView />)} />
          {/* The list, and one lock directory by its path: /locks/app/locks/job. */}
          <Route path="locks/*" element={view('LocksView', <LocksView />)} />
          <Route path="upgrades" element={view('UpgradesView', <UpgradesView />)} />
          <Route path="*" element={<NotFound />} />
        </Route>
        {/* Admin views span every ensemble; the frame shows the last one visited. */}
        <Route element={<AppShell global />}>
          <Route path="/audit" element={view('AuditPage', <AuditPage />)} />
          <Route path="/audit/share-links" element={view('ShareLinksPage', <ShareLinksPage />)} />
          <Route path="/audit/replicas" element={view('ReplicasPage', <ReplicasPage />)} />
        </Route>
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

/** The key gives each view its own boundary: a failure in one does not stick to the next. */
function view(key: string, element: ReactNode) {
  return (
    <ViewLoadBoundary key={key}>
      <Suspense fallback={<ViewLoading />}>{element}</Suspense>
    </ViewLoadBoundary>
  );
}

/** Quiet for the first moments (most views arrive within them), then one muted line. */
function ViewLoading() {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), 300);
    return () => clearTimeout(timer);
  }, []);
  return (
    <div className="empty-state" role="status" aria-busy="true">
      {shown && <p className="muted">Loading the view…</p>}
    </div>
  );
}

/** Turns a view whose code could not be loaded into a message; any other error goes on up as before. */
class ViewLoadBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    const { error } = this.state;
    if (error === null) return this.props.children;
    if (!(error instanceof LazyChunkError)) throw error;
    return (
      <div className="empty-state">
        <h1>This view could not be loaded</h1>
        <p className="muted">The Keeper server may have been upgraded or is out of reach.</p>
        <button type="button" className="btn btn--outline" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </div>
    );
  }
}
