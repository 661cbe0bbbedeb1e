/** wchp merged over members, and herds. */
import { describe, expect, it } from 'vitest';
import { detectWatchHerds, mergeWatchesByPath, parseWchp, WATCH_COST_WARNING } from '../../src/ensemble/index.js';
import { fx } from './fixtures.js';

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `0x${prefix}${i.toString(16)}`);

describe('mergeWatchesByPath', () => {
  it('unions the sessions of each member, most watched first', () => {
    const merged = mergeWatchesByPath([parseWchp(fx.wchpFollower), parseWchp(fx.wchpFollower2)]);
    expect(merged.map((p) => [p.path, p.watchers])).toEqual([
      ['/app/locks/leader', 6],
      ['/app/config', 2],
    ]);
    expect(merged[1]!.sessions).toEqual(['0x100002f75570004', '0x200002f766c0004']);
  });

  it('counts a session once per path', () => {
    const a = new Map([['/x', ['0x1', '0x1', '0x2']]]);
    expect(mergeWatchesByPath([a, a])).toEqual([{ path: '/x', sessions: ['0x1', '0x2'], watchers: 2 }]);
  });
});

describe('detectWatchHerds', () => {
  it('flags 10 or more watchers of one path', () => {
    const paths = mergeWatchesByPath([
      new Map([
        ['/locks/job', ids('a', 10)],
        ['/few', ids('b', 9)],
      ]),
    ]);
    const herds = detectWatchHerds(paths, null);
    expect(herds.map((h) => h.path)).toEqual(['/locks/job']);
    expect(herds[0]!.message).toMatch(/^10 sessions watch \/locks\/job: .*predecessor/);
  });

  it('flags half the sessions or more, with at least 3 watchers', () => {
    const paths = mergeWatchesByPath([
      new Map([
        ['/half', ids('a', 3)],
        ['/two', ids('b', 2)],
      ]),
    ]);
    expect(detectWatchHerds(paths, 6).map((h) => h.path)).toEqual(['/half']);
    expect(detectWatchHerds(paths, 7)).toEqual([]);
    expect(detectWatchHerds(paths, 4).map((h) => h.path)).toEqual(['/half']);
    expect(detectWatchHerds(paths, 6)[0]!.message).toContain('(50% of 6 sessions)');
    expect(detectWatchHerds(paths, 0)).toEqual([]);
  });

  it('carries the documented cost warning', () => {
    expect(WATCH_COST_WARNING).toContain('wchc and wchp may be expensive');
    expect(WATCH_COST_WARNING).toContain('Run on demand only.');
  });
});
