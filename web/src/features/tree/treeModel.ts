/**
 * The tree as the keyboard and the screen see it: a flat list of visible rows, computed from the
 * expanded set and the children the socket delivered. Pure, so navigation rules are unit-tested.
 */
import { joinPath, parentPath, pathLineage, pathWithin } from '@keeper/shared';

/** Rows shown under one node; more children are one "N more" row that opens the virtualized list. */
export const TREE_CHILD_LIMIT = 300;

export type TreeRow =
  | {
      kind: 'node';
      path: string;
      name: string;
      depth: number;
      expanded: boolean;
      /** false when the node is known to have no children; null when unknown (not yet read). */
      hasChildren: boolean | null;
      childCount: number | null;
      /** Waiting for the first children list after expanding. */
      loading: boolean;
      /** The console may not read this node (NO_AUTH) or the read failed for good: no spinner. */
      unreadable: 'noAuth' | 'failed' | null;
      posInSet: number;
      setSize: number;
    }
  | { kind: 'more'; path: string; parent: string; depth: number; hidden: number };

export interface TreeSource {
  children(path: string): { names: readonly string[]; total: number } | undefined;
  /** numChildren from a known stat, when the node's own state is known. */
  numChildren(path: string): number | null;
  /** Why a subscribed node cannot be read (and waiting will not help), or null. */
  unreadable?(path: string): 'noAuth' | 'failed' | null;
}

export function moreRowPath(parent: string): string {
  return `${parent}\u0000more`;
}

/** `root`: where the tree starts (a share link's scope root: nothing above it is shown). */
export function buildTreeRows(expanded: ReadonlySet<string>, source: TreeSource, limit = TREE_CHILD_LIMIT, root = '/'): TreeRow[] {
  const rows: TreeRow[] = [];
  const visit = (path: string, name: string, depth: number, posInSet: number, setSize: number) => {
    const isExpanded = expanded.has(path);
    const kids = source.children(path);
    const known = kids?.total ?? source.numChildren(path);
    const unreadable = kids === undefined ? (source.unreadable?.(path) ?? null) : null;
    rows.push({
      kind: 'node',
      path,
      name,
      depth,
      expanded: isExpanded,
      hasChildren: known === null ? null : known > 0,
      childCount: known,
      loading: isExpanded && kids === undefined && unreadable === null,
      unreadable,
      posInSet,
      setSize,
    });
    if (!isExpanded || !kids) return;
    const shown = kids.names.slice(0, limit);
    shown.forEach((child, i) => visit(joinPath(path, child), child, depth + 1, i + 1, kids.names.length));
    const hidden = kids.names.length - shown.length;
    if (hidden > 0) rows.push({ kind: 'more', path: moreRowPath(path), parent: path, depth: depth + 1, hidden });
  };
  visit(root, root, 0, 1, 1);
  return rows;
}

export type TreeAction =
  { type: 'focus'; path: string } | { type: 'expand'; path: string } | { type: 'collapse'; path: string } | { type: 'select'; path: string } | { type: 'none' };

/** What a key does on the focused row, following the WAI-ARIA tree pattern. */
export function treeKeyAction(rows: readonly TreeRow[], focused: string, key: string): TreeAction {
  const i = rows.findIndex((r) => r.path === focused);
  const row = rows[i];
  if (row === undefined) return rows[0] ? { type: 'focus', path: rows[0].path } : { type: 'none' };
  const at = (j: number): TreeAction => {
    const r = rows[j];
    return r ? { type: 'focus', path: r.path } : { type: 'none' };
  };
  switch (key) {
    case 'ArrowDown':
      return at(i + 1);
    case 'ArrowUp':
      return at(i - 1);
    case 'Home':
      return at(0);
    case 'End':
      return at(rows.length - 1);
    case 'ArrowRight':
      if (row.kind === 'more') return { type: 'none' };
      if (!row.expanded && row.hasChildren !== false) return { type: 'expand', path: row.path };
      if (row.expanded && rows[i + 1]?.depth === row.depth + 1) return at(i + 1);
      return { type: 'none' };
    case 'ArrowLeft': {
      // A leaf that was opened is in the expanded set (so children would appear live) but has nothing to collapse.
      if (row.kind === 'node' && row.expanded && row.hasChildren !== false && row.path !== '/') return { type: 'collapse', path: row.path };
      const parent = row.kind === 'more' ? row.parent : parentPath(row.path);
      return parent === null ? { type: 'none' } : { type: 'focus', path: parent };
    }
    case 'Enter':
    case ' ':
      return { type: 'select', path: row.kind === 'more' ? row.parent : row.path };
    default:
      return { type: 'none' };
  }
}

/**
 * The expanded nodes, each a live subscription (a ZooKeeper watch on its data and its children):
 * the way from the root to the selected znode, and the nodes the operator opened by hand, less
 * those they closed, and only what can be seen (nothing under a collapsed node). The way to a
 * znode is derived, never stored: leaving a znode releases what was expanded only to reach it, so
 * a tab that visits thousands of znodes holds the watches of what it shows, not of its history.
 */
export function expandedPaths(selected: string, opened: ReadonlySet<string>, closed: ReadonlySet<string>, root = '/'): Set<string> {
  const wanted = new Set(opened);
  for (const p of pathLineage(selected)) wanted.add(p);
  const depth = (p: string) => (p === '/' ? 0 : p.split('/').length - 1);
  const expanded = new Set<string>();
  // Parents before children, so a node is kept only when the one above it is.
  for (const p of [...wanted].sort((a, b) => depth(a) - depth(b))) {
    if (closed.has(p) || !pathWithin(root, p)) continue;
    if (p === root || expanded.has(parentPath(p) ?? '')) expanded.add(p);
  }
  return expanded;
}

/** Removes a path and everything under it, so collapsing also releases the subscriptions below. */
export function collapseAll(expanded: ReadonlySet<string>, path: string): Set<string> {
  const prefix = path === '/' ? '/' : `${path}/`;
  return new Set([...expanded].filter((p) => p !== path && !p.startsWith(prefix)));
}
