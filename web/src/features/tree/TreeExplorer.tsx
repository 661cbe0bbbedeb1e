/**
 * The tree explorer at /ensembles/:name/znodes/*: the tree on the left, the selected znode (its
 * children, stat and data) on the right, live watch events at the bottom. The URL is the state:
 * a pasted link opens exactly this znode with its ancestors expanded.
 */
import { useMemo, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { pathLineage, pathWithin } from '@keeper/shared';
import { useMe } from '../auth/me';
import { useConnectionStatus } from '../../socket/hooks';
import { useFreshness } from '../freshness/useFreshness';
import { useGlobalKeys } from '../shell/useGlobalKeys';
import { WatchEventsPanel } from '../watchEvents/WatchEventsPanel';
import { ChildrenList } from './ChildrenList';
import { NodePanel } from './NodePanel';
import { TreeNav } from './TreeNav';
import { ZnodeHeader } from './ZnodeHeader';
import { collapseAll } from './treeModel';
import { parseZnodeLocation } from './urls';
import { useWatchEventsOpen } from '../watchEvents/useWatchEventsOpen';
import './tree.css';

export function TreeExplorer() {
  const { pathname } = useLocation();
  const parsed = parseZnodeLocation(pathname);
  if (!parsed) return null;
  // A new ensemble is a new tree: keying resets expansion and focus.
  return <Explorer key={parsed.ensemble} ensemble={parsed.ensemble} selected={parsed.path} />;
}

/** Expands the way to `path`, from the tree's root down (a share holder's tree starts at its scope). */
function addLineage(set: ReadonlySet<string>, path: string, root: string): Set<string> {
  const next = new Set(set);
  for (const p of pathLineage(path)) if (pathWithin(root, p)) next.add(p);
  return next;
}

function Explorer({ ensemble, selected }: { ensemble: string; selected: string }) {
  // A share-link holder's tree starts at its link's scope root: the server refuses what is above.
  const root = useMe().data?.shareLink?.scope?.root ?? '/';
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => addLineage(new Set(), selected, root));
  // Opening a znode (click, link, back button) expands the way to it, adjusted during render so
  // the tree never shows one frame without it.
  const [shownFor, setShownFor] = useState(selected);
  if (shownFor !== selected) {
    setShownFor(selected);
    setExpanded((prev) => addLineage(prev, selected, root));
  }
  const [treeOpen, setTreeOpen] = useState(false);
  const [eventsOpen, setEventsOpen] = useWatchEventsOpen();
  const keys = useMemo(() => ({ w: () => setEventsOpen((o) => !o) }), [setEventsOpen]);
  useGlobalKeys(keys);

  const status = useConnectionStatus();
  const freshness = useFreshness(ensemble);

  return (
    <div className={`explorer${eventsOpen ? '' : ' events-closed'}${treeOpen ? ' tree-open' : ''}`}>
      <aside className="explorer__tree" aria-label="Znode tree">
        <TreeNav
          ensemble={ensemble}
          selected={selected}
          expanded={expanded}
          epoch={status.epoch}
          live={freshness.live}
          onExpand={(p) => setExpanded((prev) => new Set(prev).add(p))}
          onCollapse={(p) => setExpanded((prev) => collapseAll(prev, p))}
          onSelected={() => setTreeOpen(false)}
          root={root}
        />
      </aside>
      {treeOpen && <button type="button" className="explorer__scrim" aria-label="Close tree" onClick={() => setTreeOpen(false)} />}
      <section className="explorer__detail" aria-label={`Znode ${selected}`}>
        <ZnodeHeader ensemble={ensemble} path={selected} onOpenTree={() => setTreeOpen(true)} />
        <div className="explorer__body">
          <NodePanel ensemble={ensemble} path={selected} />
          <ChildrenList ensemble={ensemble} path={selected} />
        </div>
      </section>
      <WatchEventsPanel ensemble={ensemble} open={eventsOpen} onToggle={() => setEventsOpen((o) => !o)} />
    </div>
  );
}
