import { filterWords, lockMatches, type LockReport } from '@keeper/shared';

/** Locks whose path, recipe, status words or flags contain every word typed; the order stays the server's (worst first). */
export function filterLocks(locks: readonly LockReport[], text: string): readonly LockReport[] {
  const words = filterWords(text);
  return words.length === 0 ? locks : locks.filter((lock) => lockMatches(lock, words));
}
