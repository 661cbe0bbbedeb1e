/**
 * Lock scenarios made by real kazoo 2.8.0 clients on a real ensemble, for the Locks view's tests
 * (issue 12, item 11). Each contender is its own process and session, started one after the
 * other so that sequence numbers follow the order given; each scenario resolves once every
 * contender holds or is blocked in acquire() with its watch set.
 */
import { kazoo } from '../kazoo/index.js';
import { EventProcess, orStop } from './eventProcess.js';
import { KAZOO_LOCKS_PY, startKazooContender, type KazooContender, type KazooContenderPlan, type PlacedNode } from './kazooContender.js';
import { PYTHON } from '../kazoo/process.js';

/** What every scenario hands back. */
export interface LockScenario {
  /** The lock directory. */
  dir: string;
  /** The scenario's nodes, lowest sequence first. */
  nodes: PlacedNode[];
  sessionIds: string[];
  pids: number[];
  /** Ends every process of the scenario (and removes what a session's end does not). */
  stop(): Promise<void>;
}

interface Common {
  hosts: string;
  /** The lock path (created with its parents). */
  path: string;
  /** Session timeout in seconds (default 30). */
  timeoutS?: number;
}

/** Starts contenders one after the other, so their sequence numbers follow `plans`. */
export async function startInOrder(plans: KazooContenderPlan[]): Promise<KazooContender[]> {
  const started: KazooContender[] = [];
  await orStop(started, async () => {
    for (const plan of plans) started.push(await startKazooContender(plan));
  });
  return started;
}

function scenarioOf(dir: string, contenders: KazooContender[], extra: { stop?: () => Promise<void> } = {}): LockScenario {
  return {
    dir,
    nodes: contenders.map(({ dir: d, name, path, sessionId }) => ({ dir: d, name, path, sessionId })),
    sessionIds: contenders.map((c) => c.sessionId),
    pids: contenders.map((c) => c.pid),
    stop: async () => {
      await Promise.all(contenders.map((c) => c.stop()));
      await extra.stop?.();
    },
  };
}

export interface KazooLockScenario extends LockScenario {
  holder: KazooContender;
  /** In queue order; each blocked in acquire(), watching the one before. */
  waiters: KazooContender[];
  /**
   * The current holder releases (its session stays); resolves with the next holder once it
   * holds. The "release seen live" of the e2e spec.
   */
  releaseHolder(): Promise<KazooContender>;
}

/** 1. A kazoo Lock: a holder and `waiters` waiters (default 2). */
export async function kazooLockScenario({ hosts, path, timeoutS, waiters = 2 }: Common & { waiters?: number }): Promise<KazooLockScenario> {
  const plans = Array.from({ length: waiters + 1 }, (_, i) => ({ hosts, path, timeoutS, identifier: i === 0 ? 'holder' : `waiter-${i}` }));
  const [holder, ...queue] = await startInOrder(plans);
  const all = [holder!, ...queue];
  let current = 0;
  return {
    ...scenarioOf(path, all),
    holder: holder!,
    waiters: queue,
    releaseHolder: async () => {
      const next = all[current + 1];
      if (!next) throw new Error(`no waiter left behind ${all[current]!.name}`);
      await all[current]!.release();
      await next.holding();
      current += 1;
      return next;
    },
  };
}

export interface KazooPersistentScenario extends LockScenario {
  /** The live holder ahead of the persistent node (null when the persistent node holds). */
  holder: KazooContender | null;
  /** The persistent node (ephemeralOwner 0); `sessionId` is the session that created it, now closed. */
  persistent: PlacedNode;
}

/**
 * 3. A persistent lock node: kazoo's own Lock.acquire(ephemeral=False), by a client that then
 * closes its session: the node stays with ephemeralOwner 0. Behind a live holder by default
 * (a worker that waited and went away), or alone, so that it holds the lock for ever.
 */
export async function kazooPersistentNodeScenario({
  hosts,
  path,
  timeoutS,
  behindHolder = true,
}: Common & { behindHolder?: boolean }): Promise<KazooPersistentScenario> {
  const holder = behindHolder ? await startKazooContender({ hosts, path, timeoutS, identifier: 'holder' }) : null;
  const live = holder ? [holder] : [];
  const creator = await orStop(live, () => startKazooContender({ hosts, path, timeoutS, identifier: 'persistent', ephemeral: false }));
  await creator.stop();
  const persistent: PlacedNode = { dir: creator.dir, name: creator.name, path: creator.path, sessionId: creator.sessionId };
  const [node] = await orStop(live, () => kazoo(hosts, [{ op: 'get', path: persistent.path }]));
  if (node === null) throw new Error(`kazoo removed the persistent node ${persistent.path} when its session closed`);
  const base = scenarioOf(path, live);
  return {
    ...base,
    nodes: [...base.nodes, persistent],
    holder,
    persistent,
    stop: async () => {
      await base.stop();
      await kazoo(hosts, [{ op: 'purge', path: persistent.path }]);
    },
  };
}

export interface KazooFrozenHolderScenario extends LockScenario {
  holder: KazooContender;
  waiters: KazooContender[];
}

/**
 * 4. Seed 000's stuck lock: a holder with a 15-minute session (kazoo timeout 900 s) whose
 * process is frozen with SIGSTOP (unless `frozen` is false; holder.freeze()/thaw() either way),
 * and `waiters` waiters behind it (default 1). The ensemble must allow 900 s
 * (maxSessionTimeout=900000, as the sandbox's zoo.cfg does).
 */
export async function kazooFrozenHolderScenario({
  hosts,
  path,
  timeoutS,
  holderTimeoutS = 900,
  waiters = 1,
  frozen = true,
}: Common & { holderTimeoutS?: number; waiters?: number; frozen?: boolean }): Promise<KazooFrozenHolderScenario> {
  const [holder, ...queue] = await startInOrder([
    { hosts, path, timeoutS: holderTimeoutS, identifier: 'frozen-holder' },
    ...Array.from({ length: waiters }, (_, i) => ({ hosts, path, timeoutS, identifier: `waiter-${i + 1}` })),
  ]);
  if (frozen) holder!.freeze();
  // stop() thaws first, so the holder closes its session rather than leaving it for 15 minutes.
  return { ...scenarioOf(path, [holder!, ...queue]), holder: holder!, waiters: queue };
}

export interface KazooReadWriteScenario extends LockScenario {
  readers: KazooContender[];
  writers: KazooContender[];
}

/** 6a. kazoo ReadLock/WriteLock: `readers` readers holding (default 2), then `writers` writers waiting (default 1). */
export async function kazooReadWriteScenario({
  hosts,
  path,
  timeoutS,
  readers = 2,
  writers = 1,
}: Common & { readers?: number; writers?: number }): Promise<KazooReadWriteScenario> {
  const started = await startInOrder([
    ...Array.from({ length: readers }, (_, i) => ({ hosts, path, timeoutS, recipe: 'ReadLock' as const, identifier: `reader-${i + 1}` })),
    ...Array.from({ length: writers }, (_, i) => ({ hosts, path, timeoutS, recipe: 'WriteLock' as const, identifier: `writer-${i + 1}` })),
  ]);
  return { ...scenarioOf(path, started), readers: started.slice(0, readers), writers: started.slice(readers) };
}

export interface KazooSemaphoreScenario extends LockScenario {
  /** The semaphore's own lock, `<path>-__lock__`, where contenders queue for a lease. */
  lockDir: string;
  /** Contenders holding a lease (their nodes are in `dir`). */
  leaseHolders: KazooContender[];
  /** The others: the first holds `lockDir`'s lock and waits on a child watch of `dir`. */
  waiting: KazooContender[];
}

/** 6b. kazoo Semaphore: `contenders` contenders (default 3) for `maxLeases` leases (default 2). */
export async function kazooSemaphoreScenario({
  hosts,
  path,
  timeoutS,
  maxLeases = 2,
  contenders = 3,
}: Common & { maxLeases?: number; contenders?: number }): Promise<KazooSemaphoreScenario> {
  const started = await startInOrder(
    Array.from({ length: contenders }, (_, i) => ({ hosts, path, timeoutS, recipe: 'Semaphore' as const, maxLeases, identifier: `contender-${i + 1}` })),
  );
  return {
    ...scenarioOf(path, started),
    lockDir: `${path}-__lock__`,
    leaseHolders: started.filter((c) => c.initially === 'holding'),
    waiting: started.filter((c) => c.initially === 'waiting'),
  };
}

export interface LockHerdScenario {
  /** The node every session watches. */
  path: string;
  sessionIds: string[];
  pids: number[];
  stop(): Promise<void>;
}

/**
 * 5. A herd: `watchers` sessions (default 10), each keeping a kazoo DataWatch on one node
 * (created if missing), as workers watching `/queue/holder` do: `wchp` lists them all on it.
 * One process holds every session.
 */
export async function kazooLockHerdScenario({ hosts, path, timeoutS = 30, watchers = 10 }: Common & { watchers?: number }): Promise<LockHerdScenario> {
  const proc = new EventProcess(`kazoo herd on ${path}`, PYTHON, [KAZOO_LOCKS_PY, 'watchers', JSON.stringify({ hosts, path, count: watchers, timeoutS })]);
  const ready = await orStop([proc], () => proc.event((e) => e.event === 'ready', { what: 'ready' }));
  return { path, sessionIds: ready.sessionIds as string[], pids: [proc.pid], stop: () => proc.stop() };
}
