/**
 * The tree explorer at /ensembles/:name/znodes/*: the tree on the left, the selected znode (its
 * children, stat and data) on the right, live watch events at the bottom. The URL is the state:
 * a pasted link opens exactly this znode with its ancestors expanded.
 */
import { useMemo, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { useMe } from '../../app/me';
import { useConnectionStatus } from '../../socket/hooks';
import { useFreshness } from '../../app/freshness/useFreshness';
import { useGlobalKeys } from '../../lib/useGlobalKeys';
import { WatchEventsPanel } from './watchEvents/WatchEventsPanel';
import { ChildrenList } from './ChildrenList';
import { NodePanel } from './NodePanel';
import { TreeNav } from './TreeNav';
import { ZnodeHeader } from './ZnodeHeader';
import { collapseAll, expandedPaths } from './treeModel';
import { parseZnodeLocation } from '../../app/urls/treeUrls';
import { useWatchEventsOpen } from './watchEvents/useWatchEventsOpen';
import './tree.css';

export function TreeExplorer() {
  const { pathname } = useLocation();
  const parsed = parseZnodeLocation(pathname);
  if (!parsed) return null;
  // A new ensemble is a new tree: keying resets expansion and focus.
  return <Explorer key={parsed.ensemble} ensemble={parsed.ensemble} selected={parsed.path} />;
}

function withoutPath(set: ReadonlySet<string>, path: string): ReadonlySet<string> {
  if (!set.has(path)) return set;
  const next = new Set(set);
  next.delete(path);
  return next;
}

function Explorer({ ensemble, selected }: { ensemble: string; selected: string }) {
  // A share-link holder's tree starts at its link's scope root: the server refuses what is above.
  const root = useMe().data?.shareLink?.scope?.root ?? '/';
  // Opening a znode (click, link, back button) expands the way to it; leaving it lets go of that
  // way again (expandedPaths). What the operator opens by hand stays open until they close it.
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set());
  const [closed, setClosed] = useState<ReadonlySet<string>>(() => new Set());
  // A node closed on the way to one znode opens again on the way to the next, adjusted during
  // render so the tree never shows one frame without it.
  const [shownFor, setShownFor] = useState(selected);
  if (shownFor !== selected) {
    setShownFor(selected);
    setClosed(new Set());
  }
  const expanded = useMemo(() => expandedPaths(selected, opened, closed, root), [selected, opened, closed, root]);
  const expand = (p: string) => {
    setOpened((prev) => new Set(prev).add(p));
    setClosed((prev) => withoutPath(prev, p));
  };
  const collapse = (p: string) => {
    setOpened((prev) => collapseAll(prev, p));
    setClosed((prev) => new Set(prev).add(p));
  };
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
          onExpand={expand}
          onCollapse={collapse}
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
