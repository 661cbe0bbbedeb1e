/**
 * A contender's place comes from ZooKeeper's 10-digit sequence suffix, never from its name:
 * protected Curator names (`_c_<uuid>-lock-<seq>`) and kazoo names (`<uuid>__lock__<seq>`)
 * sort by their random prefix otherwise. The suffix rule is childOrder.ts's, so the tree and
 * the Locks view agree on who is first.
 */
import { sequenceSuffixStart } from '../childOrder.js';

/** The trailing 10-digit counter as a number, or null when the name has none. */
export function sequenceOf(name: string): number | null {
  const start = sequenceSuffixStart(name);
  return start < 0 ? null : Number(name.slice(start));
}
