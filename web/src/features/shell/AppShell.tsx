/**
 * The frame every view lives in: top bar (ensemble, console session, theme), the per-ensemble
 * navigation, and the view itself. Views only render their own content.
 */
import { useEffect, useMemo, useState } from 'react';
import { Outlet, useLocation, useParams } from 'react-router-dom';
import { ConnectionBanner } from './ConnectionBanner';
import { LeftNav } from './LeftNav';
import { ShortcutsDialog } from './ShortcutsDialog';
import { TopBar } from './TopBar';
import { ThemeToggle } from '../../ui/ThemeToggle';
import { focusFilter, useGlobalKeys } from '../../lib/useGlobalKeys';
import { UnknownEnsemble } from './UnknownEnsemble';
import { lastEnsemble, rememberEnsemble } from './lastEnsemble';
import { useEnsembles } from '../../socket/useEnsembles';
import { useDockedJobs } from '../../app/jobs/jobsDock';
import { ShareHolderBanner } from '../share/ShareHolderBanner';
import { useMe } from '../../app/me';
import { parseZnodeLocation } from '../../app/urls/treeUrls';
import { lazyNamed } from '../../lib/lazyNamed';
import { LazyPart } from '../../ui/LazyPart';
import './shell.css';

// Loaded at the first `g`: the first page needs none of it.
const GoToPathDialog = lazyNamed(() => import('../tree/goTo/GoToPathDialog'), 'GoToPathDialog');
// Only an admin who hid a running job sees the dock.
const JobsDock = lazyNamed(() => import('../../app/jobs/JobsDock'), 'JobsDock');

/** `global`: a view that spans every ensemble (the audit trail); the frame shows the last ensemble seen. */
export function AppShell({ global = false }: { global?: boolean }) {
  const routeEnsemble = useParams().name;
  const { data: ensembles } = useEnsembles();
  const ensemble = routeEnsemble ?? (global ? (lastEnsemble((ensembles ?? []).map((e) => e.name)) ?? '') : '');
  useEffect(() => {
    if (routeEnsemble) rememberEnsemble(routeEnsemble);
  }, [routeEnsemble]);
  const [navOpen, setNavOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [goToOpen, setGoToOpen] = useState(false);
  const keys = useMemo(() => ({ '?': () => setShortcutsOpen(true), '/': focusFilter, g: () => setGoToOpen(true) }), []);
  useGlobalKeys(keys);
  const known = ensembles === undefined || ensembles.some((e) => e.name === ensemble);
  // The box starts at the znode shown (or where a share link's tree starts), ready for a child or a paste.
  const { pathname } = useLocation();
  const scopeRoot = useMe().data?.shareLink?.scope?.root ?? '/';
  const goToStart = parseZnodeLocation(pathname)?.path ?? scopeRoot;
  const canGoTo = known && ensemble !== '';
  const dockedJobs = useDockedJobs().length;

  return (
    <div className="shell">
      <TopBar ensemble={ensemble} known={canGoTo} onMenu={() => setNavOpen(true)} onShortcuts={() => setShortcutsOpen(true)} onGoTo={() => setGoToOpen(true)} />
      <div className="shell__banners">
        <ShareHolderBanner />
        <ConnectionBanner />
      </div>
      <div className={`shell__nav${navOpen ? ' is-open' : ''}`}>
        <LeftNav ensemble={ensemble} onNavigate={() => setNavOpen(false)} extra={<ThemeToggle className="btn leftnav__item leftnav__theme" labelled />} />
      </div>
      {navOpen && <button type="button" className="shell__scrim" aria-label="Close navigation" onClick={() => setNavOpen(false)} />}
      <main className="shell__main">{known || global ? <Outlet /> : <UnknownEnsemble name={ensemble} />}</main>
      <ShortcutsDialog open={shortcutsOpen} onClose={() => setShortcutsOpen(false)} />
      {goToOpen && canGoTo && (
        <LazyPart>
          <GoToPathDialog ensemble={ensemble} open initialPath={goToStart} onClose={() => setGoToOpen(false)} />
        </LazyPart>
      )}
      {dockedJobs > 0 && (
        <LazyPart>
          <JobsDock />
        </LazyPart>
      )}
    </div>
  );
}
