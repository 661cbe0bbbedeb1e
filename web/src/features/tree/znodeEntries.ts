/**
 * What the `znode` topic keeps in the query cache, and the pure reducers that turn its events into it.
 * Every entry records the socket connection (`epoch`) it came from: after a reconnect, an entry from
 * the old connection is stale until the re-subscription refreshes it, and views must say so.
 */
import { childInsertionPoint, compareChildNames, type ChildrenChange, type ZnodeEvent, type ZnodeState, type ZnodeStat } from '@keeper/shared';
import type { EncodedData } from '@keeper/shared';

type StateEvent = Extract<ZnodeEvent, { kind: 'state' }>;

export interface ZnodeContent {
  stat: ZnodeStat;
  data: EncodedData;
}

export interface ZnodeEntry {
  path: string;
  node: ZnodeState;
  /** Server time of the last change. */
  at: number;
  epoch: number;
  /** The last content seen while the node existed: a deleted node stays on screen, greyed. */
  last: ZnodeContent | null;
  /** When the node was seen deleted (server time); null while it exists or was never seen. */
  deletedAt: number | null;
}

export interface ChildrenEntry {
  /** Sorted with compareChildNames, so lists and the tree never need to sort at render time. */
  names: string[];
  total: number;
  /** Browser time of the last update (children events carry no server time). */
  updatedAt: number;
  epoch: number;
}

export interface SubscriptionErrorEntry {
  message: string;
  retrying: boolean;
  at: number;
  epoch: number;
}

export function reduceZnode(prev: ZnodeEntry | undefined, path: string, event: StateEvent, epoch: number): ZnodeEntry {
  if (event.node.exists) {
    const { stat, data } = event.node;
    return { path, node: event.node, at: event.at, epoch, last: { stat, data }, deletedAt: null };
  }
  // Keep what was last seen; remember when it vanished (once, not at every re-subscription).
  const last = prev?.last ?? null;
  const deletedAt = last === null ? null : (prev?.deletedAt ?? event.at);
  return { path, node: event.node, at: event.at, epoch, last, deletedAt };
}

/** Inserts names into an already sorted list; a few at a time is the common case for live diffs. */
function insertSorted(sorted: string[], added: readonly string[]): string[] {
  if (added.length > 64) return [...sorted, ...added].sort(compareChildNames);
  const out = sorted;
  for (const name of added) out.splice(childInsertionPoint(out, name), 0, name);
  return out;
}

/** The pages of a big list received so far (the server sends a list over 256 KiB in pages). */
export interface ChildrenPages {
  names: string[];
  total: number;
  epoch: number;
}

type WholeOrDiff = Exclude<ChildrenChange, { mode: 'page' }>;
type Page = Extract<ChildrenChange, { mode: 'page' }>;

/**
 * Adds a page to the list being received. A list is shown only whole: until its last page the
 * view keeps what it had. A page out of order (one went missing, or came from an older socket)
 * drops what was gathered; the list comes again whole after a resubscribe.
 */
export function reduceChildrenPage(pending: ChildrenPages | undefined, page: Page, epoch: number): { pending?: ChildrenPages; whole?: WholeOrDiff } {
  const gathered =
    page.offset === 0
      ? [...page.names]
      : pending !== undefined && pending.epoch === epoch && pending.total === page.total && pending.names.length === page.offset
        ? pending.names.concat(page.names)
        : null;
  if (gathered === null) return {};
  if (!page.last) return { pending: { names: gathered, total: page.total, epoch } };
  return { whole: { kind: 'children', mode: 'full', names: gathered, total: page.total } };
}

/**
 * Applies a whole list or a diff. A diff with no list to apply it to (or to one from an older
 * socket, which may have missed changes) cannot be trusted, so it returns the previous value and
 * the view keeps waiting for the full list.
 */
export function reduceChildren(prev: ChildrenEntry | undefined, event: WholeOrDiff, epoch: number, now: number): ChildrenEntry | undefined {
  if (event.mode === 'full') {
    const names = [...event.names].sort(compareChildNames);
    return { names, total: event.total, updatedAt: now, epoch };
  }
  if (prev === undefined || prev.epoch !== epoch) return prev;
  const removed = new Set(event.removed);
  const kept = removed.size === 0 ? [...prev.names] : prev.names.filter((n) => !removed.has(n));
  const present = new Set(kept);
  const added = event.added.filter((n) => !present.has(n));
  return { names: insertSorted(kept, added), total: event.total, updatedAt: now, epoch };
}
