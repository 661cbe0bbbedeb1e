/**
 * What Keeper's Locks API says about locks made by REAL clients (issue 12, item 11): kazoo 2.8.0
 * and Apache Curator 5.4 on a real 3-member ensemble, asserted through GET /locks and the admin
 * routes, for each scenario of scripts/lib/locks:
 *  - kazoo #732 reproduced through kazoo's own cleanup: `leaked` proven, its live neighbours never
 *    called leaked, the consequence in words, a dry-run clean, a real clean, a release that puts
 *    the leaked node at the front and the admin delete that unblocks the waiter;
 *  - a persistent node, a frozen 15-minute holder (and a frozen 90 s one, to see `silent`), a herd,
 *    kazoo's ReadLock/WriteLock;
 *  - Curator's InterProcessMutex, InterProcessReadWriteLock and LeaderLatch.
 * A background observer reads GET /locks every 250 ms for the whole file and checks EVERY answer
 * against the statuses each node may have ("zero false leaked" is about every answer, not the
 * last one). The scenarios that need the leak proof's two gatherings (>= 10 s apart) start
 * together, so one wait serves them all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockAnswerSchema, locksAnswerSchema, type Contender, type ContenderStatus, type LockReport, type LocksAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import {
  curatorLeaderLatchScenario,
  curatorMutexScenario,
  curatorReadWriteScenario,
  startCuratorScenario,
  startInOrder,
  kazoo732Scenario,
  kazooChildren,
  kazooFrozenHolderScenario,
  kazooLockScenario,
  kazooPersistentNodeScenario,
  kazooReadWriteScenario,
  kazooLockHerdScenario,
  type CuratorParticipant,
  type CuratorScenario,
  type KazooContender,
  type Kazoo732Scenario,
  type KazooFrozenHolderScenario,
  type KazooLockScenario,
  type KazooPersistentScenario,
  type KazooReadWriteScenario,
  type LockHerdScenario,
} from '../../scripts/lib/locks/index.js';
import { fourLetterWord } from '../../scripts/sandbox/fourLetterWord.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { call, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-lock-clients-0123456789abcdef';
const VIEWER = 'viewer-token-for-lock-clients-0123456789abcdef';
const admin: Who = { token: ADMIN };

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

const ROOT = '/it/locks';
const DIRS = {
  deadlock: `${ROOT}/deadlock`,
  cleaned: `${ROOT}/cleaned`,
  persistent: `${ROOT}/persistent`,
  frozen15: `${ROOT}/frozen15`,
  frozen90: `${ROOT}/frozen90`,
  queue: `${ROOT}/queue`,
  rw: `${ROOT}/rw`,
  rwWriterFirst: `${ROOT}/rw-writer-first`,
  curatorRwWriterFirst: `${ROOT}/curator-rw-writer-first`,
  curatorMutex: `${ROOT}/curator-mutex`,
  curatorRw: `${ROOT}/curator-rw`,
  curatorLatch: `${ROOT}/curator-latch`,
};
/**
 * The leak proof from a standing start: the first gathering asked after the node was seen (up to
 * one 10 s interval and its answers), then the absence proven across the owner's 30 s session
 * timeout, which takes three more gatherings, each started 10 s after the previous one answered
 * (their answers take seconds on a loaded machine: a member call's deadline is 2 s).
 */
const LEAK_PROOF_MS = 75_000;

/** The node's name as Keeper's chain text prints it: its random uuid cut to 6 characters (written here, not imported). */
const short = (name: string) => name.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}/, (u) => `${u.slice(0, 6)}…`);
const secondsSince = (t: number) => `${((Date.now() - t) / 1000).toFixed(1)} s`;

interface Rule {
  allowed: readonly ContenderStatus[];
  label: string;
}

/**
 * Reads GET /locks?path=ROOT every 250 ms, keeps every answer, and checks each one against the
 * statuses each node may have. A rule set later is checked against the answers read before it
 * too, so nothing read between a node's creation and its rule escapes.
 */
class LocksObserver {
  readonly answers: { at: number; body: LocksAnswer }[] = [];
  readonly violations: string[] = [];
  readonly errors: string[] = [];
  private readonly rules = new Map<string, Rule>();
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly read: () => Promise<LocksAnswer>) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const body = await this.read();
        const entry = { at: Date.now(), body };
        this.answers.push(entry);
        for (const lock of body.locks) for (const c of lock.contenders) this.check(entry.at, c, this.rules.get(c.path));
      } catch (error) {
        this.errors.push(String(error));
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  private check(at: number, c: Contender, rule: Rule | undefined): void {
    if (rule && !rule.allowed.includes(c.status)) this.violations.push(`${new Date(at).toISOString()} ${rule.label} ${c.name} was ${c.status}`);
  }

  /** From now on (and in every answer already read), the node at `path` may only have these statuses. */
  allow(path: string, allowed: readonly ContenderStatus[], label: string): void {
    const rule = { allowed, label };
    this.rules.set(path, rule);
    for (const { at, body } of this.answers) for (const lock of body.locks) for (const c of lock.contenders) if (c.path === path) this.check(at, c, rule);
  }

  get latest(): LocksAnswer | undefined {
    return this.answers.at(-1)?.body;
  }

  lock(dir: string): LockReport | undefined {
    return this.latest?.locks.find((l) => l.path === dir);
  }

  /** When an answer first satisfied `check`, or null. */
  firstAt(check: (body: LocksAnswer) => boolean): number | null {
    return this.answers.find((a) => check(a.body))?.at ?? null;
  }

  /** Waits for an answer read from now on that satisfies `check`. */
  until<T>(check: (body: LocksAnswer) => T | null | undefined | false, what: string, timeoutMs = 20_000): Promise<Exclude<T, false | null | undefined>> {
    const from = this.answers.length;
    return waitFor(
      () => {
        const fresh = this.answers.slice(from);
        const last = fresh.at(-1);
        return last ? check(last.body) : null;
      },
      { what, timeoutMs, intervalMs: 100 },
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

const contenderIn = (body: LocksAnswer | undefined, dir: string, path: string) =>
  body?.locks.find((l) => l.path === dir)?.contenders.find((c) => c.path === path);
const statusesOf = (lock: LockReport | undefined) => lock?.contenders.map((c) => c.status) ?? [];
const namesOf = (lock: LockReport | undefined) => lock?.contenders.map((c) => c.name) ?? [];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the Locks API on locks made by real kazoo and Curator clients', () => {
  let ensemble: Ensemble;
  let keeper: RunningKeeper;
  let stateDir: string;
  let observer: LocksObserver;
  const started: { stop(): Promise<void> }[] = [];
  const keep = <T extends { stop(): Promise<void> }>(s: T): T => (started.push(s), s);
  /** The Curator JVMs, started with the file so they come up while the kazoo scenarios' leak proof is awaited. */
  let curatorStarting: Promise<PromiseSettledResult<CuratorScenario>[]>;

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.lockClientsTest);
    stateDir = mkdtempSync(join(tmpdir(), 'keeper-lock-clients-'));
    keeper = await startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [ensembleConfigOf(ensemble, { locks: { roots: [ROOT], gatherIntervalMs: 10_000 } })],
        auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
      },
      {
        logger: testLogger,
        // Owners' sessions re-read at each watch gathering, so a new contender's owner is known within one.
        ensembleDefaults: { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000, sessionsCadenceMs: 3_000 },
        rateLimits: { api: 100_000, loginFailures: 1_000 },
      },
    );
    const hosts = ensemble.connectionString;
    // Four JVMs at once, beside the kazoo scenarios: what they share is the wait for the leak proof.
    curatorStarting = Promise.allSettled([
      curatorMutexScenario({ hosts, path: DIRS.curatorMutex }).then(keep),
      curatorReadWriteScenario({ hosts, path: DIRS.curatorRw }).then(keep),
      curatorLeaderLatchScenario({ hosts, path: DIRS.curatorLatch }).then(keep),
      startCuratorScenario({ hosts, path: DIRS.curatorRwWriterFirst, roles: ['write', 'read', 'read', 'write'] }).then(keep),
    ]);
    observer = new LocksObserver(async () => {
      const res = await fetch(`${keeper.url}/api/ensembles/it/locks?path=${ROOT}`, { headers: { authorization: `Bearer ${VIEWER}` } });
      if (res.status !== 200) throw new Error(`GET /locks answered ${res.status}: ${await res.text()}`);
      return locksAnswerSchema.parse(await res.json());
    });
  }, 180_000);

  afterAll(async () => {
    await curatorStarting;
    await observer?.stop();
    if (observer) console.info(`${observer.answers.length} answers of GET /locks read and checked, ${observer.violations.length} violations`);
    await Promise.all(started.map((s) => s.stop().catch(() => undefined)));
    await keeper?.close();
    await ensemble?.dispose();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const post = (route: string, body: unknown) => call(keeper.url, 'POST', `/api/ensembles/it/locks/${route}`, admin, body);
  const detail = async (dir: string) => {
    const res = await fetch(`${keeper.url}/api/ensembles/it/locks${dir}`, { headers: { authorization: `Bearer ${VIEWER}` } });
    expect(res.status, dir).toBe(200);
    return lockAnswerSchema.parse(await res.json()).lock;
  };
  /** A scenario's processes close their sessions one by one: a waiter may hold for a moment meanwhile, never be called leaked. */
  const stopping = async (scenario: { stop(): Promise<void> }, waiters: readonly { path: string }[]) => {
    for (const w of waiters) observer.allow(w.path, ['waiting', 'holder'], 'waiter while its scenario stops');
    await scenario.stop();
  };
  const noViolations = () => {
    expect(observer.violations).toEqual([]);
    expect(observer.errors).toEqual([]);
  };

  describe('scenarios that need the leak proof, started together', () => {
    let deadlock: Kazoo732Scenario;
    let cleaned: Kazoo732Scenario;
    let persistent: KazooPersistentScenario;
    let frozen15: KazooFrozenHolderScenario;
    let frozen90: KazooFrozenHolderScenario;
    let queue: KazooLockScenario;
    let herd: LockHerdScenario;
    let rw: KazooReadWriteScenario;
    /** WriteLock, ReadLock, ReadLock, WriteLock, one after the other. */
    let writerFirst: KazooContender[];
    let readyAt: number;

    beforeAll(async () => {
      const hosts = ensemble.connectionString;
      const t0 = Date.now();
      [deadlock, cleaned, persistent, frozen15, frozen90, [queue, herd], rw, writerFirst] = await Promise.all([
        kazoo732Scenario({ hosts, path: DIRS.deadlock }).then(keep),
        kazoo732Scenario({ hosts, path: DIRS.cleaned }).then(keep),
        kazooPersistentNodeScenario({ hosts, path: DIRS.persistent }).then(keep),
        kazooFrozenHolderScenario({ hosts, path: DIRS.frozen15 }).then(keep),
        // A 90 s timeout (still `long-timeout`) makes `silent` come within the file's time: at about T/3 + 7.5 s
        // of silence, plus a gathering. Its session expires at 90 s of silence, far enough after that for
        // the test to stop it first even on a slow machine (a 60 s one left about 10 s, and once did not).
        kazooFrozenHolderScenario({ hosts, path: DIRS.frozen90, holderTimeoutS: 90 }).then(keep),
        kazooLockScenario({ hosts, path: DIRS.queue, waiters: 0 })
          .then(keep)
          .then(async (q) => [q, keep(await kazooLockHerdScenario({ hosts, path: q.holder.path, watchers: 10 }))] as const),
        kazooReadWriteScenario({ hosts, path: DIRS.rw }).then(keep),
        startInOrder(
          (['WriteLock', 'ReadLock', 'ReadLock', 'WriteLock'] as const).map((recipe, i) => ({
            hosts,
            path: DIRS.rwWriterFirst,
            recipe,
            identifier: `${recipe}-${i}`,
          })),
        ).then((cs) => (keep({ stop: async () => void (await Promise.all(cs.map((c) => c.stop()))) }), cs)),
      ]);
      readyAt = Date.now();
      console.info(`kazoo scenarios (#732 x2, persistent, frozen x2, herd, read-write) ready in ${readyAt - t0} ms`);
      for (const s of [deadlock, cleaned]) {
        observer.allow(s.holder.path, ['holder'], '#732 holder');
        observer.allow(s.waiter.path, ['waiting'], '#732 live waiter');
        observer.allow(s.leaked.path, ['waiting', 'leaked'], '#732 leaked node');
      }
      observer.allow(persistent.holder!.path, ['holder'], 'holder ahead of the persistent node');
      observer.allow(persistent.persistent.path, ['persistent'], 'persistent node');
      for (const s of [frozen15, frozen90]) {
        observer.allow(s.holder.path, ['holder'], 'frozen holder');
        for (const w of s.waiters) observer.allow(w.path, ['waiting'], 'waiter behind a frozen holder');
      }
      observer.allow(queue.holder.path, ['holder'], 'holder the herd watches');
      for (const r of rw.readers) observer.allow(r.path, ['holder'], 'kazoo reader');
      for (const w of rw.writers) observer.allow(w.path, ['waiting'], 'kazoo writer');
      const [w1, r1, r2, w2] = writerFirst;
      observer.allow(w1!.path, ['holder'], 'kazoo first writer');
      for (const r of [r1!, r2!]) observer.allow(r.path, ['waiting'], 'kazoo reader behind a writer');
      observer.allow(w2!.path, ['waiting'], 'kazoo writer behind readers');
    }, 120_000);

    it("gives a kazoo holder's owner as the ensemble knows it: session, client address, member, timeout", async () => {
      const { holder } = deadlock;
      const owner = (await observer.until((b) => {
        const o = contenderIn(b, DIRS.deadlock, holder.path)?.owner;
        return o?.known && o.client ? o : null;
      }, 'the holder with its owner known'))!;
      // The witness: the members' own cons, which lists the session on the member it is connected to.
      const cons = await Promise.all(ensemble.members.map(async (m) => ({ m, text: await fourLetterWord(m.host, m.clientPort, 'cons', 5_000) })));
      const on = cons.find(({ text }) => text.includes(`sid=${holder.sessionId},`) || text.includes(`sid=${holder.sessionId})`));
      expect(on, `no member lists ${holder.sessionId}`).toBeDefined();
      const line = on!.text.split('\n').find((l) => l.includes(`sid=${holder.sessionId}`))!;
      const client = /^\s*\/(\S+?)\[/.exec(line)![1];
      expect(owner.sessionId).toBe(holder.sessionId);
      expect(owner.client).toBe(client);
      expect(owner.client).toMatch(/^[0-9.]+:\d+$/);
      expect(owner.member).toBe(`${on!.m.host}:${on!.m.clientPort}`);
      expect(owner.timeoutMs).toBe(30_000);
      expect(owner.connected).toBe(true);
      expect(typeof owner.lastResponseAt).toBe('number');
      noViolations();
    });

    it('flags the frozen 15-minute holder long-timeout (and, for a 90 s frozen holder, silent); its waiter waits', async () => {
      const holderOf = (s: KazooFrozenHolderScenario, dir: string) => (b: LocksAnswer) => contenderIn(b, dir, s.holder.path);
      const h15 = await observer.until((b) => {
        const h = holderOf(frozen15, DIRS.frozen15)(b);
        return h?.flags.some((f) => f.kind === 'long-timeout') ? h : null;
      }, 'the 15-minute holder flagged long-timeout');
      expect(h15.status).toBe('holder');
      expect(h15.owner!.timeoutMs).toBe(900_000);
      expect(h15.flags.find((f) => f.kind === 'long-timeout')!.message).toBe(
        "Its owner's session timeout is 15 min: if its owner died, this hold lasts up to 15 min more.",
      );
      const waiter15 = contenderIn(observer.latest, DIRS.frozen15, frozen15.waiters[0]!.path)!;
      expect(waiter15.status).toBe('waiting');
      expect(waiter15.waitsFor?.holder).toBe(frozen15.holder.path);

      const h60 = await observer.until(
        (b) => {
          const h = holderOf(frozen90, DIRS.frozen90)(b);
          return h?.flags.some((f) => f.kind === 'silent') ? h : null;
        },
        'the frozen 90 s holder flagged silent',
        70_000,
      );
      console.info(`frozen 90 s holder flagged silent ${secondsSince(readyAt)} after it was frozen`);
      expect(h60.status).toBe('holder');
      expect(h60.flags.map((f) => f.kind).sort()).toEqual(['long-timeout', 'silent']);
      expect(h60.flags.find((f) => f.kind === 'silent')!.message).toMatch(
        /^Its owner has sent nothing for a large part of its 90 s timeout: it is stuck, paused or cut off\. If it does not come back, this hold ends only when its session expires/,
      );
      // The 15-minute holder is silent only after T/3 + T/12 = 375 s: not within this file. Never flagged early:
      expect(observer.answers.some(({ body }) => holderOf(frozen15, DIRS.frozen15)(body)?.flags.some((f) => f.kind === 'silent'))).toBe(false);
      expect(contenderIn(observer.latest, DIRS.frozen90, frozen90.waiters[0]!.path)?.status).toBe('waiting');
      noViolations();
      // Before the 90 s session expires (stop() thaws it first, so it closes its session itself).
      await stopping(frozen90, frozen90.waiters);
      await stopping(frozen15, frozen15.waiters);
    });

    it('#732: calls the leaked node leaked once two gatherings >= 10 s apart saw no watch of its live session, and never its neighbours', async () => {
      const proven = await observer
        .until(
          (b) => [deadlock, cleaned].every((s) => contenderIn(b, s.dir, s.leaked.path)?.status === 'leaked') && b,
          'both leaked nodes called leaked',
          LEAK_PROOF_MS,
        )
        .catch((error: unknown) => {
          // What the proof lacked: each node's last answer, and the gatherings Keeper holds (complete? the owner connected?).
          const owners = [deadlock, cleaned].map((s) => s.leaked.sessionId);
          const nodes = [deadlock, cleaned].map((s) => {
            const c = contenderIn(observer.latest, s.dir, s.leaked.path);
            return c && { path: c.path, status: c.status, watching: c.watching, owner: c.owner, consequence: c.consequence };
          });
          const gatherings = keeper.ensembles.get('it').locks.gatherer.gatherings.map((g) => ({
            askedAt: new Date(g.askedAt).toISOString(),
            tookMs: g.answeredAt - g.askedAt,
            complete: g.complete,
            ownersConnected: owners.map((o) => g.connectedSessions?.has(o) ?? null),
          }));
          throw new Error(`${String(error)}\n${JSON.stringify({ leakCheck: observer.latest?.leakCheck, nodes, gatherings }, null, 1)}`);
        });
      for (const s of [deadlock, cleaned]) {
        const firstListed = observer.firstAt((b) => contenderIn(b, s.dir, s.leaked.path) !== undefined)!;
        const firstLeaked = observer.firstAt((b) => contenderIn(b, s.dir, s.leaked.path)?.status === 'leaked')!;
        console.info(`${s.dir}: leaked decided ${((firstLeaked - firstListed) / 1000).toFixed(1)} s after Keeper first listed the node`);
        // Two gatherings asked after the node was listed, the later one >= 10 s after the earlier had answered.
        expect(firstLeaked - firstListed).toBeGreaterThanOrEqual(10_000);
      }
      const lock = proven.locks.find((l) => l.path === DIRS.deadlock)!;
      const { holder, leaked, waiter } = deadlock;
      expect(lock.recipe.id).toBe('kazoo.Lock');
      expect(namesOf(lock)).toEqual([holder.name, leaked.name, waiter.name]);
      expect(statusesOf(lock)).toEqual(['holder', 'leaked', 'waiting']);
      expect(lock.worstStatus).toBe('leaked');
      expect(proven.leakCheck.ready).toBe(true);
      // Worst first: the two leaked locks lead the list.
      expect(new Set(proven.locks.slice(0, 2).map((l) => l.path))).toEqual(new Set([DIRS.deadlock, DIRS.cleaned]));

      const [, l, w] = lock.contenders;
      expect(l!.owner?.sessionId).toBe(leaked.sessionId);
      expect(l!.owner?.connected).toBe(true);
      expect(l!.watching).toBe('nothing');
      expect(l!.data).toEqual({ kind: 'identifier', text: 'nonblocking-worker' });
      expect(l!.consequence).toBe(
        `When the holder releases, this leaked node becomes the holder and the lock deadlocks: its owner does not know it holds it, and the node stays until session ${leaked.sessionId} ends (timeout 30 s).`,
      );
      expect(w!.watching).toBe('blocker');
      expect(w!.waitsFor).toEqual({
        next: leaked.path,
        holder: holder.path,
        links: 2,
        text: `${short(waiter.name)} waits for ${short(leaked.name)} (leaked) waits for ${short(holder.name)} (holder)`,
      });
      expect(w!.consequence).toBe(
        `It waits behind leaked node ${short(leaked.name)}: it gets the lock only after session ${leaked.sessionId} ends or someone deletes that node.`,
      );
      // The detail says the same.
      const one = await detail(DIRS.deadlock);
      expect(statusesOf(one)).toEqual(['holder', 'leaked', 'waiting']);
      noViolations();
    });

    it('lists exactly the leaked nodes in a dry-run clean, and deletes nothing', async () => {
      const dry = await post('clean', { path: DIRS.deadlock, dryRun: true });
      expect(dry.status, JSON.stringify(dry.body)).toBe(200);
      const version = contenderIn(observer.latest, DIRS.deadlock, deadlock.leaked.path)!.version;
      expect(dry.body.candidates).toEqual([{ path: deadlock.leaked.path, lock: DIRS.deadlock, owner: deadlock.leaked.sessionId, version }]);
      expect(dry.body.deleted).toEqual([]);
      expect(dry.body.leakCheck.ready).toBe(true);
      const all = await post('clean', { path: ROOT, dryRun: true });
      expect(new Set((all.body.candidates as { path: string }[]).map((c) => c.path))).toEqual(new Set([deadlock.leaked.path, cleaned.leaked.path]));
      expect((await kazooChildren(ensemble.connectionString, DIRS.deadlock)).map((c) => c.name).sort()).toEqual(
        [deadlock.holder.name, deadlock.leaked.name, deadlock.waiter.name].sort(),
      );
      noViolations();
    });

    it('cleans the leaked node for real: its waiter then waits for the holder, and holds when it releases', async () => {
      const { holder, leaked, waiter } = cleaned;
      // A clean deletes only what its dry run pinned (issue 25, item 2): the dry run first.
      const dry = await post('clean', { path: DIRS.cleaned, dryRun: true });
      expect(dry.status, JSON.stringify(dry.body)).toBe(200);
      const res = await post('clean', { path: DIRS.cleaned, dryRun: false, pinned: dry.body.candidates });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.deleted).toEqual([leaked.path]);
      expect(res.body.skipped).toEqual([]);
      expect((await kazooChildren(ensemble.connectionString, DIRS.cleaned)).map((c) => c.name).sort()).toEqual([holder.name, waiter.name].sort());
      const after = await observer.until((b) => {
        const lock = b.locks.find((x) => x.path === DIRS.cleaned);
        return namesOf(lock).length === 2 ? lock : null;
      }, 'the cleaned lock without its leaked node');
      expect(statusesOf(after)).toEqual(['holder', 'waiting']);
      expect(after.contenders[1]!.waitsFor?.text).toBe(`${short(waiter.name)} waits for ${short(holder.name)} (holder)`);
      expect(after.contenders[1]!.consequence).toBeNull();
      observer.allow(waiter.path, ['waiting', 'holder'], '#732 live waiter (after the clean)');
      await holder.release();
      await waiter.holding();
      const moved = await observer.until((b) => {
        const lock = b.locks.find((x) => x.path === DIRS.cleaned);
        return namesOf(lock).length === 1 ? lock : null;
      }, 'the waiter holding the cleaned lock');
      expect(moved.contenders[0]).toMatchObject({ name: waiter.name, status: 'holder', owner: { sessionId: waiter.sessionId } });
      noViolations();
      await cleaned.stop();
    });

    it('#732 to the end: the holder releases, the leaked node holds for nobody, clean leaves it, a confirmed delete frees the waiter', async () => {
      const { holder, leaked, waiter } = deadlock;
      observer.allow(leaked.path, ['waiting', 'leaked', 'holder'], '#732 leaked node');
      await holder.release();
      const stuck = await observer.until((b) => {
        const lock = b.locks.find((x) => x.path === DIRS.deadlock);
        return namesOf(lock).length === 2 ? lock : null;
      }, 'the lock after the holder released');
      expect(namesOf(stuck)).toEqual([leaked.name, waiter.name]);
      const [front, behind] = stuck.contenders;
      // One word per contender, and a node in a holding position is the `holder`: its owner does not know it.
      expect(front).toMatchObject({ position: 1, holding: true, status: 'holder', owner: { sessionId: leaked.sessionId } });
      expect(behind).toMatchObject({ status: 'waiting', watching: 'blocker' });
      expect(behind!.waitsFor?.text).toBe(`${short(waiter.name)} waits for ${short(leaked.name)} (holder)`);
      // Keeper remembers it was proven leaked while it waited: seed 002's "held by nobody who knows it", said in words.
      expect(front!.consequence).toMatch(
        /^It was proven leaked before it reached the front: it holds the lock for nobody who knows it, and the lock is deadlocked until session /,
      );
      expect(behind!.consequence).toMatch(new RegExp(`^It waits behind leaked node ${escapeRegExp(short(leaked.name))}`));
      expect(stuck.worstStatus).toBe('leaked');
      // Said on its own row too, not only in its consequence: a flag (issue 34 item 6).
      expect(front!.flags.map((f) => f.kind)).toContain('leaked-holder');
      // The real deadlock: nobody's client holds the lock, the waiter still blocks in acquire().
      await new Promise((r) => setTimeout(r, 1_000));
      expect(waiter.process.events.filter((e) => e.event === 'holding')).toEqual([]);

      // A bulk clean never deletes a holder.
      const dryRun = await post('clean', { path: DIRS.deadlock, dryRun: true });
      expect(dryRun.status).toBe(200);
      // It names the leaked holder instead of "nothing to clean" beside a lock the list calls leaked (issue 34 item 6).
      expect(dryRun.body.candidates).toEqual([]);
      expect(dryRun.body.leakedHolders).toEqual([{ path: leaked.path, lock: DIRS.deadlock, owner: front!.owner!.sessionId, version: front!.version }]);
      const clean = await post('clean', { path: DIRS.deadlock, dryRun: false, pinned: dryRun.body.candidates });
      expect(clean.status).toBe(200);
      expect(clean.body.deleted).toEqual([]);
      const body = { path: leaked.path, owner: leaked.sessionId, version: front!.version };
      const refused = await post('delete', body);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('LOCK_HOLDER');
      observer.allow(waiter.path, ['waiting', 'holder'], '#732 live waiter (after the delete)');
      const deleted = await post('delete', { ...body, confirmHolder: leaked.name });
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      expect(deleted.body).toMatchObject({ deleted: true, wasHolder: true });
      await waiter.holding();
      const freed = await observer.until((b) => {
        const lock = b.locks.find((x) => x.path === DIRS.deadlock);
        return namesOf(lock).length === 1 ? lock : null;
      }, 'the waiter holding after the delete');
      expect(freed.contenders[0]).toMatchObject({ name: waiter.name, status: 'holder' });
      noViolations();
      await deadlock.stop();
    });

    it('calls a persistent lock node persistent, with no owner, through every gathering, never leaked', async () => {
      const { holder, persistent: node } = persistent;
      const firstListed = observer.firstAt((b) => contenderIn(b, DIRS.persistent, node.path) !== undefined);
      expect(firstListed).not.toBeNull();
      // Two gatherings asked after Keeper first saw it, >= 10 s apart, have passed: a leak proof would have had its chance.
      await waitFor(() => Date.now() - firstListed! > 25_000, { what: 'two gatherings since the node was first listed', timeoutMs: 30_000 });
      const lock = (await observer.until((b) => b.locks.find((l) => l.path === DIRS.persistent), 'the persistent lock'))!;
      expect(namesOf(lock)).toEqual([holder!.name, node.name]);
      const p = lock.contenders[1]!;
      expect(p).toMatchObject({ status: 'persistent', owner: null, holding: false, watching: null, data: { kind: 'identifier', text: 'persistent' } });
      expect(p.consequence).toBe(
        "When the holder releases, it becomes the holder and, as no session's end removes it, the lock deadlocks until someone deletes it.",
      );
      expect(lock.worstStatus).toBe('persistent');
      noViolations();
      await persistent.stop();
    });

    it('reports a herd of 10 sessions watching the holder of a lock, with the fix and the context', async () => {
      const found = await observer.until((b) => b.herds.find((h) => h.path === queue.holder.path), 'the herd on the holder');
      const herdSeenAt = observer.firstAt((b) => b.herds.some((h) => h.path === queue.holder.path))!;
      console.info(`herd first listed ${((herdSeenAt - readyAt) / 1000).toFixed(1)} s after the scenarios were ready`);
      expect(found.watchers).toBe(10);
      expect(new Set(found.sessions)).toEqual(new Set(herd.sessionIds));
      expect(found.lock).toBe(DIRS.queue);
      expect(found.message).toBe(
        `10 sessions watch ${queue.holder.path}: each change wakes all of them; a lock recipe with predecessor watches wakes one. It is the holder of kazoo Lock (or Election) ${DIRS.queue}.`,
      );
      noViolations();
      await herd.stop();
      await queue.stop();
    });

    it('kazoo ReadLock/WriteLock: two readers hold, the writer waits on the last reader', async () => {
      const lock = await observer.until((b) => {
        const l = b.locks.find((x) => x.path === DIRS.rw);
        return l?.contenders[2]?.watching === 'blocker' ? l : null;
      }, 'the writer seen watching the last reader');
      expect(lock.recipe.id).toBe('kazoo.ReadWriteLock');
      expect(namesOf(lock)).toEqual([...rw.readers, ...rw.writers].map((c) => c.name));
      expect(lock.contenders.map((c) => c.role)).toEqual(['reader', 'reader', 'writer']);
      expect(statusesOf(lock)).toEqual(['holder', 'holder', 'waiting']);
      expect([lock.holders, lock.waiters]).toEqual([2, 1]);
      expect(lock.contenders[2]!.waitsFor?.next).toBe(rw.readers[1]!.path);
      noViolations();
      await stopping(rw, rw.writers);
    });

    it("kazoo 2.8.0's reader deadlock: readers freed by a writer's release wait for the writer queued behind them, and Keeper says so", async () => {
      const [w1, r1, r2, w2] = writerFirst as [KazooContender, KazooContender, KazooContender, KazooContender];
      const before = await observer.until((b) => {
        const l = b.locks.find((x) => x.path === DIRS.rwWriterFirst);
        return l?.contenders.length === 4 && l.contenders.slice(1).every((c) => c.watching === 'blocker') ? l : null;
      }, 'readers and the last writer seen watching their blockers');
      expect(namesOf(before)).toEqual([w1, r1, r2, w2].map((c) => c.name));
      expect(statusesOf(before)).toEqual(['holder', 'waiting', 'waiting', 'waiting']);
      expect(before.contenders.map((c) => c.waitsFor?.next ?? null)).toEqual([null, w1.path, w1.path, r2.path]);

      for (const r of [r1, r2]) observer.allow(r.path, ['waiting', 'holder'], 'kazoo reader behind a writer (after its release)');
      const released = Date.now();
      await w1.release();
      const after = await observer.until(
        (b) => {
          const l = b.locks.find((x) => x.path === DIRS.rwWriterFirst);
          return l?.contenders.length === 3 && l.contenders[0]!.consequence && l.contenders[1]!.consequence ? l : null;
        },
        "the readers' deadlock said",
        25_000,
      );
      console.info(`kazoo reader deadlock said ${secondsSince(released)} after the first writer released`);
      expect(statusesOf(after)).toEqual(['holder', 'holder', 'waiting']);
      const sentence = `Its owner watches ${short(w2.name)}, a writer queued behind it: kazoo 2.8.0's ReadLock waits for the last writer in the lock, even a later one, so this reader does not hold the lock while that writer waits for it. They wait for each other until one of them is deleted.`;
      expect(after.contenders.slice(0, 2).map((c) => c.consequence)).toEqual([sentence, sentence]);
      expect(after.contenders[2]).toMatchObject({ status: 'waiting', watching: 'blocker', waitsFor: { next: r2.path } });
      // The witnesses: kazoo's readers never got the lock, and the members say their sessions watch the writer behind them.
      expect([r1, r2].map((r) => r.process.events.some((e) => e.event === 'holding'))).toEqual([false, false]);
      const wchc = (await Promise.all(ensemble.members.map((m) => fourLetterWord(m.host, m.clientPort, 'wchc', 5_000)))).join('\n');
      for (const r of [r1, r2]) expect(wchc, r.sessionId).toMatch(new RegExp(`${r.sessionId}\\n(\\t.*\\n)*\\t${w2.path}`));
      noViolations();
      await stopping({ stop: async () => void (await Promise.all([w1, r1, r2, w2].map((c) => c.stop()))) }, [r1, r2, w2]);
    });
  });

  describe('Curator recipes', () => {
    let mutex: CuratorScenario;
    let readWrite: CuratorScenario;
    let latch: CuratorScenario;
    let writerFirst: CuratorScenario;

    beforeAll(async () => {
      const settled = await curatorStarting;
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      [mutex, readWrite, latch, writerFirst] = settled.map((s) => (s as PromiseFulfilledResult<CuratorScenario>).value) as [
        CuratorScenario,
        CuratorScenario,
        CuratorScenario,
        CuratorScenario,
      ];
      console.info(`Curator JVMs ready in ${[mutex, readWrite, latch, writerFirst].map((s) => s.startMs).join(' / ')} ms`);
      for (const s of [mutex, readWrite, latch, writerFirst]) {
        for (const p of s.participants)
          observer.allow(p.path, p.initially === 'holding' ? ['holder'] : ['waiting'], `Curator ${p.role} participant ${p.index}`);
      }
    }, 120_000);

    /** The lock once every waiter is seen watching what Keeper says it waits for (one watch gathering). */
    const settledLock = (dir: string, n: number) =>
      observer.until(
        (b) => {
          const l = b.locks.find((x) => x.path === dir);
          return l && l.contenders.length === n && l.contenders.every((c) => c.holding || c.watching === 'blocker') ? l : null;
        },
        `${dir} with its waiters watching their blockers`,
        25_000,
      );

    it('InterProcessMutex: one holder, two waiters watching their predecessors; a release moves the holder', async () => {
      const lock = await settledLock(DIRS.curatorMutex, 3);
      expect(lock.recipe.id).toBe('curator.InterProcessMutex');
      expect(namesOf(lock)).toEqual(mutex.participants.map((p) => p.name));
      expect(lock.contenders.map((c) => c.owner?.sessionId)).toEqual(mutex.sessionIds);
      expect(statusesOf(lock)).toEqual(['holder', 'waiting', 'waiting']);
      expect([lock.holders, lock.waiters]).toEqual([1, 2]);
      expect(lock.contenders[0]!.data.kind).toBe('client-ip');
      const [p0, p1, p2] = mutex.participants;
      expect(lock.contenders[2]!.waitsFor?.text).toBe(`${short(p2!.name)} waits for ${short(p1!.name)} waits for ${short(p0!.name)} (holder)`);
      observer.allow(p1!.path, ['waiting', 'holder'], 'Curator mutex participant 1');
      await mutex.release(0);
      await mutex.holding(1);
      const moved = await observer.until((b) => {
        const l = b.locks.find((x) => x.path === DIRS.curatorMutex);
        return l?.contenders.length === 2 ? l : null;
      }, 'the next Curator holder');
      expect(namesOf(moved)).toEqual([p1!.name, p2!.name]);
      expect(statusesOf(moved)).toEqual(['holder', 'waiting']);
      noViolations();
      await stopping(mutex, mutex.participants);
    });

    it('InterProcessReadWriteLock: two readers hold, the writer waits', async () => {
      const lock = await settledLock(DIRS.curatorRw, 3);
      expect(lock.recipe.id).toBe('curator.InterProcessReadWriteLock');
      expect(namesOf(lock)).toEqual(readWrite.participants.map((p) => p.name));
      expect(lock.contenders.map((c) => c.role)).toEqual(['reader', 'reader', 'writer']);
      expect(statusesOf(lock)).toEqual(['holder', 'holder', 'waiting']);
      expect([lock.holders, lock.waiters]).toEqual([2, 1]);
      noViolations();
      await stopping(readWrite, readWrite.participants);
    });

    it('LeaderLatch: the first participant leads, its data decoded as the participant id', async () => {
      const lock = await settledLock(DIRS.curatorLatch, 3);
      expect(lock.recipe).toMatchObject({ id: 'curator.LeaderLatch', kind: 'election' });
      expect(namesOf(lock)).toEqual(latch.participants.map((p) => p.name));
      expect(statusesOf(lock)).toEqual(['holder', 'waiting', 'waiting']);
      expect(lock.contenders.map((c) => c.data)).toEqual([0, 1, 2].map((i) => ({ kind: 'participant-id', text: `participant-${i}` })));
      expect(lock.contenders[1]!.waitsFor?.text).toMatch(/\(leader\)$/);
      noViolations();
      await stopping(latch, latch.participants);
    });

    it('InterProcessReadWriteLock, writer first: the readers wait for it, then hold together (Curator has no kazoo 2.8.0 deadlock)', async () => {
      const [w1, r1, r2, w2] = writerFirst.participants as [CuratorParticipant, CuratorParticipant, CuratorParticipant, CuratorParticipant];
      const before = await settledLock(DIRS.curatorRwWriterFirst, 4);
      expect(namesOf(before)).toEqual([w1, r1, r2, w2].map((p) => p.name));
      expect(statusesOf(before)).toEqual(['holder', 'waiting', 'waiting', 'waiting']);
      expect(before.contenders.map((c) => c.waitsFor?.next ?? null)).toEqual([null, w1.path, w1.path, r2.path]);
      for (const r of [r1, r2]) observer.allow(r.path, ['waiting', 'holder'], 'Curator reader behind a writer (after its release)');
      await writerFirst.release(0);
      await Promise.all([writerFirst.holding(1), writerFirst.holding(2)]);
      const after = await observer.until(
        (b) => {
          const l = b.locks.find((x) => x.path === DIRS.curatorRwWriterFirst);
          // After a gathering that saw the writer's new watch: then nothing is left to say.
          return l?.contenders.length === 3 && l.contenders[2]!.watching === 'blocker' && l.contenders[2]!.waitsFor?.next === r2.path ? l : null;
        },
        'the readers holding, the last writer waiting',
        25_000,
      );
      expect(statusesOf(after)).toEqual(['holder', 'holder', 'waiting']);
      expect(after.contenders.map((c) => c.consequence)).toEqual([null, null, null]);
      noViolations();
      await stopping(writerFirst, writerFirst.participants);
    });
  });
});
