import { Navigate, Route, Routes } from 'react-router-dom';
import { AppShell } from './features/shell/AppShell';
import { NotFound } from './features/shell/NotFound';
import { RootRedirect } from './features/shell/RootRedirect';
import { TreeExplorer } from './features/tree/TreeExplorer';

/** Every view has its own URL (see notes/product.md); new views add a route here and a line in navItems.ts. */
export function App() {
  return (
    <Routes>
      <Route path="/" element={<RootRedirect />} />
      <Route path="/ensembles/:name" element={<AppShell />}>
        <Route index element={<Navigate to="znodes/" replace />} />
        <Route path="znodes/*" element={<TreeExplorer />} />
        <Route path="*" element={<NotFound />} />
      </Route>
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
