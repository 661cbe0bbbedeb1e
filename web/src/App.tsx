import { Navigate, Route, Routes } from 'react-router-dom';
import { AppShell } from './features/shell/AppShell';
import { NotFound } from './features/shell/NotFound';
import { RootRedirect } from './features/shell/RootRedirect';
import { TreeExplorer } from './features/tree/TreeExplorer';
import { EnsembleView } from './features/ensemble/EnsembleView';
import { SessionsView } from './features/sessions/SessionsView';
import { WatchesView } from './features/watches/WatchesView';

/** Every view has its own URL (see notes/product.md); new views add a route here and a line in navItems.ts. */
export function App() {
  return (
    <Routes>
      <Route path="/" element={<RootRedirect />} />
      <Route path="/ensembles/:name" element={<AppShell />}>
        <Route index element={<Navigate to="znodes/" replace />} />
        <Route path="znodes/*" element={<TreeExplorer />} />
        <Route path="members/:address?" element={<EnsembleView />} />
        <Route path="sessions/:sessionId?" element={<SessionsView />} />
        <Route path="watches" element={<WatchesView />} />
        <Route path="*" element={<NotFound />} />
      </Route>
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
