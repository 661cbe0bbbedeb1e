/**
 * The watch events this browser has seen, newest first and capped, plus the pure filters the
 * panel applies. Kept outside the query cache: it is a log, not the state of a resource.
 */
import type { WatchEventType } from '@keeper/shared';

export const WATCH_EVENT_LIMIT = 500;

export interface WatchEventRecord {
  /** Increasing per browser tab; pausing remembers a seq, not a time, so nothing is counted twice. */
  seq: number;
  ensemble: string;
  path: string;
  event: WatchEventType;
  at: number;
}

export interface WatchEventFilter {
  ensemble: string;
  /** Case-insensitive substring of the path; empty matches all. */
  text: string;
  /** Types shown; empty means all. */
  types: ReadonlySet<WatchEventType>;
}

/**
 * ZooKeeper fires one event per watch kind: a deleted znode that had both a data and a child watch
 * reports "deleted" twice, the same millisecond or the next. One change is one line for the operator.
 * The window is tiny on purpose: two real changes a few milliseconds apart must stay two lines.
 */
export const DUPLICATE_WINDOW_MS = 20;

function isEcho(a: Omit<WatchEventRecord, 'seq'>, b: Omit<WatchEventRecord, 'seq'> | undefined): boolean {
  return b !== undefined && a.ensemble === b.ensemble && a.path === b.path && a.event === b.event && Math.abs(a.at - b.at) <= DUPLICATE_WINDOW_MS;
}

/** Prepends incoming events (given oldest first), dropping echoes, and keeps the newest `limit`. Returns the records added. */
export function appendWatchEvents(
  log: readonly WatchEventRecord[],
  incoming: readonly Omit<WatchEventRecord, 'seq'>[],
  firstSeq: number,
  limit = WATCH_EVENT_LIMIT,
): WatchEventRecord[] {
  const fresh: WatchEventRecord[] = [];
  let seq = firstSeq;
  for (const e of incoming) {
    // Compare with the last few records: echoes arrive close together, possibly across batches.
    const recent = [...fresh.slice(-4), ...log.slice(0, 4)];
    if (recent.some((r) => isEcho(e, r))) continue;
    fresh.push({ ...e, seq: seq++ });
  }
  return [...fresh.reverse(), ...log].slice(0, limit);
}

export function matchesFilter(record: WatchEventRecord, filter: WatchEventFilter): boolean {
  if (record.ensemble !== filter.ensemble) return false;
  if (filter.types.size > 0 && !filter.types.has(record.event)) return false;
  if (filter.text !== '' && !record.path.toLowerCase().includes(filter.text.toLowerCase())) return false;
  return true;
}

/** What the panel lists: when paused, only what had arrived by the pause; plus how many matching events wait. */
export function visibleWatchEvents(
  log: readonly WatchEventRecord[],
  filter: WatchEventFilter,
  pausedAtSeq: number | null,
): { shown: WatchEventRecord[]; waiting: number } {
  const shown: WatchEventRecord[] = [];
  let waiting = 0;
  for (const r of log) {
    if (!matchesFilter(r, filter)) continue;
    if (pausedAtSeq !== null && r.seq > pausedAtSeq) waiting++;
    else shown.push(r);
  }
  return { shown, waiting };
}
