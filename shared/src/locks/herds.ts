/**
 * Herds in lock terms: a path many sessions watch (wchp) wakes all of them at each change,
 * and they all re-read it (seed 000: a thousand workers on one task queue). Said with what
 * the path is to a known lock (its directory, its holder, a contender) and the fix.
 */
import type { PathWatchers } from '../ensemble/watches.js';
import { parentPath } from '../paths.js';
import { LOCK_DEFAULTS } from './config.js';
import type { LockHerd, LockReport } from './schemas.js';

type KnownLock = Pick<LockReport, 'path' | 'recipe' | 'contenders'>;

const FIX = 'each change wakes all of them; a lock recipe with predecessor watches wakes one';

function contextOf(path: string, locks: ReadonlyMap<string, KnownLock>): { lock: string | null; context: string | null } {
  const own = locks.get(path);
  if (own) return { lock: own.path, context: `It is the directory of ${own.recipe.label} ${own.path}.` };
  const parent = parentPath(path);
  const lock = parent !== null ? locks.get(parent) : undefined;
  if (!lock) return { lock: null, context: null };
  const c = lock.contenders.find((x) => x.path === path);
  const what = !c
    ? 'a node'
    : c.holding && lock.recipe.holding !== 'all'
      ? `the ${lock.recipe.kind === 'election' ? 'leader' : 'holder'}`
      : lock.recipe.holding === 'none'
        ? `item ${c.position}`
        : `contender ${c.position}`;
  return { lock: lock.path, context: `It is ${what} of ${lock.recipe.label} ${lock.path}.` };
}

/**
 * `watches`: merged over members (mergeWatchesByPath). Herds are paths with at least
 * `minWatchers` sessions (config `locks.herdMinWatchers`), most watched first.
 */
export function findLockHerds(watches: readonly PathWatchers[], locks: readonly KnownLock[], minWatchers: number = LOCK_DEFAULTS.herdMinWatchers): LockHerd[] {
  const byPath = new Map(locks.map((l) => [l.path, l]));
  return watches
    .filter((w) => w.watchers >= minWatchers)
    .sort((a, b) => b.watchers - a.watchers || (a.path < b.path ? -1 : 1))
    .map((w) => {
      const { lock, context } = contextOf(w.path, byPath);
      const message = `${w.watchers} sessions watch ${w.path}: ${FIX}.${context ? ` ${context}` : ''}`;
      return { path: w.path, watchers: w.watchers, sessions: [...w.sessions], lock, context, message };
    });
}

/** The herds a lock's own page shows: on its directory or one of its nodes, never the ensemble's other herds. */
export function herdsOfLock(herds: readonly LockHerd[], lockPath: string): LockHerd[] {
  return herds.filter((h) => h.lock === lockPath);
}
