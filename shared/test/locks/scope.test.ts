/**
 * What a share link receives of the Locks view (issue 22, item 12): its subtree only, and owner
 * sessions, client and member addresses only with the ensemble views. The server runs exactly
 * these functions on every lock answer and topic event a share link gets.
 */
import { describe, expect, it } from 'vitest';
import {
  analyzeLock,
  findLockHerds,
  leakCheckSummary,
  recognizeLock,
  scopeHerds,
  scopeLockResponse,
  scopeLocksResponse,
  type LockReport,
  type LocksAnswer,
} from '../../src/locks/index.js';
import { mergeWatchesByPath } from '../../src/ensemble/index.js';
import { facts, gathering, kazooLock, session, sessions, T0 } from './support.js';

const INSIDE = '/app/locks/leaky';
const OUTSIDE = '/app/queue/lock';
const A = kazooLock(1, 0);
const B = kazooLock(2, 1);
const C = kazooLock(3, 2);

function report(path: string): LockReport {
  const waiterOnly = { [`${path}/${B}`]: ['0x1c0000c'] };
  return analyzeLock({
    lock: recognizeLock({ path, children: [A, B, C] })!,
    facts: new Map([
      [A, facts('0x1a0000a')],
      [B, facts('0x1b0000b')],
      [C, facts('0x1c0000c')],
    ]),
    sessions: sessions(
      session('0x1a0000a', { client: '10.1.2.3:40001', member: 'zk1:2181' }),
      session('0x1b0000b', { client: '10.1.2.4:40002', member: 'zk2:2181', timeoutMs: 4_000 }),
      session('0x1c0000c', { client: '10.1.2.5:40003', member: 'zk3:2181' }),
    ),
    gatherings: [
      gathering(T0, waiterOnly, { connected: ['0x1a0000a', '0x1b0000b', '0x1c0000c'] }),
      gathering(T0 + 15_000, waiterOnly, { connected: ['0x1a0000a', '0x1b0000b', '0x1c0000c'] }),
    ],
    now: T0 + 20_000,
  });
}

const inside = report(INSIDE);
const outside = report(OUTSIDE);
const herdIds = Array.from({ length: 20 }, (_, i) => `0x2${String(i).padStart(6, '0')}`);
const herds = findLockHerds(
  mergeWatchesByPath([
    new Map([
      ['/app/queue/head', herdIds],
      [`${INSIDE}/${B}`, herdIds.slice(0, 12)],
    ]),
  ]),
  [inside, outside],
);

const list: LocksAnswer = {
  ensemble: 'prod',
  root: '/',
  q: '',
  locks: [inside, outside],
  offset: 0,
  limit: 100,
  total: 2,
  counts: { leaked: 2, persistent: 0, waiting: 0, holder: 0, empty: 0 },
  ownersHidden: false,
  herds,
  leakCheck: leakCheckSummary([]),
  roots: ['/app/locks', '/app/queue'],
  tracked: 2,
  trackLimit: 1000,
  opened: 0,
  openedLimit: 100,
  lastScan: {
    path: '/',
    jobId: 'j',
    state: 'done',
    startedAt: 1,
    finishedAt: 2,
    visited: 3,
    found: 2,
    requests: 3,
    skipped: [{ path: '/app/queue/big', reason: 'too big' }],
    skippedTotal: 1,
  },
  at: 1,
};

/** Every session id, client and member address, and out-of-scope path the scene holds. */
const SECRETS = [...herdIds, '0x1a0000a', '0x1b0000b', '0x1c0000c', '10.1.2.3', '10.1.2.4', '10.1.2.5', 'zk1:2181', 'zk2:2181', 'zk3:2181'];
const OUT_OF_SCOPE = ['/app/queue'];

function leaks(payload: unknown, words: readonly string[]): string[] {
  const text = JSON.stringify(payload);
  return words.filter((w) => text.includes(w));
}

describe('the scene', () => {
  it('has what a link must not see: a leaked node whose consequence names its session, owners with addresses, a herd outside', () => {
    expect(inside.contenders[1]!.status).toBe('leaked');
    expect(inside.contenders[1]!.consequence).toContain('session 0x1b0000b');
    expect(leaks(list, SECRETS)).toEqual(SECRETS);
    expect(leaks(list, OUT_OF_SCOPE)).toEqual(OUT_OF_SCOPE);
  });
});

describe('a link to a subtree without the ensemble views', () => {
  const scope = { root: '/app/locks', ensembleViews: false };

  it('gets no lock, herd, root or scan outside its subtree, and no session id or address anywhere', () => {
    const scoped = scopeLocksResponse(list, scope);
    expect(scoped.locks.map((l) => l.path)).toEqual([INSIDE]);
    expect(scoped.herds.map((h) => h.path)).toEqual([`${INSIDE}/${B}`]);
    expect(scoped.roots).toEqual(['/app/locks']);
    expect(scoped.lastScan).toBeNull();
    expect(scoped.ownersHidden).toBe(true);
    expect(leaks(scoped, SECRETS)).toEqual([]);
    expect(leaks(scoped, OUT_OF_SCOPE)).toEqual([]);
  });

  it("keeps what is the lock's own: statuses, positions, timeouts, and the consequence said without the id", () => {
    const scoped = scopeLockResponse({ ensemble: 'prod', lock: inside, herds, leakCheck: list.leakCheck, ownersHidden: false, at: 1 }, scope)!;
    expect(scoped.lock.contenders.map((c) => c.status)).toEqual(['holder', 'leaked', 'waiting']);
    expect(scoped.lock.contenders[1]!.owner).toMatchObject({ sessionId: null, client: null, member: null, timeoutMs: 4_000, known: true });
    expect(scoped.lock.contenders[1]!.consequence).toContain("until the owner's session ends");
    expect(scoped.lock.contenders[2]!.consequence).toContain("after the owner's session ends");
    expect(scoped.herds.every((h) => h.sessions.length === 0)).toBe(true);
    expect(leaks(scoped, [...SECRETS, ...OUT_OF_SCOPE])).toEqual([]);
  });

  it('gets nothing for a lock outside its subtree', () => {
    expect(scopeLockResponse({ ensemble: 'prod', lock: outside, herds: [], leakCheck: list.leakCheck, ownersHidden: false, at: 1 }, scope)).toBeNull();
  });

  it("drops a herd's lock when that lock lies outside (a herd on the root's own node)", () => {
    const rootHerd = findLockHerds(mergeWatchesByPath([new Map([[INSIDE, herdIds]])]), [report('/app/locks')]);
    const scoped = scopeHerds(rootHerd.length > 0 ? rootHerd : [], { root: INSIDE, ensembleViews: false });
    for (const h of scoped) expect(h.lock === null || h.lock.startsWith(INSIDE)).toBe(true);
  });
});

describe('a link with the ensemble views', () => {
  it('sees owners and addresses, but still nothing outside its subtree', () => {
    const scoped = scopeLocksResponse(list, { root: '/app/locks', ensembleViews: true });
    expect(scoped.locks.map((l) => l.path)).toEqual([INSIDE]);
    expect(scoped.locks[0]!.contenders[1]!.owner).toMatchObject({ sessionId: '0x1b0000b', client: '10.1.2.4:40002', member: 'zk2:2181' });
    expect(scoped.herds.map((h) => h.path)).toEqual([`${INSIDE}/${B}`]);
    expect(scoped.ownersHidden).toBe(false);
    expect(leaks(scoped, OUT_OF_SCOPE)).toEqual([]);
    expect(leaks(scoped, herdIds.slice(12))).toEqual([]);
  });

  it('at the root sees everything', () => {
    expect(scopeLocksResponse(list, { root: '/', ensembleViews: true })).toEqual(list);
  });
});
