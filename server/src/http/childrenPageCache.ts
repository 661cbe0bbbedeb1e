/**
 * Pages of a znode's children in natural order. Early pages (the common case: the first
 * screen) are picked with a bounded heap, never sorting everything; deeper pages sort the
 * whole list once per change (keyed by path and pzxid) so paging through 100,000 children
 * re-reads the list (it may have changed) but sorts it only once.
 */
import { smallestChildNames, sortChildNames } from '@keeper/shared';

/** Up to this many names, selecting beats sorting the whole list (measured in bench/children.ts). */
const SELECT_UP_TO = 5_000;

interface Cached {
  pzxid: string;
  sorted: string[];
}

export class ChildrenPageCache {
  private readonly entries = new Map<string, Cached>();

  constructor(private readonly capacity = 16) {}

  /** names[offset, offset + limit) in natural order. */
  page(key: string, pzxid: string, names: readonly string[], offset: number, limit: number): string[] {
    const hit = this.entries.get(key);
    const cached = hit && hit.pzxid === pzxid && hit.sorted.length === names.length;
    if (!cached && offset + limit <= SELECT_UP_TO) return smallestChildNames(names, offset + limit).slice(offset);
    return this.sorted(key, pzxid, names).slice(offset, offset + limit);
  }

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
