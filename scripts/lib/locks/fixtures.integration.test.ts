/**
 * The lock scenarios of scripts/lib/locks make what they promise on a real 3-member ensemble,
 * checked by witnesses that share no code with Keeper: kazoo's reading of the nodes and their
 * owners, and the members' own four-letter words (wchc: who watches what; cons: who is
 * connected). Each scenario then goes through Keeper's pure recognizer (recognizeLock +
 * planHolding), which must name the recipe and the holder the real clients agree on.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planHolding, recognizeLock } from '@keeper/shared';
import { PORT_OFFSETS, startTestEnsemble } from '../../../server/test/support/testEnsemble.js';
import { fourLetterWord } from '../../sandbox/fourLetterWord.js';
import { kazoo } from '../kazoo/index.js';
import {
  curatorLeaderLatchScenario,
  curatorMutexScenario,
  curatorReadWriteScenario,
  kazoo732Scenario,
  kazooChildren,
  kazooFrozenHolderScenario,
  kazooLockScenario,
  kazooPersistentNodeScenario,
  kazooReadWriteScenario,
  kazooSemaphoreScenario,
  kazooLockHerdScenario,
  type OwnedChild,
} from './index.js';

/** The node names of the notes' "Lock and recipe nodes". */
const NAMES = {
  kazooLock: /^[0-9a-f]{32}__lock__\d{10}$/,
  kazooReadLock: /^[0-9a-f]{32}__rlock__\d{10}$/,
  kazooLease: /^[0-9a-f]{32}$/,
  curatorMutex: /^_c_[0-9a-f-]{36}-lock-\d{10}$/,
  curatorRead: /^_c_[0-9a-f-]{36}-__READ__\d{10}$/,
  curatorWrite: /^_c_[0-9a-f-]{36}-__WRIT__\d{10}$/,
  curatorLatch: /^_c_[0-9a-f-]{36}-latch-\d{10}$/,
};

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

const parentOf = (path: string) => path.slice(0, path.lastIndexOf('/')) || '/';
const sequence = (name: string) => Number(name.slice(-10));
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** /proc/<pid>/stat's state letter: T is stopped (SIGSTOP). */
const processState = (pid: number) => /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];

async function eventually<T>(check: () => Promise<T | null | false>, withinMs = 20_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('lock fixtures made by real kazoo and Curator clients', () => {
  let ensemble: Ensemble;
  let hosts: string;

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.locksFixturesTest);
    hosts = ensemble.connectionString;
  }, 180_000);

  afterAll(async () => {
    await ensemble?.dispose();
  });

  /** A four-letter word's answers from every member, joined. */
  async function everyMember(word: string): Promise<string> {
    const answers = await Promise.all(ensemble.members.map((m) => fourLetterWord(m.host, m.clientPort, word, 5_000)));
    return answers.join('\n');
  }

  /** wchc on every member: session id -> the paths it watches (data watches). */
  async function watchesBySession(): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    let session: string | null = null;
    for (const line of (await everyMember('wchc')).split('\n')) {
      if (/^0x[0-9a-f]+$/.test(line.trim())) session = line.trim();
      else if (session && line.startsWith('\t')) out.set(session, [...(out.get(session) ?? []), line.trim()]);
    }
    return out;
  }

  /** wchp on every member: path -> the sessions watching it. */
  async function watchersByPath(): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    let path: string | null = null;
    for (const line of (await everyMember('wchp')).split('\n')) {
      if (line.startsWith('/')) path = line.trim();
      else if (path && line.startsWith('\t')) out.set(path, new Set([...(out.get(path) ?? []), line.trim()]));
    }
    return out;
  }

  /** Sessions some member has a connection for (cons), with the negotiated timeout. */
  async function connectedSessions(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const m of (await everyMember('cons')).matchAll(/sid=(0x[0-9a-f]+)[^\n]*?to=(\d+)/g)) out.set(m[1]!, Number(m[2]));
    return out;
  }

  /** The directory as kazoo reads it, and as Keeper's recognizer reads the same names. */
  async function recognized(dir: string): Promise<{ children: OwnedChild[]; recipe: string; holders: string[]; order: string[] }> {
    const children = await kazooChildren(hosts, dir);
    const siblings = (await kazooChildren(hosts, parentOf(dir))).map((c) => c.name);
    const lock = recognizeLock({ path: dir, children: children.map((c) => c.name), siblings });
    if (!lock) throw new Error(`not recognized: ${dir} with ${children.map((c) => c.name).join(', ')}`);
    const plan = planHolding(lock.recipe.holding, lock.contenders);
    return {
      children,
      recipe: lock.recipe.id,
      holders: lock.contenders.filter((_, i) => plan.holding[i]).map((c) => c.name),
      order: lock.contenders.map((c) => c.name),
    };
  }

  const ownerOf = (children: OwnedChild[], name: string) => children.find((c) => c.name === name)?.ephemeralOwner;

  it('kazoo Lock: a holder and two waiters, each watching the one before; a release moves the holder', async () => {
    const dir = '/fixtures/kazoo-lock';
    const s = await kazooLockScenario({ hosts, path: dir, waiters: 2 });
    try {
      const [w1, w2] = s.waiters;
      expect([s.holder.initially, w1!.initially, w2!.initially]).toEqual(['holding', 'waiting', 'waiting']);
      expect(s.nodes.map((n) => sequence(n.name))).toEqual([...s.nodes.map((n) => sequence(n.name))].sort((a, b) => a - b));
      const seen = await recognized(dir);
      for (const n of s.nodes) {
        expect(n.name).toMatch(NAMES.kazooLock);
        expect(ownerOf(seen.children, n.name)).toBe(n.sessionId);
      }
      expect(seen.children).toHaveLength(3);
      expect(seen.children.find((c) => c.name === s.holder.name)?.data).toBe('holder');
      expect(seen).toMatchObject({ recipe: 'kazoo.Lock', holders: [s.holder.name], order: s.nodes.map((n) => n.name) });
      // The members agree: each waiter's session watches its predecessor, the holder's nothing there.
      const watches = await watchesBySession();
      expect(watches.get(w1!.sessionId)).toContain(s.holder.path);
      expect(watches.get(w2!.sessionId)).toContain(w1!.path);
      expect(w2!.watching).toEqual([w1!.path]);
      expect((watches.get(s.holder.sessionId) ?? []).filter((p) => p.startsWith(`${dir}/`))).toEqual([]);

      const next = await s.releaseHolder();
      expect(next).toBe(w1);
      const after = await recognized(dir);
      expect(after.children.map((c) => c.name)).not.toContain(s.holder.name);
      expect(after.holders).toEqual([w1!.name]);
      expect(after.order).toEqual([w1!.name, w2!.name]);
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
    expect(await kazooChildren(hosts, dir)).toEqual([]);
  });

  it('kazoo #732 for real: the failed non-blocking acquire leaves its node, its session alive and watching nothing', async () => {
    const dir = '/fixtures/kazoo-732';
    const s = await kazoo732Scenario({ hosts, path: dir });
    try {
      const { leaked, holder, waiter } = s;
      // kazoo's own path: acquire(blocking=False) said False; the connection dropped on the
      // cleanup's delete of that very node; kazoo reconnected to the same session.
      expect(leaked.acquireReturned).toBe(false);
      expect(leaked.cut).toMatchObject({ op: 'delete', path: leaked.path });
      expect(leaked.states).toEqual(expect.arrayContaining(['SUSPENDED', 'CONNECTED']));
      expect(leaked.watching).toEqual([]);
      expect(s.nodes.map((n) => n.name)).toEqual([holder.name, leaked.name, waiter.name]);
      expect(leaked.name).toMatch(NAMES.kazooLock);

      // Seconds later the node is still there, owned by a session that is connected to a member.
      await new Promise((r) => setTimeout(r, 3_000));
      const seen = await recognized(dir);
      expect(ownerOf(seen.children, leaked.name)).toBe(leaked.sessionId);
      expect(seen.children.find((c) => c.name === leaked.name)?.data).toBe('nonblocking-worker');
      expect((await connectedSessions()).has(leaked.sessionId)).toBe(true);
      const watches = await watchesBySession();
      expect((watches.get(leaked.sessionId) ?? []).filter((p) => p.startsWith(`${dir}/`))).toEqual([]);
      // The live waiter waits on the leaked node: it is no leak.
      expect(watches.get(waiter.sessionId)).toContain(leaked.path);
      expect(seen).toMatchObject({ recipe: 'kazoo.Lock', holders: [holder.name], order: [holder.name, leaked.name, waiter.name] });

      // When the holder releases, the leaked node holds for nobody and the waiter stays blocked.
      await holder.release();
      const stuck = await recognized(dir);
      expect(stuck.holders).toEqual([leaked.name]);
      expect(stuck.order).toEqual([leaked.name, waiter.name]);
      // Only the leaking session's end frees the lock.
      await s.stopLeaker();
      await waiter.holding();
      expect((await recognized(dir)).holders).toEqual([waiter.name]);
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
  });

  it('a persistent lock node made by kazoo (acquire(ephemeral=False)) behind a live holder', async () => {
    const dir = '/fixtures/kazoo-persistent';
    const s = await kazooPersistentNodeScenario({ hosts, path: dir });
    try {
      const seen = await recognized(dir);
      expect(s.persistent.name).toMatch(NAMES.kazooLock);
      expect(ownerOf(seen.children, s.persistent.name)).toBe('0x0');
      expect(ownerOf(seen.children, s.holder!.name)).toBe(s.holder!.sessionId);
      expect((await connectedSessions()).has(s.persistent.sessionId)).toBe(false);
      expect(seen).toMatchObject({ recipe: 'kazoo.Lock', holders: [s.holder!.name], order: [s.holder!.name, s.persistent.name] });
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
    expect(await kazooChildren(hosts, dir)).toEqual([]);
  });

  it('a 15-minute-session holder frozen with SIGSTOP keeps the lock; its waiter stays blocked', async () => {
    const dir = '/fixtures/kazoo-frozen';
    const s = await kazooFrozenHolderScenario({ hosts, path: dir });
    try {
      // SIGSTOP is delivered asynchronously: /proc says 'T' (stopped) a moment after kill() returns.
      await eventually(async () => processState(s.holder.pid) === 'T', 5_000);
      // Silent for a while, and still connected with its 15-minute timeout: nothing will end it soon.
      await new Promise((r) => setTimeout(r, 3_000));
      expect((await connectedSessions()).get(s.holder.sessionId)).toBe(900_000);
      const seen = await recognized(dir);
      expect(ownerOf(seen.children, s.holder.name)).toBe(s.holder.sessionId);
      expect(seen).toMatchObject({ recipe: 'kazoo.Lock', holders: [s.holder.name], order: [s.holder.name, s.waiters[0]!.name] });
      expect((await watchesBySession()).get(s.waiters[0]!.sessionId)).toContain(s.holder.path);
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
    expect(await kazooChildren(hosts, dir)).toEqual([]);
  });

  it('a herd: ten kazoo sessions keep a DataWatch on /queue/holder', async () => {
    const s = await kazooLockHerdScenario({ hosts, path: '/queue/holder', watchers: 10 });
    try {
      expect(new Set(s.sessionIds).size).toBe(10);
      const watchers = (await watchersByPath()).get('/queue/holder') ?? new Set();
      expect([...watchers].sort()).toEqual([...s.sessionIds].sort());
      // DataWatch re-arms after a change: the herd is still there after it is woken.
      await kazoo(hosts, [{ op: 'set', path: '/queue/holder', data: 'next' }]);
      await eventually(async () => ((await watchersByPath()).get('/queue/holder')?.size ?? 0) === 10);
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
  });

  it('kazoo ReadLock/WriteLock: two readers hold, the writer waits on the last reader', async () => {
    const dir = '/fixtures/kazoo-rw';
    const s = await kazooReadWriteScenario({ hosts, path: dir });
    try {
      const [r1, r2] = s.readers;
      const [w] = s.writers;
      expect([r1!.initially, r2!.initially, w!.initially]).toEqual(['holding', 'holding', 'waiting']);
      expect(r1!.name).toMatch(NAMES.kazooReadLock);
      expect(r2!.name).toMatch(NAMES.kazooReadLock);
      expect(w!.name).toMatch(NAMES.kazooLock);
      const seen = await recognized(dir);
      for (const n of s.nodes) expect(ownerOf(seen.children, n.name)).toBe(n.sessionId);
      expect(seen).toMatchObject({ recipe: 'kazoo.ReadWriteLock', holders: [r1!.name, r2!.name], order: [r1!.name, r2!.name, w!.name] });
      expect((await watchesBySession()).get(w!.sessionId)).toContain(r2!.path);
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
  });

  it('kazoo Semaphore: two leases held, the third contender holds the semaphore lock and waits', async () => {
    const dir = '/fixtures/kazoo-semaphore';
    const s = await kazooSemaphoreScenario({ hosts, path: dir, maxLeases: 2, contenders: 3 });
    try {
      expect(s.leaseHolders).toHaveLength(2);
      expect(s.waiting).toHaveLength(1);
      const [waiting] = s.waiting;
      expect(waiting!.dir).toBe(s.lockDir);
      expect(waiting!.name).toMatch(NAMES.kazooLock);
      const leases = await recognized(dir);
      for (const h of s.leaseHolders) {
        expect(h.name).toMatch(NAMES.kazooLease);
        expect(ownerOf(leases.children, h.name)).toBe(h.sessionId);
      }
      expect((await kazoo(hosts, [{ op: 'get', path: dir }]))[0]?.data).toBe('2');
      expect(leases).toMatchObject({ recipe: 'kazoo.Semaphore', holders: expect.arrayContaining(s.leaseHolders.map((h) => h.name)) });
      const lock = await recognized(s.lockDir);
      expect(ownerOf(lock.children, waiting!.name)).toBe(waiting!.sessionId);
      expect(lock).toMatchObject({ recipe: 'kazoo.Lock', holders: [waiting!.name] });
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
  });

  it('Curator InterProcessMutex: a holder and two waiters; a release moves the holder', async () => {
    const dir = '/fixtures/curator-mutex';
    const s = await curatorMutexScenario({ hosts, path: dir, waiters: 2 });
    try {
      console.info(`Curator JVM (compile + 3 sessions) ready in ${s.startMs} ms`);
      const [p0, p1, p2] = s.participants;
      expect(s.participants.map((p) => p.initially)).toEqual(['holding', 'waiting', 'waiting']);
      const seen = await recognized(dir);
      for (const p of s.participants) {
        expect(p.name).toMatch(NAMES.curatorMutex);
        expect(ownerOf(seen.children, p.name)).toBe(p.sessionId);
      }
      expect(new Set(s.sessionIds).size).toBe(3);
      // Curator's default node data: the client's local address.
      expect(seen.children.find((c) => c.name === p0!.name)?.data).toMatch(/^[0-9a-f.:]+$/i);
      expect(seen).toMatchObject({ recipe: 'curator.InterProcessMutex', holders: [p0!.name], order: [p0!.name, p1!.name, p2!.name] });
      const watches = await watchesBySession();
      expect(watches.get(p1!.sessionId)).toContain(p0!.path);
      expect(watches.get(p2!.sessionId)).toContain(p1!.path);

      await s.release(0);
      await s.holding(1);
      expect((await recognized(dir)).holders).toEqual([p1!.name]);
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
  });

  it('Curator InterProcessReadWriteLock: two readers hold, the writer waits', async () => {
    const dir = '/fixtures/curator-rw';
    const s = await curatorReadWriteScenario({ hosts, path: dir, readers: 2 });
    try {
      const [r1, r2, w] = s.participants;
      expect(s.participants.map((p) => p.initially)).toEqual(['holding', 'holding', 'waiting']);
      expect(r1!.name).toMatch(NAMES.curatorRead);
      expect(r2!.name).toMatch(NAMES.curatorRead);
      expect(w!.name).toMatch(NAMES.curatorWrite);
      const seen = await recognized(dir);
      for (const p of s.participants) expect(ownerOf(seen.children, p.name)).toBe(p.sessionId);
      expect(seen).toMatchObject({ recipe: 'curator.InterProcessReadWriteLock', holders: [r1!.name, r2!.name], order: [r1!.name, r2!.name, w!.name] });
      expect((await watchesBySession()).get(w!.sessionId)).toContain(r2!.path);
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
  });

  it('Curator LeaderLatch: three participants, the first leads', async () => {
    const dir = '/fixtures/curator-latch';
    const s = await curatorLeaderLatchScenario({ hosts, path: dir, participants: 3 });
    try {
      const [l0, l1, l2] = s.participants;
      expect(s.participants.map((p) => p.initially)).toEqual(['holding', 'waiting', 'waiting']);
      const seen = await recognized(dir);
      for (const p of s.participants) {
        expect(p.name).toMatch(NAMES.curatorLatch);
        expect(ownerOf(seen.children, p.name)).toBe(p.sessionId);
      }
      expect(seen.children.find((c) => c.name === l0!.name)?.data).toBe('participant-0');
      expect(seen).toMatchObject({ recipe: 'curator.LeaderLatch', holders: [l0!.name], order: [l0!.name, l1!.name, l2!.name] });
      await s.release(0);
      await s.holding(1);
      expect((await recognized(dir)).holders).toEqual([l1!.name]);
    } finally {
      await s.stop();
    }
    expect(s.pids.filter(isAlive)).toEqual([]);
  });
});
