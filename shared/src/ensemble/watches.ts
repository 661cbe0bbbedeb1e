/**
 * Watches by path, merged over members (each member lists the watches of its own
 * connections), and herd detection: many sessions watching one znode are all notified at
 * once when it changes and usually all re-read it, the thundering herd that ZooKeeper's lock
 * recipe avoids by having each waiter watch only its predecessor.
 */
export const WATCH_COST_WARNING =
  'wchc and wchp may be expensive: ZooKeeper holds a lock while it walks every watch; on a busy ensemble with many watches this can affect performance. Run on demand only.';

export const WATCH_HERD_MIN_WATCHERS = 10;
export const WATCH_HERD_SHARE = 0.5;
/** The share rule needs a few sessions: 1 of 2 sessions watching a path is not a herd. */
export const WATCH_HERD_SHARE_MIN_WATCHERS = 3;

export interface PathWatchers {
  path: string;
  sessions: string[];
  watchers: number;
}

export function mergeWatchesByPath(perMember: readonly ReadonlyMap<string, readonly string[]>[]): PathWatchers[] {
  const merged = new Map<string, Set<string>>();
  for (const byPath of perMember) {
    for (const [path, ids] of byPath) {
      const set = merged.get(path) ?? new Set<string>();
      for (const id of ids) set.add(id);
      merged.set(path, set);
    }
  }
  return [...merged.entries()]
    .map(([path, ids]) => ({ path, sessions: [...ids].sort(), watchers: ids.size }))
    .sort((a, b) => b.watchers - a.watchers || a.path.localeCompare(b.path));
}

/** A watch herd (the Watches view): many sessions watching one znode, all woken by its next change. Not a RequestHerd (sessions flooding the ensemble with requests) nor a LockHerd (a watch herd on a known lock). */
export interface WatchHerd {
  path: string;
  watchers: number;
  message: string;
}

/** `totalSessions`: sessions on the ensemble (null when unknown: only the absolute rule applies). */
export function detectWatchHerds(paths: readonly PathWatchers[], totalSessions: number | null): WatchHerd[] {
  const herds: WatchHerd[] = [];
  for (const p of paths) {
    const share = totalSessions && totalSessions > 0 ? p.watchers / totalSessions : null;
    const byCount = p.watchers >= WATCH_HERD_MIN_WATCHERS;
    const byShare = share !== null && share >= WATCH_HERD_SHARE && p.watchers >= WATCH_HERD_SHARE_MIN_WATCHERS;
    if (!byCount && !byShare) continue;
    const shareText = share !== null ? ` (${Math.round(share * 100)}% of ${totalSessions} sessions)` : '';
    herds.push({
      path: p.path,
      watchers: p.watchers,
      message:
        `${p.watchers} sessions watch ${p.path}${shareText}: when it changes or is deleted all of them are notified at once and usually all re-read it (a herd). ` +
        'For a lock or leader election, have each waiter watch only its predecessor (the ZooKeeper lock recipe); for shared configuration this may be fine.',
    });
  }
  return herds;
}
