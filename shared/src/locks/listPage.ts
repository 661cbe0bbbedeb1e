/**
 * One page of the Locks list (issue 25, item 1): the server keeps every tracked lock's report,
 * sorted worst first, and answers each GET and each `locks` subscriber with a page of it, the
 * filter applied over all of them (not just the page), the total and the counts by worst status.
 * A list of 1,000 locks is never sent whole.
 */
import type { LockCounts, LockReport } from './schemas.js';

/** The words typed, lower-cased; empty for no filter. */
export function filterWords(q: string): string[] {
  return q.trim().toLowerCase().split(/\s+/).filter(Boolean);
}

/** Each report's text to search, built once: a report is never changed, only replaced. */
const searchTexts = new WeakMap<LockReport, string>();

function searchTextOf(lock: LockReport): string {
  let text = searchTexts.get(lock);
  if (text === undefined) {
    text = [
      lock.path,
      lock.recipe.label,
      lock.recipe.id,
      lock.worstStatus ?? '',
      ...new Set(lock.contenders.flatMap((c) => [c.status, ...c.flags.flatMap((f) => [f.kind, f.kind.replace(/-/g, ' ')])])),
    ]
      .join('\n')
      .toLowerCase();
    searchTexts.set(lock, text);
  }
  return text;
}

/** Whether the lock's path, recipe, worst status, its contenders' statuses or flags ("held-long" or "held long") contain every word. */
export function lockMatches(lock: LockReport, words: readonly string[]): boolean {
  if (words.length === 0) return true;
  const hay = searchTextOf(lock);
  return words.every((w) => hay.includes(w));
}

export interface LockPage {
  locks: LockReport[];
  /** Locks matching the filter in all. */
  total: number;
  counts: LockCounts;
}

/** `sorted`: worst first (compareLocksWorstFirst). */
export function pageOfLocks(sorted: readonly LockReport[], query: { q: string; offset: number; limit: number }): LockPage {
  const words = filterWords(query.q);
  const counts: LockCounts = { leaked: 0, persistent: 0, waiting: 0, holder: 0, empty: 0 };
  const locks: LockReport[] = [];
  let total = 0;
  for (const lock of sorted) {
    if (!lockMatches(lock, words)) continue;
    counts[lock.worstStatus ?? 'empty'] += 1;
    if (total >= query.offset && locks.length < query.limit) locks.push(lock);
    total += 1;
  }
  return { locks, total, counts };
}
