/**
 * `leaked` is proven, never guessed: zero false "leaked" is the bar (issue 12, item 4; issue 25,
 * item 2: unwatched across at least the owner's session timeout). The scene is kazoo #732
 * (seed 002): holder A, B leaked by a failed non-blocking acquire whose cleanup hit a connection
 * loss, C a live waiter watching B. Owners' sessions time out after 30 s unless said otherwise.
 */
import { describe, expect, it } from 'vitest';
import {
  analyzeLock,
  analyzeLockWithEvidence,
  assessLeak,
  leakCheckSummary,
  LEAK_MIN_GAP_MS,
  type LeakEvidence,
  recognizeLock,
  type AnalyzeLockInput,
  type WatchGathering,
} from '../../src/locks/index.js';
import { curator, facts, gathering, kazooLock, kazooRead, session, sessions, T0 } from './support.js';

const DIR = '/app/locks/job';
const A = kazooLock(1, 0);
const B = kazooLock(2, 1);
const C = kazooLock(3, 2);
const at = (name: string) => `${DIR}/${name}`;

const base: Omit<AnalyzeLockInput, 'gatherings'> = {
  lock: recognizeLock({ path: DIR, children: [C, A, B] })!,
  facts: new Map([
    [A, facts('0xa')],
    [B, facts('0xb')],
    [C, facts('0xc')],
  ]),
  sessions: sessions(session('0xa'), session('0xb'), session('0xc')),
  now: T0 + 60_000,
};

const run = (gatherings: WatchGathering[], over: Partial<AnalyzeLockInput> = {}) => analyzeLock({ ...base, gatherings, ...over });
/** Owners whose sessions time out in 4 s: the window is then the 10 s floor. */
const shortLived = { sessions: sessions(session('0xa', { timeoutMs: 4_000 }), session('0xb', { timeoutMs: 4_000 }), session('0xc', { timeoutMs: 4_000 })) };
const statuses = (gatherings: WatchGathering[], over: Partial<AnalyzeLockInput> = {}) => run(gatherings, over).contenders.map((c) => c.status);

/** C watches B; B's owner watches nothing. */
const waiterOnly = { [at(B)]: ['0xc'] };
/** B's owner caught with a watch too (a live waiter). */
const both = { [at(A)]: ['0xb'], [at(B)]: ['0xc'] };

describe('leaked: the #732 scene', () => {
  it("calls B leaked once unwatched across its owner's 30 s session timeout, and never its live neighbours", () => {
    const report = run([gathering(T0, waiterOnly), gathering(T0 + 15_000, waiterOnly), gathering(T0 + 30_200, waiterOnly)]);
    expect(report.contenders.map((c) => c.status)).toEqual(['holder', 'leaked', 'waiting']);
    expect(report.contenders[1]!.watching).toBe('nothing');
    expect(report.contenders[2]!.watching).toBe('blocker');
    expect(report.contenders[1]!.consequence).toMatch(/^When the holder releases, this leaked node becomes the holder and the lock deadlocks/);
    expect(report.contenders[1]!.consequence).toContain('session 0xb ends (timeout 30 s)');
    expect(report.contenders[2]!.consequence).toMatch(/^It waits behind leaked node .*__lock__0000000001: it gets the lock only after session 0xb ends/);
    expect(report.worstStatus).toBe('leaked');
  });

  it("never before its owner's session timeout has passed unwatched: a live kazoo waiter whose callback thread is held (issue 25, item 2)", () => {
    // Gatherings 12 s apart used to be enough; a waiter whose watch callback waits behind a slow application callback re-arms late.
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 12_000, waiterOnly)])[1]).toBe('waiting');
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 15_000, waiterOnly), gathering(T0 + 30_000, waiterOnly)])[1]).toBe('waiting');
    // 200 ms short of the window, counted from the first answer: still waiting.
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 30_100, waiterOnly)])[1]).toBe('waiting');
    // A 4 s owner: the 10 s floor applies.
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 12_000, waiterOnly)], shortLived)[1]).toBe('leaked');
    // An owner whose timeout the sessions data does not say: never.
    const unknown = sessions(session('0xa'), session('0xb', { timeoutMs: null }), session('0xc'));
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 600_000, waiterOnly)], { sessions: unknown })[1]).toBe('waiting');
  });

  it('carries the evidence across analyses, so a 15-minute session is judged over 15 minutes, not the last few gatherings', () => {
    const long = sessions(session('0xa'), session('0xb', { timeoutMs: 900_000 }), session('0xc'));
    let evidence: ReadonlyMap<string, LeakEvidence> = new Map();
    const seen: string[] = [];
    // Six gatherings kept at a time, one every 15 s, for 16 minutes.
    const all = Array.from({ length: 65 }, (_, k) => gathering(T0 + k * 15_000, waiterOnly));
    for (let k = 0; k < all.length; k++) {
      const kept = all.slice(Math.max(0, k - 5), k + 1);
      const out = analyzeLockWithEvidence({ ...base, sessions: long, gatherings: kept, evidence, now: kept.at(-1)!.answeredAt });
      evidence = out.evidence;
      seen.push(out.report.contenders[1]!.status);
    }
    // 900 s from the first answer (T0 + 0.2 s) is reached by the gathering asked at T0 + 915 s (the 62nd).
    expect(seen.indexOf('leaked')).toBe(61);
    expect(seen.slice(0, 61).every((s) => s === 'waiting')).toBe(true);
    // A watch seen later starts the count again.
    const again = analyzeLockWithEvidence({ ...base, sessions: long, gatherings: [gathering(T0 + 1_000_000, both)], evidence, now: T0 + 1_000_000 });
    expect(again.report.contenders[1]!.status).toBe('waiting');
    expect(again.evidence.get(B)).toMatchObject({ proofs: 0, unwatchedSince: null });
  });

  it('never from a single gathering: the node is only a candidate (watching "nothing")', () => {
    const report = run([gathering(T0, waiterOnly)]);
    expect(report.contenders.map((c) => c.status)).toEqual(['holder', 'waiting', 'waiting']);
    expect(report.contenders[1]!.watching).toBe('nothing');
  });

  it('never from two gatherings less than 10 s apart, counted from the first answer to the second question', () => {
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 9_000, waiterOnly)], shortLived)[1]).toBe('waiting');
    // Asked 12 s apart, but the first answers took 3 s: only 9 s of proven absence.
    expect(statuses([gathering(T0, waiterOnly, { tookMs: 3_000 }), gathering(T0 + 12_000, waiterOnly)], shortLived)[1]).toBe('waiting');
    // Exactly the gap.
    expect(statuses([gathering(T0, waiterOnly, { tookMs: 0 }), gathering(T0 + LEAK_MIN_GAP_MS, waiterOnly)], shortLived)[1]).toBe('leaked');
  });

  it('never for a waiter caught between a watch event and its new watch in one gathering but watched in the other', () => {
    expect(statuses([gathering(T0, both), gathering(T0 + 15_000, waiterOnly)])[1]).toBe('waiting');
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 15_000, both)])[1]).toBe('waiting');
  });

  it('never when a gathering in between saw a watch, even an incomplete one', () => {
    const g = (t: number, w: Record<string, string[]>, complete = true) => gathering(T0 + t, w, { complete });
    expect(statuses([g(0, waiterOnly), g(8_000, both), g(12_000, waiterOnly)], shortLived)[1]).toBe('waiting');
    expect(statuses([g(0, waiterOnly), g(8_000, both, false), g(12_000, waiterOnly)], shortLived)[1]).toBe('waiting');
    // The run of absences since the last watch is what counts: 20 s of it is enough.
    expect(statuses([g(0, both), g(10_000, waiterOnly), g(30_000, waiterOnly)], shortLived)[1]).toBe('leaked');
  });

  it('never from incomplete gatherings: a member that did not answer may hold the watch', () => {
    expect(statuses([gathering(T0, waiterOnly, { complete: false }), gathering(T0 + 15_000, waiterOnly)])[1]).toBe('waiting');
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 15_000, waiterOnly, { complete: false })])[1]).toBe('waiting');
  });

  it('never when the owner was between connections in a gathering (its watches re-register on reconnect)', () => {
    const without = ['0xa', '0xc'];
    expect(statuses([gathering(T0, waiterOnly, { connected: without }), gathering(T0 + 15_000, waiterOnly)])[1]).toBe('waiting');
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 15_000, waiterOnly, { connected: null })])[1]).toBe('waiting');
  });

  it('never from a gathering asked before Keeper had seen the node', () => {
    const late = new Map(base.facts);
    late.set(B, facts('0xb', { firstSeenAt: T0 + 1 }));
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 15_000, waiterOnly)], { facts: late, ...shortLived })[1]).toBe('waiting');
    expect(
      statuses([gathering(T0, waiterOnly), gathering(T0 + 15_000, waiterOnly), gathering(T0 + 26_000, waiterOnly)], { facts: late, ...shortLived })[1],
    ).toBe('leaked');
  });

  it('never without the owner in the sessions data', () => {
    const gs = [gathering(T0, waiterOnly), gathering(T0 + 15_000, waiterOnly)];
    expect(statuses(gs, { sessions: sessions(session('0xa'), session('0xc')) })[1]).toBe('waiting');
    expect(statuses(gs, { sessions: null })[1]).toBe('waiting');
    expect(run(gs, { sessions: null }).notes).toContain("The ensemble's sessions are not gathered yet: owners are unknown, and nothing is called leaked.");
  });

  it('not leaked when the owner watches another node of the directory ("elsewhere")', () => {
    const elsewhere = { [at(B)]: ['0xc'], [at(C)]: ['0xb'] };
    const report = run([gathering(T0, elsewhere), gathering(T0 + 15_000, elsewhere)]);
    expect(report.contenders[1]).toMatchObject({ status: 'waiting', watching: 'elsewhere' });
  });

  it('not leaked when the holders are not all known (a re-entrant owner could hold one of them)', () => {
    const noHolderFacts = new Map(base.facts);
    noHolderFacts.delete(A);
    expect(statuses([gathering(T0, waiterOnly), gathering(T0 + 15_000, waiterOnly)], { facts: noHolderFacts })).toEqual(['waiting', 'waiting']);
  });
});

describe('leaked: other recipes', () => {
  it("never for a Curator read node under its owner's own write lock (it holds without watching)", () => {
    const W = curator(1, '__WRIT__', 0);
    const R = curator(2, '__READ__', 1);
    const dir = '/app/rw';
    const input = {
      lock: recognizeLock({ path: dir, children: [R, W] })!,
      facts: new Map([
        [W, facts('0xa')],
        [R, facts('0xa')],
      ]),
      sessions: sessions(session('0xa')),
      now: T0 + 60_000,
      gatherings: [gathering(T0, {}), gathering(T0 + 15_000, {}), gathering(T0 + 31_000, {})],
    };
    expect(analyzeLock(input).contenders.map((c) => c.status)).toEqual(['holder', 'waiting']);
    // The same node owned by another session with no watch is leaked.
    const other = { ...input, facts: new Map([...input.facts, [R, facts('0xb')]]), sessions: sessions(session('0xa'), session('0xb')) };
    expect(analyzeLock(other).contenders.map((c) => c.status)).toEqual(['holder', 'leaked']);
  });

  it('a kazoo reader watching the writer ahead of it is waiting on its blocker', () => {
    const W = kazooLock(1, 0);
    const R = kazooRead(2, 1);
    const dir = '/app/krw';
    const w = { [`${dir}/${W}`]: ['0xb'] };
    const report = analyzeLock({
      lock: recognizeLock({ path: dir, children: [W, R] })!,
      facts: new Map([
        [W, facts('0xa')],
        [R, facts('0xb')],
      ]),
      sessions: sessions(session('0xa'), session('0xb')),
      now: T0 + 60_000,
      gatherings: [gathering(T0, w), gathering(T0 + 15_000, w)],
    });
    expect(report.contenders[1]).toMatchObject({ status: 'waiting', watching: 'blocker', role: 'reader' });
  });

  it('says when a kazoo 2.8.0 reader in holding position waits for a writer behind it (they deadlock)', () => {
    const R = kazooRead(1, 1);
    const W = kazooLock(2, 2);
    const dir = '/app/krw2';
    const input = {
      lock: recognizeLock({ path: dir, children: [W, R] })!,
      facts: new Map([
        [R, facts('0xa')],
        [W, facts('0xb')],
      ]),
      sessions: sessions(session('0xa'), session('0xb')),
      now: T0 + 60_000,
    };
    const deadlocked = { [`${dir}/${W}`]: ['0xa'], [`${dir}/${R}`]: ['0xb'] };
    // The latest gathering tells.
    const report = analyzeLock({ ...input, gatherings: [gathering(T0, {}), gathering(T0 + 5_000, deadlocked)] });
    expect(report.contenders.map((c) => c.status)).toEqual(['holder', 'waiting']);
    expect(report.contenders[0]!.consequence).toMatch(/^Its owner watches .*__lock__0000000002, a writer queued behind it: kazoo 2\.8\.0's ReadLock/);
    // A reader that holds and watches nothing is just a holder.
    expect(analyzeLock({ ...input, gatherings: [gathering(T0, { [`${dir}/${R}`]: ['0xb'] })] }).contenders[0]!.consequence).toBeNull();
  });

  it("never where waiters use child watches (Curator's SemaphoreV2 leases): 'unknown', with a note", () => {
    const leases = [curator(1, 'lease-', 0), curator(2, 'lease-', 1), curator(3, 'lease-', 2)];
    const report = analyzeLock({
      lock: recognizeLock({ path: '/sem/leases', children: leases })!,
      facts: new Map(leases.map((n, i) => [n, facts(['0xa', '0xb', '0xc'][i]!)])),
      sessions: sessions(session('0xa'), session('0xb'), session('0xc')),
      now: T0 + 60_000,
      configuredPermits: 2,
      gatherings: [gathering(T0, {}), gathering(T0 + 30_000, {})],
    });
    expect(report.contenders.map((c) => [c.status, c.watching])).toEqual([
      ['holder', null],
      ['holder', null],
      ['waiting', 'unknown'],
    ]);
    expect(report.notes.join(' ')).toContain('wchp does not list');
  });

  it('never for queue items, persistent by design and owned by nobody', () => {
    const items = ['entry-100-0000000000', 'entry-100-0000000001'];
    const report = analyzeLock({
      lock: recognizeLock({ path: '/q', children: items })!,
      facts: new Map(items.map((n) => [n, facts('0x0')])),
      sessions: sessions(),
      now: T0 + 60_000,
      gatherings: [gathering(T0, {}), gathering(T0 + 30_000, {})],
    });
    expect(report.contenders.map((c) => [c.status, c.holding, c.watching, c.consequence])).toEqual([
      ['waiting', false, null, null],
      ['waiting', false, null, null],
    ]);
  });
});

describe('assessLeak', () => {
  const q = { dir: DIR, owner: '0xb', firstSeenAt: T0 - 1, isBlocker: (p: string) => p === at(A), ownerTimeoutMs: 4_000 };

  it('reads the latest gathering for what the owner watches', () => {
    expect(assessLeak([], q)).toMatchObject({ leaked: false, watching: 'unknown' });
    expect(assessLeak([gathering(T0, { [at(A)]: ['0xb'] })], q).watching).toBe('blocker');
    expect(assessLeak([gathering(T0, { [DIR]: ['0xb'] })], q).watching).toBe('elsewhere');
    expect(assessLeak([gathering(T0, { '/elsewhere/x': ['0xb'] })], q).watching).toBe('nothing');
    expect(assessLeak([gathering(T0, {}, { complete: false })], q).watching).toBe('unknown');
  });

  it('does not count watches outside the directory, or in a directory with the same prefix', () => {
    const outside = { '/app/locks/job2/x': ['0xb'], '/app/locks': ['0xb'], [`${DIR}/${A}/deeper`]: ['0xb'] };
    expect(assessLeak([gathering(T0, outside), gathering(T0 + 15_000, outside)], q).leaked).toBe(true);
  });

  it('takes the gatherings in time order whatever order they come in', () => {
    const gs = [gathering(T0 + 15_000, {}), gathering(T0, { [at(A)]: ['0xb'] })];
    expect(assessLeak(gs, q).leaked).toBe(false);
    expect(assessLeak([gathering(T0 + 15_000, {}), gathering(T0, {})], q).leaked).toBe(true);
  });
});

describe('leakCheckSummary', () => {
  it('says when leaks can be called', () => {
    expect(leakCheckSummary([])).toMatchObject({ gatherings: 0, spanMs: null, ready: false });
    expect(leakCheckSummary([])!.sentence).toContain('none so far');
    expect(leakCheckSummary([gathering(T0, {})])).toMatchObject({ ready: false, spanMs: null });
    expect(leakCheckSummary([gathering(T0, {}), gathering(T0 + 5_000, {})])).toMatchObject({ ready: false, spanMs: 4_800 });
    expect(leakCheckSummary([gathering(T0, {}), gathering(T0 + 5_000, {}, { complete: false }), gathering(T0 + 20_000, {})])).toMatchObject({
      gatherings: 3,
      ready: true,
      spanMs: 19_800,
    });
  });
});
