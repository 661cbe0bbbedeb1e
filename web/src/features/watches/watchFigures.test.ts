import { describe, expect, it } from 'vitest';
import { consoleFirst, distinctPaths, headline, topPaths, totals, watchedByConsole } from './watchFigures';
import { watches } from '../../testSupport/ensembleFixtures';

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
  it('counts distinct paths only where wchp allows, and otherwise says the sum is per member', () => {
    const sum = { connections: 5, paths: 27, watches: 62, partial: false };
    expect(headline(sum, 3, undefined).text).toBe('62 watches · 27 path-watches across 3 members');
    expect(headline(sum, 3, 19).text).toBe('62 watches on 19 distinct paths (wchp)');
    expect(headline(sum, 3, 1).text).toBe('62 watches on 1 distinct path (wchp)');
    // Only a complete and recent wchp says how many distinct paths there are.
    const at = 1_000_000;
    expect(distinctPaths({ distinctPaths: 19, gaps: [], gatheredAt: at }, at + 60_000)).toBe(19);
    expect(distinctPaths({ distinctPaths: 19, gaps: [], gatheredAt: at }, at + 60_001)).toBeUndefined();
    expect(distinctPaths({ distinctPaths: 12, gaps: [{ member: 'm:3', reason: 'down' }], gatheredAt: at }, at)).toBeUndefined();
    expect(distinctPaths({ gaps: [], gatheredAt: at }, at)).toBeUndefined();
    expect(distinctPaths(undefined, at)).toBeUndefined();
    expect(headline(sum, 1, undefined).text).toBe('62 watches on 27 paths');
    expect(headline({ ...sum, partial: true }, 3, undefined).text).toBe('62 watches · 27 path-watches across 3 members (some members did not answer)');
  });
  it("marks and lists the console's own session first", () => {
    expect(consoleFirst(['0x1', '0x2', '0x3'], '0x3')).toEqual(['0x3', '0x1', '0x2']);
    expect(consoleFirst(['0x1', '0x2'], '0x9')).toEqual(['0x1', '0x2']);
    expect(consoleFirst(['0x1'], null)).toEqual(['0x1']);
    expect(watchedByConsole({ path: '/a', sessions: ['0x1', '0x3'], watchers: 2 }, '0x3')).toBe(true);
    expect(watchedByConsole({ path: '/a', sessions: ['0x1'], watchers: 1, byConsole: false }, '0x1')).toBe(false);
    expect(watchedByConsole({ path: '/a', sessions: ['0x1'], watchers: 1 }, null)).toBe(false);
  });
});
