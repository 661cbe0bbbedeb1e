import type { LockReport } from '@keeper/shared';
import { FLAG_LABEL } from './lockWords';

/** Locks whose path, recipe, status words or flags contain every word typed; the order stays the server's (worst first). */
export function filterLocks(locks: readonly LockReport[], text: string): readonly LockReport[] {
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return locks;
  return locks.filter((lock) => {
    const hay = [
      lock.path,
      lock.recipe.label,
      lock.recipe.id,
      lock.worstStatus ?? '',
      ...new Set(lock.contenders.flatMap((c) => [c.status, ...c.flags.flatMap((f) => [f.kind, FLAG_LABEL[f.kind]])])),
    ]
      .join('\n')
      .toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}
