/**
 * The frame every view lives in: top bar (ensemble, console session, theme), the per-ensemble
 * navigation, and the view itself. Views only render their own content.
 */
import { useMemo, useState } from 'react';
import { Outlet, useParams } from 'react-router-dom';
import { ConnectionBanner } from './ConnectionBanner';
import { LeftNav } from './LeftNav';
import { ShortcutsDialog } from './ShortcutsDialog';
import { TopBar } from './TopBar';
import { focusFilter, useGlobalKeys } from './useGlobalKeys';
import { UnknownEnsemble } from './UnknownEnsemble';
import { useEnsembles } from '../../socket/useEnsembles';
import './shell.css';

export function AppShell() {
  const ensemble = useParams().name ?? '';
  const [navOpen, setNavOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const keys = useMemo(() => ({ '?': () => setShortcutsOpen(true), '/': focusFilter }), []);
  useGlobalKeys(keys);
  const { data: ensembles } = useEnsembles();
  const known = ensembles === undefined || ensembles.some((e) => e.name === ensemble);

  return (
    <div className="shell">
      <TopBar ensemble={ensemble} known={known} onMenu={() => setNavOpen(true)} onShortcuts={() => setShortcutsOpen(true)} />
      <ConnectionBanner />
      <div className={`shell__nav${navOpen ? ' is-open' : ''}`}>
        <LeftNav ensemble={ensemble} onNavigate={() => setNavOpen(false)} />
      </div>
      {navOpen && <button type="button" className="shell__scrim" aria-label="Close navigation" onClick={() => setNavOpen(false)} />}
      <main className="shell__main">{known ? <Outlet /> : <UnknownEnsemble name={ensemble} />}</main>
      <ShortcutsDialog open={shortcutsOpen} onClose={() => setShortcutsOpen(false)} />
    </div>
  );
}
