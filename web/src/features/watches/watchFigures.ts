/** Totals and listing of the watches view, pure for tests. */
import type { WatchesAnswer } from '@keeper/shared';
import { count } from '../../ui/format';
import type { ByPath } from './watchesApi';

type SummaryRow = WatchesAnswer['summary'][number];

export interface Totals {
  connections: number;
  paths: number;
  watches: number;
  /** Some member did not answer: the totals are a lower bound. */
  partial: boolean;
}

export function totals(rows: readonly SummaryRow[]): Totals {
  const out: Totals = { connections: 0, paths: 0, watches: 0, partial: false };
  for (const r of rows) {
    if (r.error !== null || r.watches === null) out.partial = true;
    out.connections += r.connections ?? 0;
    out.paths += r.paths ?? 0;
    out.watches += r.watches ?? 0;
  }
  return out;
}

export type PathRow = ByPath['paths'][number];

/** Most watched first (ties by path), filtered by a case-insensitive substring of the path. */
export function topPaths(paths: readonly PathRow[], query: string, limit: number): { rows: PathRow[]; matched: number } {
  const q = query.trim().toLowerCase();
  const matched = (q === '' ? [...paths] : paths.filter((p) => p.path.toLowerCase().includes(q))).sort(
    (a, b) => b.watchers - a.watchers || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
  return { rows: matched.slice(0, limit), matched: matched.length };
}

export interface Headline {
  /** "62 watches on 19 distinct paths", or "62 watches · 27 path-watches across 3 members" when distinct paths are unknown. */
  text: string;
  /** Where the path count comes from, for a hover title. */
  title: string;
}

/** A wchp answer older than this no longer describes the watches wchs counts now. */
export const DISTINCT_PATHS_MAX_AGE_MS = 60_000;

/** Distinct watched paths, when a wchp recent enough and complete (no member missing) says so; else undefined. */
export function distinctPaths(byPath: Pick<ByPath, 'distinctPaths' | 'gaps' | 'gatheredAt'> | undefined, now: number): number | undefined {
  if (!byPath || byPath.distinctPaths === undefined || byPath.gaps.length > 0) return undefined;
  return now - byPath.gatheredAt <= DISTINCT_PATHS_MAX_AGE_MS ? byPath.distinctPaths : undefined;
}

/**
 * The view's one-line summary, truthful about paths: wchs counts paths per member, so a path
 * watched through two members counts twice in the sum. Only wchp (by path, merged over every
 * member, none missing, and recent) tells distinct paths; without it the sum is called what it is.
 */
export function headline(sum: Totals, members: number, distinct: number | undefined): Headline {
  const watches = `${count(sum.watches)} ${sum.watches === 1 ? 'watch' : 'watches'}`;
  const partial = sum.partial ? ' (some members did not answer)' : '';
  if (distinct !== undefined) {
    return {
      text: `${watches} on ${count(distinct)} distinct ${distinct === 1 ? 'path' : 'paths'} (wchp)${partial}`,
      title: 'Distinct paths from the last wchp (by path, merged over every member, within the last minute); watches from wchs',
    };
  }
  if (members <= 1) {
    return { text: `${watches} on ${count(sum.paths)} ${sum.paths === 1 ? 'path' : 'paths'}${partial}`, title: 'From wchs' };
  }
  return {
    text: `${watches} · ${count(sum.paths)} path-watches across ${members} members${partial}`,
    title: 'wchs counts watched paths per member: a path watched through several members counts once per member. Run wchp for distinct paths.',
  };
}

/** The console's own session first, then the others as listed. */
export function consoleFirst(sessions: readonly string[], consoleSessionId: string | null | undefined): string[] {
  if (!consoleSessionId || !sessions.includes(consoleSessionId)) return [...sessions];
  return [consoleSessionId, ...sessions.filter((id) => id !== consoleSessionId)];
}

/** Does Keeper's own session watch this path? (the server says so; older servers only give the id) */
export function watchedByConsole(row: PathRow, consoleSessionId: string | null | undefined): boolean {
  return row.byConsole ?? (consoleSessionId ? row.sessions.includes(consoleSessionId) : false);
}
