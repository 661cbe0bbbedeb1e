/** Totals and listing of the watches view, pure for tests. */
import type { WatchesResponse } from '@keeper/shared';
import type { ByPath } from './watchesQueries';

type SummaryRow = WatchesResponse['summary'][number];

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
