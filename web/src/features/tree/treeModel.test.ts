import { describe, expect, it } from 'vitest';
import { buildTreeRows, collapseAll, expandedPaths, treeKeyAction, type TreeSource } from './treeModel';

const lists: Record<string, string[]> = {
  '/': ['app', 'zookeeper'],
  '/app': ['a', 'b', 'c'],
};
const source: TreeSource = {
  children: (p) => (lists[p] ? { names: lists[p], total: lists[p].length } : undefined),
  numChildren: (p) => (p === '/zookeeper' ? 2 : p === '/app/a' ? 0 : null),
};

describe('buildTreeRows', () => {
  it('lists expanded children depth first', () => {
    const rows = buildTreeRows(new Set(['/', '/app']), source);
    expect(rows.map((r) => r.path)).toEqual(['/', '/app', '/app/a', '/app/b', '/app/c', '/zookeeper']);
    const a = rows[2];
    expect(a?.kind === 'node' && a.hasChildren).toBe(false);
    const zk = rows[5];
    expect(zk?.kind === 'node' && zk.childCount).toBe(2);
    const b = rows[3];
    expect(b?.kind === 'node' && b.hasChildren).toBeNull();
  });
  it('marks an expanded node without a list as loading', () => {
    const rows = buildTreeRows(new Set(['/', '/zookeeper']), source);
    const zk = rows.find((r) => r.path === '/zookeeper');
    expect(zk?.kind === 'node' && zk.loading).toBe(true);
  });
  it('does not spin forever on a node the console may not read', () => {
    const rows = buildTreeRows(new Set(['/', '/zookeeper']), { ...source, unreadable: (p) => (p === '/zookeeper' ? 'noAuth' : null) });
    const zk = rows.find((r) => r.path === '/zookeeper');
    expect(zk?.kind === 'node' && zk.loading).toBe(false);
    expect(zk?.kind === 'node' && zk.unreadable).toBe('noAuth');
  });
  it('caps children and adds a "more" row', () => {
    const rows = buildTreeRows(new Set(['/', '/app']), source, 2);
    expect(rows.map((r) => r.kind)).toEqual(['node', 'node', 'node', 'node', 'more', 'node']);
    const more = rows[4];
    expect(more?.kind === 'more' && more.hidden).toBe(1);
  });
});

describe('treeKeyAction', () => {
  const rows = buildTreeRows(new Set(['/', '/app']), source);
  it('moves up and down', () => {
    expect(treeKeyAction(rows, '/app', 'ArrowDown')).toEqual({ type: 'focus', path: '/app/a' });
    expect(treeKeyAction(rows, '/app', 'ArrowUp')).toEqual({ type: 'focus', path: '/' });
    expect(treeKeyAction(rows, '/', 'ArrowUp')).toEqual({ type: 'none' });
  });
  it('right expands, then enters', () => {
    expect(treeKeyAction(rows, '/zookeeper', 'ArrowRight')).toEqual({ type: 'expand', path: '/zookeeper' });
    expect(treeKeyAction(rows, '/app', 'ArrowRight')).toEqual({ type: 'focus', path: '/app/a' });
    expect(treeKeyAction(rows, '/app/a', 'ArrowRight')).toEqual({ type: 'none' });
  });
  it('left collapses, then goes to the parent', () => {
    expect(treeKeyAction(rows, '/app', 'ArrowLeft')).toEqual({ type: 'collapse', path: '/app' });
    expect(treeKeyAction(rows, '/app/b', 'ArrowLeft')).toEqual({ type: 'focus', path: '/app' });
  });
  it('left on an opened leaf goes straight to the parent', () => {
    const opened = buildTreeRows(new Set(['/', '/app', '/app/a']), source);
    expect(treeKeyAction(opened, '/app/a', 'ArrowLeft')).toEqual({ type: 'focus', path: '/app' });
  });
  it('enter selects', () => {
    expect(treeKeyAction(rows, '/app/b', 'Enter')).toEqual({ type: 'select', path: '/app/b' });
  });
});

describe('collapseAll', () => {
  it('drops the subtree but not siblings with a common prefix', () => {
    expect([...collapseAll(new Set(['/', '/a', '/a/b', '/ab']), '/a')]).toEqual(['/', '/ab']);
  });
});

describe('expandedPaths', () => {
  const none = new Set<string>();
  const sorted = (set: Set<string>) => [...set].sort();

  it('expands the way to the selected znode and nothing of the znodes visited before', () => {
    expect(sorted(expandedPaths('/app/b/x', none, none))).toEqual(['/', '/app', '/app/b', '/app/b/x']);
  });

  it('keeps what the operator opened by hand while it can be seen', () => {
    const opened = new Set(['/zookeeper', '/app/a']);
    expect(sorted(expandedPaths('/app/b', opened, none))).toEqual(['/', '/app', '/app/a', '/app/b', '/zookeeper']);
    // /app/a is under /app: with /app off the way to the selected znode and not opened, it is not seen.
    expect(sorted(expandedPaths('/zookeeper', opened, none))).toEqual(['/', '/zookeeper']);
  });

  it('closes a node on the way, and everything under it', () => {
    expect(sorted(expandedPaths('/app/b/x', new Set(['/app/b/x/deep']), new Set(['/app/b'])))).toEqual(['/', '/app']);
  });

  it('starts at a share link’s scope root', () => {
    expect(sorted(expandedPaths('/app/db/t', none, none, '/app/db'))).toEqual(['/app/db', '/app/db/t']);
    expect(sorted(expandedPaths('/app/db/t', new Set(['/other']), none, '/app/db'))).toEqual(['/app/db', '/app/db/t']);
  });
});
