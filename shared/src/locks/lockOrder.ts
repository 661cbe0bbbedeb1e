/** The Locks list's order: what needs a look comes first. */
import type { ContenderStatus, LockReport } from './schemas.js';

/** Worst first: what the Locks list sorts by. */
export const STATUS_SEVERITY: Record<ContenderStatus, number> = { leaked: 3, persistent: 2, waiting: 1, holder: 0 };

/** The Locks list's order: the worst status first, then the most flags, then the most waiters. */
export function compareLocksWorstFirst(a: LockReport, b: LockReport): number {
  const sa = a.worstStatus ? STATUS_SEVERITY[a.worstStatus] : -1;
  const sb = b.worstStatus ? STATUS_SEVERITY[b.worstStatus] : -1;
  if (sa !== sb) return sb - sa;
  const fa = flagCount(a);
  const fb = flagCount(b);
  if (fa !== fb) return fb - fa;
  if (a.waiters !== b.waiters) return b.waiters - a.waiters;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Counted once per report (sorting 1,000 locks compares each one about 20 times). */
const flagCounts = new WeakMap<LockReport, number>();

function flagCount(lock: LockReport): number {
  let n = flagCounts.get(lock);
  if (n === undefined) flagCounts.set(lock, (n = lock.contenders.reduce((k, c) => k + c.flags.length, 0)));
  return n;
}
