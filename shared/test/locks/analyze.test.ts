/** One lock directory as the API answers it: counts, contenders, times, permits, notes, and the shared schemas. */
import { describe, expect, it } from 'vitest';
import {
  analyzeLock,
  compareLocksWorstFirst,
  lockAnswerSchema,
  lockSchema,
  locksAnswerSchema,
  leakCheckSummary,
  recognizeLock,
  sessionsById,
  type AnalyzeLockInput,
  type ContenderFacts,
  type LockReport,
} from '../../src/locks/index.js';
import { curator, facts, hex32, kazooLock, seq, session, sessions, T0, utf8 } from './support.js';

const NOW = T0 + 60_000;

function analyze(path: string, children: string[], over: Partial<AnalyzeLockInput> & { owners?: string[] } = {}): LockReport {
  const lock = recognizeLock({ path, children })!;
  const owners = over.owners ?? children.map((_, i) => `0x${(10 + i).toString(16)}`);
  const input: AnalyzeLockInput = {
    lock,
    facts: new Map(lock.contenders.map((c, i) => [c.name, facts(owners[i]!)])),
    sessions: sessions(...owners.filter((o) => o !== '0x0').map((o) => session(o))),
    gatherings: [],
    now: NOW,
    ...over,
  };
  return analyzeLock(input);
}

describe('analyzeLock', () => {
  it('answers in the shared schema, with owner, data, position and chain', () => {
    const A = kazooLock(1, 0);
    const B = kazooLock(2, 1);
    const lock = recognizeLock({ path: '/l', children: [B, A] })!;
    const report = analyzeLock({
      lock,
      facts: new Map([
        [A, facts('0xa', { data: utf8('worker-1'), holdingSince: NOW - 5_000 })],
        [B, facts('0xb', { ctime: NOW - 7_000 })],
      ]),
      sessions: sessions(session('0xa', { client: '10.0.0.5:4242', timeoutMs: 900_000 })),
      gatherings: [],
      now: NOW,
    });
    expect(lockSchema.parse(report)).toEqual(report);
    expect(report).toMatchObject({
      path: '/l',
      total: 2,
      holders: 1,
      waiters: 1,
      recipe: { id: 'kazoo.Lock', kind: 'exclusive', holding: 'lowest', library: 'kazoo' },
    });
    const [a, b] = report.contenders;
    expect(a).toMatchObject({
      path: `/l/${A}`,
      sequence: 0,
      position: 1,
      status: 'holder',
      heldForMs: 5_000,
      waitingForMs: null,
      waitsFor: null,
      data: { kind: 'identifier', text: 'worker-1' },
      owner: { sessionId: '0xa', known: true, client: '10.0.0.5:4242', member: '127.0.0.1:2191', timeoutMs: 900_000, connected: true },
    });
    expect(a!.flags.map((f) => f.kind)).toEqual(['long-timeout']);
    expect(b).toMatchObject({
      position: 2,
      status: 'waiting',
      heldForMs: null,
      waitingForMs: 7_000,
      watching: 'unknown',
      owner: { sessionId: '0xb', known: false, client: null },
    });
    expect(b!.waitsFor).toEqual({
      next: `/l/${A}`,
      holder: `/l/${A}`,
      links: 1,
      text: `${hex32(2).slice(0, 6)}…__lock__${seq(1)} waits for ${hex32(1).slice(0, 6)}…__lock__${seq(0)} (holder)`,
    });
    expect(report.oldestHoldMs).toBe(5_000);
  });

  it('a Curator read-write lock: two readers hold, the writer waits for the second', () => {
    const names = [curator(1, '__READ__', 0), curator(2, '__READ__', 1), curator(3, '__WRIT__', 2)];
    const report = analyze('/rw', names);
    expect(report.contenders.map((c) => [c.role, c.status])).toEqual([
      ['reader', 'holder'],
      ['reader', 'holder'],
      ['writer', 'waiting'],
    ]);
    expect(report.contenders[2]!.waitsFor!.next).toBe(`/rw/${names[1]}`);
  });

  it('a leader latch names its leader', () => {
    const report = analyze('/latch', [curator(1, 'latch-', 4), curator(2, 'latch-', 5)]);
    expect(report.contenders[1]!.waitsFor!.text).toMatch(/ \(leader\)$/);
    expect(report.recipe.kind).toBe('election');
  });

  it('a persistent node says no session will remove it, holding or not', () => {
    const holder = analyze('/p', [kazooLock(1, 0), kazooLock(2, 1)], { owners: ['0x0', '0xb'] });
    expect(holder.contenders.map((c) => [c.status, c.holding, c.owner])).toEqual([
      ['persistent', true, null],
      ['waiting', false, expect.objectContaining({ sessionId: '0xb' })],
    ]);
    expect(holder.contenders[0]!.consequence).toBe("It holds the lock and no session's end removes it: every waiter waits until someone deletes it.");
    expect(holder.contenders[1]!.consequence).toMatch(/^It waits behind persistent node .*: it gets the lock only after someone deletes that node\.$/);
    const behind = analyze('/p', [kazooLock(1, 0), kazooLock(2, 1), kazooLock(3, 2)], { owners: ['0xa', '0xb', '0x0'] });
    expect(behind.contenders[2]!.consequence).toBe(
      "When the 2 nodes it waits behind are gone, it becomes the holder and, as no session's end removes it, the lock deadlocks until someone deletes it.",
    );
    expect(behind.worstStatus).toBe('persistent');
  });

  it('flags a hold past the threshold', () => {
    const A = kazooLock(1, 0);
    const lock = recognizeLock({ path: '/l', children: [A] })!;
    const input = {
      lock,
      sessions: sessions(session('0xa')),
      gatherings: [],
      now: NOW,
      facts: new Map([[A, facts('0xa', { ctime: NOW - 3 * 3_600_000, holdingSince: NOW - 2 * 3_600_000 })]]),
    };
    expect(analyzeLock(input).contenders[0]!.flags.map((f) => f.kind)).toEqual(['held-long']);
    expect(analyzeLock({ ...input, heldLongMs: 3 * 3_600_000 }).contenders[0]!.flags).toEqual([]);
  });

  describe('since when (issue 22, item 7): holds and waits count from what ZooKeeper and Keeper saw, never from the watch alone', () => {
    const H = kazooLock(1, 0);
    const W = kazooLock(2, 1);
    const lock = recognizeLock({ path: '/l', children: [H, W] })!;
    const CREATED = NOW - 111_000;
    const WATCHED = NOW - 55_000;
    const run = (hold: Partial<ContenderFacts>) =>
      analyzeLock({
        lock,
        sessions: sessions(session('0xa'), session('0xb')),
        gatherings: [],
        now: NOW,
        facts: new Map([
          [H, facts('0xa', { ctime: CREATED, holdingSince: WATCHED, ...hold })],
          [W, facts('0xb', { ctime: NOW - 78_100, firstSeenAt: WATCHED })],
        ]),
      });

    it('a waiter waits since its ctime, whenever Keeper began watching', () => {
      const waiter = run({}).contenders[1]!;
      expect(waiter).toMatchObject({ waitingSince: NOW - 78_100, waitingForMs: 78_100, heldSince: null, heldForMs: null });
    });

    it('a holder nothing was deleted before since its creation holds since its ctime, exactly', () => {
      const report = run({ holdKind: 'created' });
      expect(report.contenders[0]).toMatchObject({ heldSince: { at: CREATED, kind: 'created' }, heldForMs: 111_000, waitingSince: null });
      expect(report).toMatchObject({ oldestHoldMs: 111_000, oldestHoldAtLeast: false });
      // Held longer than its own waiter has waited: the bug was "held 22.0 s" beside "waiting 78.1 s".
      expect(report.contenders[0]!.heldForMs!).toBeGreaterThan(report.contenders[1]!.waitingForMs!);
    });

    it('a holder Keeper saw start holding holds since then', () => {
      expect(run({ holdKind: 'seen', holdingSince: NOW - 20_000 }).contenders[0]).toMatchObject({
        heldSince: { at: NOW - 20_000, kind: 'seen' },
        heldForMs: 20_000,
      });
    });

    it('a holder that already held when Keeper began watching holds at least since then, and says so', () => {
      const report = run({ holdKind: 'atLeast' });
      expect(report.contenders[0]).toMatchObject({ heldSince: { at: WATCHED, kind: 'atLeast' }, heldForMs: 55_000 });
      expect(report).toMatchObject({ oldestHoldMs: 55_000, oldestHoldAtLeast: true });
      // No kind is taken as "at least": never more precise than what was seen.
      expect(run({ holdKind: null }).contenders[0]!.heldSince).toEqual({ at: WATCHED, kind: 'atLeast' });
    });

    it('never before the node existed (clocks differ between Keeper and the ensemble)', () => {
      expect(run({ holdKind: 'seen', holdingSince: CREATED - 5_000 }).contenders[0]!.heldSince).toEqual({ at: CREATED, kind: 'seen' });
    });

    it('each report says when it was computed', () => {
      expect(run({}).computedAt).toBe(NOW);
    });
  });

  // How long it takes: bench/lockAnalysis.ts (not a budget here, where other files share the CPU).
  it('counts a directory of 100,000 contenders and lists only those it has facts for', () => {
    const n = 100_000;
    const names = Array.from({ length: n }, (_, i) => kazooLock(i, n - 1 - i));
    const lock = recognizeLock({ path: '/big', children: names })!;
    const firstNames = lock.contenders.slice(0, 50).map((c) => c.name);
    const report = analyzeLock({
      lock,
      facts: new Map(firstNames.map((name) => [name, facts('0xa')])),
      sessions: sessions(session('0xa')),
      gatherings: [],
      now: NOW,
    });
    expect([report.total, report.holders, report.waiters, report.contenders.length]).toEqual([n, 1, n - 1, 50]);
    expect(report.contenders[0]!.sequence).toBe(0);
    expect(report.contenders[49]!.position).toBe(50);
    // total vs contenders.length says it; the views word it ("showing the first 50 of 100,000").
    expect(report.notes.some((s) => s.includes('Showing'))).toBe(false);
  });
});

describe('analyzeLock: semaphores', () => {
  const siblings = ['pool', 'pool-__lock__'];

  it("reads N from kazoo's Semaphore data", () => {
    const leases = [hex32(1), hex32(2)];
    const lock = recognizeLock({ path: '/s/pool', children: leases, siblings })!;
    const input = { lock, facts: new Map(leases.map((l, i) => [l, facts(`0x${i + 1}`)])), sessions: sessions(), gatherings: [], now: NOW };
    const report = analyzeLock({ ...input, directoryData: utf8('3') });
    expect([report.permits, report.permitsSource, report.holders]).toEqual([3, 'recorded', 2]);
    expect(report.notes).toContain('2 of 3 leases in use.');
    expect(analyzeLock({ ...input, directoryData: utf8('1') }).notes).toContain('2 leases are held for 1 permits: N was lowered while they were held.');
    expect(analyzeLock({ ...input, directoryData: utf8('three') }).permits).toBeNull();
  });

  it("says Curator's SemaphoreV2 N is unknown until configured", () => {
    const leases = [curator(1, 'lease-', 0), curator(2, 'lease-', 1), curator(3, 'lease-', 2)];
    const unknown = analyze('/sem/leases', leases);
    expect([unknown.permits, unknown.permitsSource, unknown.holders]).toEqual([null, null, 3]);
    expect(unknown.notes[0]).toBe(
      'Curator InterProcessSemaphoreV2 does not record its number of leases (N): every lease is counted as held. Set locks.permits["/sem/leases"] in the config to tell holders from waiters.',
    );
    const known = analyze('/sem/leases', leases, { configuredPermits: 2 });
    expect([known.permits, known.permitsSource, known.holders, known.waiters]).toEqual([2, 'configured', 2, 1]);
    expect(known.contenders[2]!.waitsFor!.text).toMatch(/lease-0000000002 waits for .*lease-0000000000 \(holder\)$/);
  });
});

describe('compareLocksWorstFirst', () => {
  it('puts leaked before persistent before waiting before holder-only, then flags, waiters and path', () => {
    const make = (path: string, worstStatus: LockReport['worstStatus'], waiters = 0): LockReport => ({
      ...analyze(path, [kazooLock(1, 0)]),
      worstStatus,
      waiters,
    });
    const locks = [make('/d', 'holder'), make('/c', 'waiting', 1), make('/b', 'waiting', 5), make('/a', 'leaked'), make('/e', 'persistent'), make('/f', null)];
    expect(locks.sort(compareLocksWorstFirst).map((l) => l.path)).toEqual(['/a', '/e', '/b', '/c', '/d', '/f']);
  });
});

describe('sessionsById', () => {
  it('keys sessions by the normalized id', () => {
    expect([...sessionsById([session('0x00AB')]).keys()]).toEqual(['0xab']);
  });
});

describe('response schemas', () => {
  it('carry the lock list and refuse words outside the API', () => {
    const lock = analyze('/l', [kazooLock(1, 0), kazooLock(2, 1)]);
    const body = {
      ensemble: 'prod',
      root: '/',
      locks: [lock],
      herds: [],
      leakCheck: leakCheckSummary([]),
      roots: ['/'],
      tracked: 1,
      trackLimit: 1_000,
      opened: 0,
      openedLimit: 100,
      q: '',
      offset: 0,
      limit: 100,
      total: 1,
      counts: { leaked: 0, persistent: 0, waiting: 1, holder: 0, empty: 0 },
      ownersHidden: false,
      lastScan: null,
      at: 1,
    };
    expect(locksAnswerSchema.parse(JSON.parse(JSON.stringify(body)))).toEqual(body);
    expect(lockAnswerSchema.safeParse({ ensemble: 'prod', lock, herds: [], leakCheck: leakCheckSummary([]), ownersHidden: false, at: 1 }).success).toBe(true);
    const bad = structuredClone(body);
    (bad.locks[0]!.contenders[0] as { status: string }).status = 'stuck';
    expect(locksAnswerSchema.safeParse(bad).success).toBe(false);
    const badFlag = structuredClone(body);
    badFlag.locks[0]!.contenders[0]!.flags.push({ kind: 'silent-near-timeout' as never, message: '' });
    expect(locksAnswerSchema.safeParse(badFlag).success).toBe(false);
  });
});

describe('a holder proven leaked while it waited (seed 002: held by nobody who knows it)', () => {
  it('says the lock is deadlocked, its waiters wait behind a leaked node, and the lock sorts as leaked', () => {
    const A = kazooLock(1, 1);
    const B = kazooLock(2, 2);
    const lock = recognizeLock({ path: '/l', children: [A, B] })!;
    const input: AnalyzeLockInput = {
      lock,
      facts: new Map([
        [A, facts('0xa', { provenLeakedAt: NOW - 20_000 })],
        [B, facts('0xb')],
      ]),
      sessions: sessions(session('0xa', { timeoutMs: 900_000 }), session('0xb')),
      gatherings: [],
      now: NOW,
    };
    const report = analyzeLock(input);
    const [front, behind] = report.contenders;
    expect(front!.status).toBe('holder');
    // Flagged on its own row, not only in its consequence (issue 34 item 6: "holder, held 3 min", no flag).
    expect(front!.flags.map((f) => f.kind)).toContain('leaked-holder');
    expect(behind!.flags.map((f) => f.kind)).not.toContain('leaked-holder');
    expect(front!.consequence).toBe(
      'It was proven leaked before it reached the front: it holds the lock for nobody who knows it, and the lock is deadlocked until session 0xa ends (timeout 15 min) or someone deletes it.',
    );
    expect(behind!.status).toBe('waiting');
    expect(behind!.consequence).toMatch(/^It waits behind leaked node /);
    expect(report.worstStatus).toBe('leaked');
    // The same lock without the memory: a plain holder, nothing to say.
    const plain = analyzeLock({ ...input, facts: new Map([...input.facts].map(([n, f]) => [n, { ...f, provenLeakedAt: null }])) });
    expect([plain.contenders[0]!.consequence, plain.contenders[1]!.consequence, plain.worstStatus]).toEqual([null, null, 'waiting']);
    expect(plain.contenders[0]!.flags.map((f) => f.kind)).not.toContain('leaked-holder');
  });
});
