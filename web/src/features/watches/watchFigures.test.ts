import { describe, expect, it } from 'vitest';
import { topPaths, totals } from './watchFigures';
import { watches } from '../ensemble/fixtures';

describe('watch figures', () => {
  it('sums members and says when a member did not answer', () => {
    expect(totals(watches(false).summary)).toEqual({ connections: 8, paths: 26, watches: 50, partial: true });
    expect(totals(watches(false).summary.slice(0, 2)).partial).toBe(false);
  });
  it('lists the most watched paths first, filtered and limited', () => {
    const paths = watches(true).byPath!.paths;
    expect(topPaths(paths, '', 2)).toEqual({ rows: [paths[0], paths[2]], matched: 3 });
    expect(topPaths(paths, 'LOCKS', 10).rows.map((p) => p.path)).toEqual(['/locks/jobs/_c_8f3e-lock-0000000041']);
  });
});
