/**
 * One real kazoo 2.8.0 recipe user in its own Python process, with its own session: a Lock,
 * ReadLock, WriteLock or Semaphore contender that stays where it is (holding, or blocked in
 * acquire()) until told to release or stop. Its own process, so that freezing it (SIGSTOP)
 * freezes that client alone.
 */
import { fileURLToPath } from 'node:url';
import { PYTHON } from '../kazoo/process.js';
import { EventProcess, type LockEvent } from './eventProcess.js';

export const KAZOO_LOCKS_PY = fileURLToPath(new URL('./kazoo_locks.py', import.meta.url));

export type KazooRecipe = 'Lock' | 'ReadLock' | 'WriteLock' | 'Semaphore';

export interface KazooContenderPlan {
  hosts: string;
  /** The lock path given to the recipe (for a Semaphore, its lease directory). */
  path: string;
  recipe?: KazooRecipe;
  /** The recipe's identifier, written as the node's data. */
  identifier?: string;
  /** Session timeout in seconds, as kazoo takes it (the ensemble caps it by maxSessionTimeout). */
  timeoutS?: number;
  /** Semaphore only. */
  maxLeases?: number;
  /** acquire(ephemeral=False): a persistent lock node (Lock, ReadLock, WriteLock). */
  ephemeral?: boolean;
  readyWithinMs?: number;
}

/** Where a contender's node is. */
export interface PlacedNode {
  /** The directory holding the node (a Semaphore waiter's is the semaphore's `-__lock__` lock). */
  dir: string;
  /** The node's name in `dir`. */
  name: string;
  /** `dir/name`. */
  path: string;
  /** The owner session, as ZooKeeper prints it (0x...). */
  sessionId: string;
}

export interface KazooContender extends PlacedNode {
  recipe: KazooRecipe;
  pid: number;
  /** Where it stood once placed. */
  initially: 'holding' | 'waiting';
  /** The paths its session watched in the directory when it reported waiting (empty for a holder). */
  watching: string[];
  /** Resolves once it holds (at once for a holder). */
  holding(withinMs?: number): Promise<void>;
  /** lock.release(): its node goes, its session stays. */
  release(): Promise<void>;
  /**
   * An application callback of this client blocks kazoo's one callback thread (the client stays
   * connected and pinging): a watch that fires meanwhile is not acted on, so a waiter whose
   * predecessor goes sets no new watch until releaseCallbacks().
   */
  holdCallbacks(): Promise<void>;
  releaseCallbacks(): Promise<void>;
  /** SIGSTOP / SIGCONT. */
  freeze(): void;
  thaw(): void;
  /** SIGKILL: the session and its ephemerals stay until the session expires. */
  kill(): Promise<void>;
  /** Closes the session and waits for the process to end. */
  stop(): Promise<void>;
  process: EventProcess;
}

export async function startKazooContender(plan: KazooContenderPlan): Promise<KazooContender> {
  const recipe = plan.recipe ?? 'Lock';
  const config = {
    hosts: plan.hosts,
    path: plan.path,
    recipe,
    identifier: plan.identifier ?? '',
    timeoutS: plan.timeoutS ?? 30,
    maxLeases: plan.maxLeases ?? 1,
    ephemeral: plan.ephemeral ?? true,
  };
  const proc = new EventProcess(`kazoo ${recipe} on ${plan.path}`, PYTHON, [KAZOO_LOCKS_PY, 'contender', JSON.stringify(config)]);
  const withinMs = plan.readyWithinMs ?? 60_000;
  try {
    const session = await proc.event((e) => e.event === 'session', { withinMs, what: 'session' });
    const placed = await proc.event((e) => e.event === 'holding' || e.event === 'waiting', { withinMs, what: 'holding or waiting' });
    const holdingEvent = (e: LockEvent) => e.event === 'holding';
    return {
      recipe,
      dir: String(placed.dir),
      name: String(placed.node),
      path: String(placed.path),
      sessionId: String(session.sessionId),
      pid: proc.pid,
      initially: placed.event as 'holding' | 'waiting',
      watching: placed.watching as string[],
      holding: async (ms = 30_000) => void (await proc.event(holdingEvent, { withinMs: ms, what: 'holding' })),
      release: async () => {
        // The answer to this release: a "released" after every event so far.
        const before = proc.events.length;
        proc.send('release');
        await proc.event((e) => e.event === 'released' && proc.events.indexOf(e) >= before, { what: 'released' });
      },
      holdCallbacks: async () => {
        const before = proc.events.length;
        proc.send('hold-callbacks');
        await proc.event((e) => e.event === 'callbacksHeld' && proc.events.indexOf(e) >= before, { what: 'callbacks held' });
      },
      releaseCallbacks: async () => {
        const before = proc.events.length;
        proc.send('release-callbacks');
        await proc.event((e) => e.event === 'callbacksReleased' && proc.events.indexOf(e) >= before, { what: 'callbacks released' });
      },
      freeze: () => proc.freeze(),
      thaw: () => proc.thaw(),
      kill: () => proc.kill(),
      stop: () => proc.stop(),
      process: proc,
    };
  } catch (error) {
    await proc.kill();
    throw error;
  }
}
