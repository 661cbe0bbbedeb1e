/**
 * The lazy znode tree (WAI-ARIA tree pattern). Every expanded node is a subscription, so its
 * children arrive and stay live through the socket; collapsing releases them.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { useSubscriptions, useTreeEntries } from './znodeTopic';
import { formatCount } from '../../lib/bytes';
import { ChevronRight } from '../../ui/icons';
import { escapeHiddenChars } from '../../lib/invisibleChars';
import { buildTreeRows, treeKeyAction, type TreeRow } from './treeModel';
import { isFinalFailure } from './readFailure';
import { useReadFailures } from './useReadFailures';
import { ZnodeName } from './ZnodeName';
import { znodeUrl } from '../../app/urls/treeUrls';

interface TreeNavProps {
  ensemble: string;
  selected: string;
  expanded: ReadonlySet<string>;
  epoch: number;
  live: boolean;
  onExpand(path: string): void;
  onCollapse(path: string): void;
  /** Called after a selection from the tree (e.g. to close the phone drawer). */
  onSelected?(): void;
  /** Where the tree starts: / , or a share link's scope root. */
  root?: string;
}

export function TreeNav({ ensemble, selected, expanded, epoch, live, onExpand, onCollapse, onSelected, root = '/' }: TreeNavProps) {
  const navigate = useNavigate();
  const expandedList = useMemo(() => [...expanded].sort(), [expanded]);
  useSubscriptions(ensemble, expandedList);

  // Read children for expanded nodes and stat (child counts) for everything visible that is cached.
  const { children } = useTreeEntries(ensemble, expandedList);
  const firstPass = useMemo(
    () => buildTreeRows(expanded, { children: (p) => children.get(p), numChildren: () => null }, undefined, root),
    [expanded, children, root],
  );
  const visiblePaths = useMemo(() => firstPass.filter((r) => r.kind === 'node').map((r) => r.path), [firstPass]);
  const { znodes } = useTreeEntries(ensemble, visiblePaths);
  const failures = useReadFailures(ensemble, expandedList);
  const rows = useMemo(
    () =>
      buildTreeRows(
        expanded,
        {
          children: (p) => children.get(p),
          // Only counts from the current connection: an old count shown as fact would mislead.
          numChildren: (p) => {
            const z = znodes.get(p);
            return z && z.epoch === epoch && z.node.exists ? z.node.stat.numChildren : null;
          },
          unreadable: (p) => {
            const failure = failures.get(p) ?? null;
            if (!isFinalFailure(failure)) return null;
            return failure?.kind === 'noAuth' ? 'noAuth' : 'failed';
          },
        },
        undefined,
        root,
      ),
    [expanded, children, znodes, epoch, failures, root],
  );

  const [focused, setFocused] = useState(selected);
  const focusTarget = rows.some((r) => r.path === focused) ? focused : selected;
  const refs = useRef(new Map<string, HTMLDivElement>());

  // Bring the selected node into view once it exists (a deep link's ancestors load one by one).
  const scrolledFor = useRef<string | null>(null);
  useEffect(() => {
    if (scrolledFor.current === selected) return;
    const el = refs.current.get(selected);
    if (!el) return;
    scrolledFor.current = selected;
    el.scrollIntoView({ block: 'nearest' });
  }, [selected, rows]);

  const select = (path: string) => {
    setFocused(path);
    navigate(znodeUrl(ensemble, path));
    onSelected?.();
  };

  const moveFocus = (path: string) => {
    setFocused(path);
    refs.current.get(path)?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const action = treeKeyAction(rows, focusTarget, e.key);
    if (action.type === 'none') return;
    e.preventDefault();
    switch (action.type) {
      case 'focus':
        moveFocus(action.path);
        break;
      case 'expand':
        onExpand(action.path);
        break;
      case 'collapse':
        onCollapse(action.path);
        break;
      case 'select':
        select(action.path);
        break;
      default: {
        const never: never = action;
        return never;
      }
    }
  };

  return (
    <div role="tree" aria-label={`Znode tree of ${ensemble}`} className={`tree${live ? '' : ' is-stale'}`} onKeyDown={onKeyDown}>
      {rows.map((row) => (
        <TreeItem
          key={row.path}
          row={row}
          selected={row.path === selected}
          focusable={row.path === focusTarget}
          refCallback={(el) => {
            if (el) refs.current.set(row.path, el);
            else refs.current.delete(row.path);
          }}
          onSelect={select}
          onToggle={(path, open) => (open ? onExpand(path) : onCollapse(path))}
        />
      ))}
    </div>
  );
}

function TreeItem({
  row,
  selected,
  focusable,
  refCallback,
  onSelect,
  onToggle,
}: {
  row: TreeRow;
  selected: boolean;
  focusable: boolean;
  refCallback: (el: HTMLDivElement | null) => void;
  onSelect: (path: string) => void;
  onToggle: (path: string, open: boolean) => void;
}) {
  const indent = { paddingLeft: `${6 + row.depth * 14}px` };
  if (row.kind === 'more') {
    return (
      <div
        ref={refCallback}
        role="treeitem"
        aria-level={row.depth + 1}
        aria-label={`${formatCount(row.hidden)} more children: open the full list`}
        aria-selected={false}
        tabIndex={focusable ? 0 : -1}
        className="tree__row tree__row--more"
        style={indent}
        onClick={() => onSelect(row.parent)}
      >
        <span className="tree__caret" />
        <span className="tree__more">+ {formatCount(row.hidden)} more — open list</span>
      </div>
    );
  }
  const expandable = row.hasChildren !== false;
  return (
    <div
      ref={refCallback}
      role="treeitem"
      aria-level={row.depth + 1}
      aria-setsize={row.setSize}
      aria-posinset={row.posInSet}
      aria-expanded={expandable ? row.expanded : undefined}
      aria-selected={selected}
      aria-label={escapeHiddenChars(row.name)}
      aria-busy={row.loading || undefined}
      tabIndex={focusable ? 0 : -1}
      className={`tree__row${selected ? ' is-selected' : ''}`}
      style={indent}
      title={escapeHiddenChars(row.path)}
      onClick={() => onSelect(row.path)}
    >
      {/* Not a button: a button inside a treeitem would be a second tab stop; arrows do this from the keyboard. */}
      <span
        className={`tree__caret${expandable ? '' : ' is-leaf'}${row.expanded ? ' is-open' : ''}`}
        aria-hidden="true"
        onClick={(e) => {
          if (!expandable || row.path === '/') return;
          e.stopPropagation();
          onToggle(row.path, !row.expanded);
        }}
      >
        {expandable && <ChevronRight size={12} />}
      </span>
      <ZnodeName name={row.name} className="tree__name mono" />
      {row.unreadable ? (
        <span
          className="tree__count tree__unreadable"
          title={row.unreadable === 'noAuth' ? 'Keeper may not read this node (its ACL)' : 'This node could not be read'}
        >
          {row.unreadable === 'noAuth' ? 'no access' : 'error'}
        </span>
      ) : row.loading ? (
        <span className="tree__count" aria-hidden="true">
          …
        </span>
      ) : row.childCount !== null && row.childCount > 0 ? (
        <span className="tree__count mono" aria-hidden="true">
          {formatCount(row.childCount)}
        </span>
      ) : null}
    </div>
  );
}
