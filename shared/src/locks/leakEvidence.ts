/**
 * Proving a contender leaked: its owner is alive but has no watch in the lock directory, so
 * it is not waiting for anything (kazoo #732: a failed non-blocking acquire whose cleanup hit
 * a connection loss). Zero false "leaked" is the bar, so only absences that prove something
 * count:
 *  - a gathering proves an absence only if every member answered (a watch lives on the member
 *    its session is connected to) and the owner was connected then (a session between two
 *    connections has no watch anywhere until it re-registers them on the new member);
 *  - and only if it was asked after Keeper had seen the node (a gathering from before the
 *    node existed says nothing about it);
 *  - a live waiter re-registers its watch milliseconds after each event, so one gathering can
 *    catch it between the two: it takes two proving gatherings at least LEAK_MIN_GAP_MS apart,
 *    with no watch seen in any gathering since the earlier one (a watch seen in between, even
 *    by an incomplete gathering, is a live waiter).
 */
import { parentPath } from '../paths.js';
import type { LeakCheck, WatchingState } from './schemas.js';

export const LEAK_MIN_GAP_MS = 10_000;

/** One gathering of wchp (and cons) over the ensemble's members. */
export interface WatchGathering {
  /** Keeper's clock when the first question was sent. */
  askedAt: number;
  /** Keeper's clock when the last answer had arrived. */
  answeredAt: number;
  /** Every serving member answered: an absence here is an absence on the ensemble. */
  complete: boolean;
  /** path -> ids of the sessions watching it, merged over members (parseWchp, mergeWatchesByPath). */
  watches: ReadonlyMap<string, readonly string[]>;
  /** Sessions with a connection on some member (cons) in this gathering; null when not asked. */
  connectedSessions: ReadonlySet<string> | null;
}

/** directory -> session -> the paths it watches there (the directory itself and its children). */
type DirectoryIndex = Map<string, Map<string, string[]>>;
const indexes = new WeakMap<WatchGathering, DirectoryIndex>();

function add(index: DirectoryIndex, dir: string, session: string, path: string): void {
  let bySession = index.get(dir);
  if (!bySession) index.set(dir, (bySession = new Map()));
  const paths = bySession.get(session);
  if (paths) paths.push(path);
  else bySession.set(session, [path]);
}

/** Built once per gathering, so checking 100 directories does not walk every watch 100 times. */
function indexOf(gathering: WatchGathering): DirectoryIndex {
  let index = indexes.get(gathering);
  if (index) return index;
  index = new Map();
  for (const [path, sessions] of gathering.watches) {
    const parent = parentPath(path);
    for (const session of sessions) {
      add(index, path, session, path);
      if (parent !== null) add(index, parent, session, path);
    }
  }
  indexes.set(gathering, index);
  return index;
}

/** The paths in `dir` (itself or a child) that `session` watches in this gathering. */
export function watchesInDirectory(gathering: WatchGathering, dir: string, session: string): readonly string[] {
  return indexOf(gathering).get(dir)?.get(session) ?? [];
}

function provesAbsence(g: WatchGathering, session: string): boolean {
  return g.complete && (g.connectedSessions?.has(session) ?? false);
}

export interface LeakQuestion {
  dir: string;
  /** The owner's session id, normalized ("0x..."). */
  owner: string;
  /** Keeper's clock when a listing that included the node had arrived. */
  firstSeenAt: number;
  /** Whether a watch on this path is the one its recipe sets (its predecessor; for a reader, a writer ahead). */
  isBlocker: (path: string) => boolean;
}

export interface LeakAnswer {
  /** Proven by two gatherings as above. */
  leaked: boolean;
  /** What the latest gathering after the node appeared says. */
  watching: WatchingState;
}

/** What `owner` watches in `dir` in the latest gathering asked after Keeper had seen its node; null without one. */
export function latestWatchesInDirectory(gatherings: readonly WatchGathering[], dir: string, owner: string, firstSeenAt: number): readonly string[] | null {
  let latest: WatchGathering | null = null;
  for (const g of gatherings) if (g.askedAt >= firstSeenAt && (latest === null || g.askedAt > latest.askedAt)) latest = g;
  return latest === null ? null : watchesInDirectory(latest, dir, owner);
}

export function assessLeak(gatherings: readonly WatchGathering[], q: LeakQuestion): LeakAnswer {
  const relevant = gatherings.filter((g) => g.askedAt >= q.firstSeenAt).sort((a, b) => a.askedAt - b.askedAt);
  const latest = relevant.at(-1);
  if (!latest) return { leaked: false, watching: 'unknown' };

  const latestPaths = watchesInDirectory(latest, q.dir, q.owner);
  const watching: WatchingState = latestPaths.some((p) => q.isBlocker(p))
    ? 'blocker'
    : latestPaths.length > 0
      ? 'elsewhere'
      : provesAbsence(latest, q.owner)
        ? 'nothing'
        : 'unknown';

  // Walk back from the latest while no gathering saw a watch; keep the ones that prove absence.
  const proving: WatchGathering[] = [];
  for (let i = relevant.length - 1; i >= 0; i--) {
    const g = relevant[i]!;
    if (watchesInDirectory(g, q.dir, q.owner).length > 0) break;
    if (provesAbsence(g, q.owner)) proving.push(g);
  }
  const newest = proving[0];
  const oldest = proving.at(-1);
  // The gap counts from when the earlier answer had arrived to when the later question was sent.
  const leaked = newest !== undefined && oldest !== undefined && newest.askedAt - oldest.answeredAt >= LEAK_MIN_GAP_MS;
  return { leaked, watching };
}

/** What the gatherings at hand allow, for the answer's `leakCheck`. */
export function leakCheckSummary(gatherings: readonly WatchGathering[]): LeakCheck {
  const complete = gatherings.filter((g) => g.complete).sort((a, b) => a.askedAt - b.askedAt);
  const first = complete[0];
  const last = complete.at(-1);
  const spanMs = first && last && first !== last ? Math.max(0, last.askedAt - first.answeredAt) : null;
  const ready = spanMs !== null && spanMs >= LEAK_MIN_GAP_MS;
  const gapText = `${LEAK_MIN_GAP_MS / 1000} s`;
  const sentence = ready
    ? `Watches gathered ${complete.length} times over ${Math.round(spanMs / 1000)} s: a contender is called leaked when its owner, alive and connected, watched nothing in the lock in gatherings at least ${gapText} apart.`
    : `Nothing is called leaked yet: that takes two complete watch gatherings at least ${gapText} apart (${complete.length === 0 ? 'none so far' : complete.length === 1 ? 'one so far' : `the ${complete.length} so far span ${Math.round((spanMs ?? 0) / 1000)} s`}).`;
  return { gatherings: gatherings.length, spanMs, ready, sentence };
}
