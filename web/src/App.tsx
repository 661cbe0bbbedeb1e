import { Navigate, Route, Routes } from 'react-router-dom';
import { AppShell } from './features/shell/AppShell';
import { NotFound } from './features/shell/NotFound';
import { RootRedirect } from './features/shell/RootRedirect';
import { TreeExplorer } from './features/tree/TreeExplorer';
import { EnsembleView } from './features/ensemble/EnsembleView';
import { SessionsView } from './features/sessions/SessionsView';
import { WatchesView } from './features/watches/WatchesView';
import { LoginPage } from './features/auth/LoginPage';
import { RequireAuth } from './features/auth/RequireAuth';
import { AuditPage } from './features/audit/AuditPage';
import { ShareLinksPage } from './features/share/ShareLinksPage';

/**
 * Every view has its own URL (see notes/product.md); new views add a route here and a line in navItems.ts.
 * Everything but /login sits behind the sign-in gate, which also owns the socket.
 */
export function App() {
  return (
    <Routes>
      <Route path="/login" element={<LoginPage />} />
      <Route element={<RequireAuth />}>
        <Route path="/" element={<RootRedirect />} />
        <Route path="/ensembles/:name" element={<AppShell />}>
          <Route index element={<Navigate to="znodes/" replace />} />
          <Route path="znodes/*" element={<TreeExplorer />} />
          <Route path="members/:address?" element={<EnsembleView />} />
          <Route path="sessions/:sessionId?" element={<SessionsView />} />
          <Route path="watches" element={<WatchesView />} />
          <Route path="*" element={<NotFound />} />
        </Route>
        {/* Admin views span every ensemble; the frame shows the last one visited. */}
        <Route element={<AppShell global />}>
          <Route path="/audit" element={<AuditPage />} />
          <Route path="/audit/share-links" element={<ShareLinksPage />} />
        </Route>
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
