/**
 * Pages of a znode's children in natural order (compareChildNames), for the API.
 *
 * For each znode it keeps a list ZooKeeper gave (the base) with the smallest names of it in
 * order (all of them once a deep page was asked for), and the same for the latest list. A page
 * then costs:
 *  - the same list (same pzxid): a slice;
 *  - a list changed by a few creates and deletes since the base: one walk beside the base
 *    (diffChildrenInOrder, one string comparison per child) and a merge of what changed;
 *  - a list seen for the first time, or changed a lot: an early page picks its names with a
 *    bounded heap, a deep one sorts the whole list.
 * The base is kept across changes rather than replaced by each new list: a list of 100,000
 * names kept from one request to the next is copied by the garbage collector's young
 * generation, which costs more than walking it (bench/children.ts); an old base is not.
 */
import { childInsertionPoint, compareChildNames, diffChildrenInOrder, smallestChildNames, sortChildNames, type ChildrenDiff } from '@keeper/shared';

/** Up to this many names, selecting beats sorting the whole list (measured in bench/children.ts). */
const SELECT_UP_TO = 5_000;
/** Picked beyond the page asked for, so children deleted from the page can be taken out without picking again. */
const SELECT_SPARE = 128;
/** A list changed by more than this many creates + deletes since the base is picked again rather than walked. */
const DIFF_BUDGET = 256;
/** A list this many creates + deletes away from the base becomes the base: later walks stay short. */
const REBASE_AFTER = 64;

interface Cached {
  /** The list the next ones are walked beside, as ZooKeeper gave it, and its smallest names in order (all when as long). */
  base: readonly string[];
  baseOrdered: string[];
  /** The latest list's version, length and smallest names in order. */
  pzxid: string;
  length: number;
  ordered: string[];
}

export class ChildrenPageCache {
  private readonly entries = new Map<string, Cached>();

  /**
   * @param capacity znodes remembered (least recently used forgotten first)
   * @param maxNames names held across them, each list and its ordered names counted (about
   *   50 MB at most: a 100,000-child list is 4 to 5 MB), so 16 big lists do not stay in memory
   */
  constructor(
    private readonly capacity = 16,
    private readonly maxNames = 1_000_000,
  ) {}

  /** names[offset, offset + limit) in natural order. `key` names the znode, `pzxid` the list's version. */
  page(key: string, pzxid: string, names: readonly string[], offset: number, limit: number): string[] {
    return this.ordered(key, pzxid, names, Math.min(names.length, offset + limit)).slice(offset, offset + limit);
  }

  /** The whole list in natural order. */
  sorted(key: string, pzxid: string, names: readonly string[]): string[] {
    return this.ordered(key, pzxid, names, names.length);
  }

  /** At least the smallest `need` names of the list, in order. */
  private ordered(key: string, pzxid: string, names: readonly string[], need: number): string[] {
    const hit = this.entries.get(key);
    if (hit && hit.pzxid === pzxid && hit.length === names.length && hit.ordered.length >= need) {
      this.remember(key, hit);
      return hit.ordered;
    }
    const diff = hit ? diffChildrenInOrder(hit.base, names, DIFF_BUDGET) : null;
    const changed = hit && diff ? orderedAfterChange(hit.base, hit.baseOrdered, diff) : null;
    if (hit && diff && changed && changed.length >= need) {
      const rebase = diff.added.length + diff.removed.length > REBASE_AFTER;
      this.remember(key, { base: rebase ? names : hit.base, baseOrdered: rebase ? changed : hit.baseOrdered, pzxid, length: names.length, ordered: changed });
      return changed;
    }
    const ordered = pick(names, need);
    this.remember(key, { base: names, baseOrdered: ordered, pzxid, length: names.length, ordered });
    return ordered;
  }

  private remember(key: string, entry: Cached): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    const size = (e: Cached) => e.base.length + e.baseOrdered.length + (e.ordered === e.baseOrdered ? 0 : e.ordered.length);
    let held = 0;
    for (const e of this.entries.values()) held += size(e);
    for (const [oldest, e] of this.entries) {
      if (this.entries.size <= this.capacity && held <= this.maxNames) break;
      if (oldest === key) break; // the list just asked for stays, however big
      this.entries.delete(oldest);
      held -= size(e);
    }
  }
}

/** The smallest `need` names (and a few spare) in order: a bounded heap for an early page, a full sort otherwise. */
function pick(names: readonly string[], need: number): string[] {
  const want = need + SELECT_SPARE;
  if (need > SELECT_UP_TO || want >= names.length) return sortChildNames(names);
  return smallestChildNames(names, want);
}

/**
 * The ordered names of the list that `diff` leads to from `base`. When `baseOrdered` holds only
 * the smallest names of the base (up to a bound), the result is the new list's names up to that
 * bound: names created beyond it can't be placed without looking at the whole list, so they are
 * left out (and a page that reaches past them is picked again).
 */
function orderedAfterChange(base: readonly string[], baseOrdered: string[], diff: ChildrenDiff): string[] | null {
  const complete = baseOrdered.length === base.length;
  if (!complete && baseOrdered.length === 0) return null;
  return mergeChange(baseOrdered, diff, complete ? null : baseOrdered[baseOrdered.length - 1]!);
}

/** `ordered` without the removed names, with the added ones below `bound` (all when null) in their places. */
function mergeChange(ordered: string[], diff: ChildrenDiff, bound: string | null): string[] {
  const dropped = new Set<number>();
  for (const name of diff.removed) {
    const at = indexIn(ordered, name);
    if (at >= 0) dropped.add(at);
  }
  const added = (bound === null ? [...diff.added] : diff.added.filter((name) => compareChildNames(name, bound) < 0)).sort(compareChildNames);
  // Nothing moved within the ordered names (the common case: a change elsewhere in a big list): share them.
  if (dropped.size === 0 && added.length === 0) return ordered;
  const merged: string[] = [];
  let a = 0;
  for (let i = 0; i < ordered.length; i++) {
    if (dropped.has(i)) continue;
    const name = ordered[i]!;
    while (a < added.length && compareChildNames(added[a]!, name) < 0) merged.push(added[a++]!);
    merged.push(name);
  }
  while (a < added.length) merged.push(added[a++]!);
  return merged;
}

/** Where `name` is in the ordered names, or -1. */
function indexIn(ordered: readonly string[], name: string): number {
  const at = childInsertionPoint(ordered, name);
  return ordered[at] === name ? at : -1;
}
