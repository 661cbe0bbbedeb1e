/**
 * Who holds, by the recipe's rule, and what each of the others waits for. Only names and
 * order count here (no stat, no data), so the holders and waiters of a directory with
 * 100,000 children are known from one getChildren.
 */
import type { ContenderRole, HoldingRule } from './schemas.js';

export interface HoldingPlan {
  /** Per contender, in order: in a holding position. */
  holding: boolean[];
  /**
   * Per contender: the index of the contender it waits for directly, or null (holders, and
   * rules with nobody waiting). Always an earlier index, so chains end at a holder.
   */
  blocker: (number | null)[];
  holders: number;
  /** Not holding (queue items included). */
  waiters: number;
}

/**
 * `permits`: a semaphore's N (firstN only). Unknown N counts every lease as held: Curator
 * creates a lease only while it holds the semaphore's lock, and a lease once acquired stays
 * held, so at most the newest can be waiting; the lock's notes say N is unknown.
 */
export function planHolding(rule: HoldingRule, contenders: readonly { role: ContenderRole }[], permits: number | null = null): HoldingPlan {
  const n = contenders.length;
  const holding = new Array<boolean>(n).fill(false);
  const blocker = new Array<number | null>(n).fill(null);
  switch (rule) {
    case 'lowest':
      for (let i = 0; i < n; i++) {
        holding[i] = i === 0;
        blocker[i] = i === 0 ? null : i - 1;
      }
      break;
    case 'readersBeforeWriter': {
      // A reader holds while no writer is ahead of it; a writer only when it is first.
      let lastWriter: number | null = null;
      for (let i = 0; i < n; i++) {
        const reader = contenders[i]!.role === 'reader';
        if (reader) {
          holding[i] = lastWriter === null;
          blocker[i] = lastWriter;
        } else {
          holding[i] = i === 0;
          blocker[i] = i === 0 ? null : i - 1;
          lastWriter = i;
        }
      }
      break;
    }
    case 'firstN': {
      const limit = permits ?? n;
      for (let i = 0; i < n; i++) {
        holding[i] = i < limit;
        // The lease that frees a place for it soonest: N places ahead (Curator's driver watches the same).
        blocker[i] = i < limit ? null : i - limit;
      }
      break;
    }
    case 'all':
      holding.fill(true);
      break;
    case 'none':
      break;
    default: {
      const unreachable: never = rule;
      throw new Error(`unknown holding rule ${String(unreachable)}`);
    }
  }
  const holders = holding.filter(Boolean).length;
  return { holding, blocker, holders, waiters: n - holders };
}
