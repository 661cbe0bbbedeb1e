/** One page of the Locks list (issue 25, item 1): bounded, filtered over every lock, counted in all. */
import { describe, expect, it } from 'vitest';
import { analyzeLock, compareLocksWorstFirst, pageOfLocks, recognizeLock, type LockReport } from '../../src/locks/index.js';
import { facts, kazooLock, session, sessions, T0 } from './support.js';

function lock(path: string, owners: string[]): LockReport {
  const names = owners.map((_, i) => kazooLock(i + 1, i));
  return analyzeLock({
    lock: recognizeLock({ path, children: names })!,
    facts: new Map(names.map((n, i) => [n, facts(owners[i]!)])),
    sessions: sessions(session('0xa'), session('0xb')),
    gatherings: [],
    now: T0,
  });
}

const all = [
  ...Array.from({ length: 250 }, (_, i) => lock(`/jobs/j${String(i).padStart(3, '0')}`, ['0xa', '0xb'])),
  lock('/stuck/p', ['0x0', '0xa']),
  lock('/solo/s', ['0xa']),
].sort(compareLocksWorstFirst);

describe('pageOfLocks', () => {
  it('answers one page, worst first, with the total and the counts of the whole list', () => {
    const page = pageOfLocks(all, { q: '', offset: 0, limit: 100 });
    expect(page.locks).toHaveLength(100);
    expect(page.locks[0]!.path).toBe('/stuck/p');
    expect(page.total).toBe(252);
    expect(page.counts).toEqual({ leaked: 0, persistent: 1, waiting: 250, holder: 1, empty: 0 });
    const last = pageOfLocks(all, { q: '', offset: 200, limit: 100 });
    expect(last.locks).toHaveLength(52);
    expect(last.locks.at(-1)!.path).toBe('/solo/s');
  });

  it('filters every lock, not just the page, by path, recipe, status or flag words', () => {
    expect(pageOfLocks(all, { q: 'j249', offset: 0, limit: 10 }).locks.map((l) => l.path)).toEqual(['/jobs/j249']);
    const persistent = pageOfLocks(all, { q: 'persistent', offset: 0, limit: 10 });
    expect(persistent.total).toBe(1);
    expect(persistent.counts.persistent).toBe(1);
    expect(pageOfLocks(all, { q: 'KAZOO solo', offset: 0, limit: 10 }).total).toBe(1);
    expect(pageOfLocks(all, { q: 'nothing-like-this', offset: 0, limit: 10 })).toEqual({
      locks: [],
      total: 0,
      counts: { leaked: 0, persistent: 0, waiting: 0, holder: 0, empty: 0 },
    });
  });
});
