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

/**
 * Applies a children event. A diff with no list to apply it to cannot be trusted, so it returns
 * the previous value (undefined) and the view keeps waiting for the full list.
 */
export function reduceChildren(prev: ChildrenEntry | undefined, event: ChildrenChange, epoch: number, now: number): ChildrenEntry | undefined {
  if (event.mode === 'full') {
    const names = [...event.names].sort(compareChildNames);
    return { names, total: event.total, updatedAt: now, epoch };
  }
  if (prev === undefined) return undefined;
  const removed = new Set(event.removed);
  const kept = removed.size === 0 ? [...prev.names] : prev.names.filter((n) => !removed.has(n));
  const present = new Set(kept);
  const added = event.added.filter((n) => !present.has(n));
  return { names: insertSorted(kept, added), total: event.total, updatedAt: now, epoch };
}
