/** Set difference between two child lists, so a change to a 100k-child znode sends only what moved. */
export interface ChildrenDiff {
  added: string[];
  removed: string[];
}

export function diffChildren(before: readonly string[], after: readonly string[]): ChildrenDiff {
  const old = new Set(before);
  const now = new Set(after);
  const added = after.filter((name) => !old.has(name));
  const removed = before.filter((name) => !now.has(name));
  return { added, removed };
}

export function applyChildrenDiff(current: readonly string[], diff: ChildrenDiff): string[] {
  const removed = new Set(diff.removed);
  const kept = removed.size === 0 ? [...current] : current.filter((name) => !removed.has(name));
  const present = new Set(kept);
  for (const name of diff.added) if (!present.has(name)) kept.push(name);
  return kept;
}

