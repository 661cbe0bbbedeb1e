/** Sentences about a lock as a whole: what Keeper cannot know there, and why. */
import type { AnalyzeLockInput } from './analyze.js';

export function lockNotes(input: Pick<AnalyzeLockInput, 'lock' | 'sessions'>, r: { permits: number | null; listed: number; waiters: number }): string[] {
  const { recipe, contenders, path } = input.lock;
  const notes: string[] = [];
  if (recipe.holding === 'firstN' && r.permits === null) {
    notes.push(
      `${recipe.label} does not record its number of leases (N): every lease is counted as held. Set locks.permits["${path}"] in the config to tell holders from waiters.`,
    );
  }
  if (recipe.holding === 'all' && recipe.kind === 'semaphore' && r.permits !== null) {
    notes.push(
      contenders.length > r.permits
        ? `${contenders.length} leases are held for ${r.permits} permits: N was lowered while they were held.`
        : `${contenders.length} of ${r.permits} leases in use.`,
    );
  }
  if (recipe.waiterWatch === 'unlisted' && r.waiters > 0) {
    notes.push('Its waiters wait on a child watch or by polling, which wchp does not list: a leaked contender cannot be told from a waiting one here.');
  }
  if (input.sessions === null && recipe.holding !== 'none') {
    notes.push("The ensemble's sessions are not gathered yet: owners are unknown, and nothing is called leaked.");
  }
  return notes;
}
