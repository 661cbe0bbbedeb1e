/**
 * Sorted child lists of recently paged znodes, keyed by path and pzxid: paging through
 * 100,000 children re-reads the list (it may have changed) but sorts it only once per change.
 */
import { sortChildNames } from '@keeper/shared';

interface Cached {
  pzxid: string;
  sorted: string[];
}

export class ChildrenPageCache {
  private readonly entries = new Map<string, Cached>();

  constructor(private readonly capacity = 16) {}

  sorted(key: string, pzxid: string, names: readonly string[]): string[] {
    const hit = this.entries.get(key);
    if (hit && hit.pzxid === pzxid && hit.sorted.length === names.length) {
      // Refresh recency.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.sorted;
    }
    const sorted = sortChildNames(names);
    this.entries.delete(key);
    this.entries.set(key, { pzxid, sorted });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return sorted;
  }
}
