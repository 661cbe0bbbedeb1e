/** Herds from wchp, said in lock terms with the fix (issue 12, item 6). */
import { describe, expect, it } from 'vitest';
import { mergeWatchesByPath } from '../../src/ensemble/index.js';
import { analyzeLock, findLockHerds, herdsOfLock, recognizeLock } from '../../src/locks/index.js';
import { facts, kazooLock, session, sessions, T0 } from './support.js';

const ids = (n: number, prefix = 'a') => Array.from({ length: n }, (_, i) => `0x${prefix}${i.toString(16)}`);

const DIR = '/app/locks/job';
const A = kazooLock(1, 0);
const B = kazooLock(2, 1);
const lock = analyzeLock({
  lock: recognizeLock({ path: DIR, children: [A, B] })!,
  facts: new Map([
    [A, facts('0xa')],
    [B, facts('0xb')],
  ]),
  sessions: sessions(session('0xa'), session('0xb')),
  gatherings: [],
  now: T0,
});

describe('findLockHerds', () => {
  it('finds paths with 10 watchers or more by default, most watched first, with the fix', () => {
    const watches = mergeWatchesByPath([
      new Map([
        ['/queue/holder', ids(20)],
        ['/few', ids(9, 'b')],
        ['/ten', ids(10, 'c')],
      ]),
    ]);
    const herds = findLockHerds(watches, []);
    expect(herds.map((h) => [h.path, h.watchers])).toEqual([
      ['/queue/holder', 20],
      ['/ten', 10],
    ]);
    expect(herds[0]).toMatchObject({
      lock: null,
      context: null,
      message: '20 sessions watch /queue/holder: each change wakes all of them; a lock recipe with predecessor watches wakes one.',
    });
    expect(herds[0]!.sessions).toHaveLength(20);
  });

  it('takes the threshold from the config', () => {
    const watches = mergeWatchesByPath([new Map([['/x', ids(3)]])]);
    expect(findLockHerds(watches, [], 3)).toHaveLength(1);
    expect(findLockHerds(watches, [], 4)).toHaveLength(0);
  });

  it('says what the path is to a known lock', () => {
    const watches = mergeWatchesByPath([
      new Map([
        [`${DIR}/${A}`, ids(12)],
        [DIR, ids(11, 'b')],
        [`${DIR}/${B}`, ids(10, 'c')],
        [`${DIR}/gone`, ids(10, 'd')],
      ]),
    ]);
    const herds = findLockHerds(watches, [lock]);
    expect(herds.map((h) => [h.lock, h.context])).toEqual([
      [DIR, `It is the holder of kazoo Lock (or Election) ${DIR}.`],
      [DIR, `It is the directory of kazoo Lock (or Election) ${DIR}.`],
      [DIR, `It is contender 2 of kazoo Lock (or Election) ${DIR}.`],
      [DIR, `It is a node of kazoo Lock (or Election) ${DIR}.`],
    ]);
    expect(herds[0]!.message).toBe(
      `12 sessions watch ${DIR}/${A}: each change wakes all of them; a lock recipe with predecessor watches wakes one. It is the holder of kazoo Lock (or Election) ${DIR}.`,
    );
  });

  it("a lock's page shows only the herds on its own directory and nodes (issue 22, item 10: the queue's herd repeated on every lock page)", () => {
    const watches = mergeWatchesByPath([
      new Map([
        ['/app/queue/head', ids(20)],
        [`${DIR}/${A}`, ids(12, 'b')],
        [`${DIR}2/x`, ids(11, 'c')],
      ]),
    ]);
    const herds = findLockHerds(watches, [lock]);
    expect(herds).toHaveLength(3);
    expect(herdsOfLock(herds, DIR).map((h) => h.path)).toEqual([`${DIR}/${A}`]);
    expect(herdsOfLock(herds, '/other/lock')).toEqual([]);
  });
});
