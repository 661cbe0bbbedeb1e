/**
 * kazoo #732 (seeds/002) reproduced through kazoo's own code: Lock.acquire(blocking=False) on a
 * held lock creates its contender node, sees a predecessor and gives up; its
 * _best_effort_cleanup() deletes the node, and that delete meets a connection loss, which the
 * cleanup swallows. The node stays, owned by a session that lives on (kazoo reconnects),
 * watching nothing in the lock directory: leaked.
 *
 * The connection loss is real: the leaking client talks to its member through a TCP relay in
 * its own process, which drops the connection when the delete goes out (before the member sees
 * it). Nothing in kazoo is patched.
 */
import { PYTHON } from '../kazoo/process.js';
import { EventProcess, orStop } from './eventProcess.js';
import { KAZOO_LOCKS_PY, startKazooContender, type KazooContender, type PlacedNode } from './kazooContender.js';
import type { LockScenario } from './kazooScenarios.js';

export interface LeakedNode extends PlacedNode {
  /** The leaking client's process (its session stays open until stop()). */
  pid: number;
  /** What acquire(blocking=False) returned: false. */
  acquireReturned: boolean;
  /** The request the relay dropped the connection on: the cleanup's delete of this very node. */
  cut: { xid: number; op: 'delete'; path: string };
  /** kazoo's connection states meanwhile (SUSPENDED, then CONNECTED: the session survived). */
  states: string[];
  /** Paths the leaking session watches in the lock directory, by kazoo's registry: none. */
  watching: string[];
}

export interface Kazoo732Scenario extends LockScenario {
  /** The live holder. */
  holder: KazooContender;
  /** A live waiter (blocked in acquire(), watching its predecessor); never to be called leaked. */
  waiter: KazooContender;
  leaked: LeakedNode;
  /** Ends the leaking client only: its session closes and the leaked node goes with it. */
  stopLeaker(): Promise<void>;
}

export interface Kazoo732Plan {
  hosts: string;
  path: string;
  /** The member the leaking client connects to through the relay (default: the first of `hosts`). */
  member?: string;
  timeoutS?: number;
  /**
   * 'holder-leaked-waiter' (default): the waiter waits on the leaked node, and when the holder
   * releases the leaked node holds for nobody. 'holder-waiter-leaked': the leak is last.
   */
  order?: 'holder-leaked-waiter' | 'holder-waiter-leaked';
}

async function startLeaker(path: string, member: string, timeoutS: number): Promise<{ proc: EventProcess; leaked: LeakedNode }> {
  const config = { member, path, timeoutS, identifier: 'nonblocking-worker' };
  const proc = new EventProcess(`kazoo #732 on ${path}`, PYTHON, [KAZOO_LOCKS_PY, 'leak732', JSON.stringify(config)]);
  return orStop([proc], async () => {
    const session = await proc.event((e) => e.event === 'session', { what: 'session' });
    const e = await proc.event((x) => x.event === 'leaked', { what: 'leaked' });
    const leaked: LeakedNode = {
      dir: path,
      name: String(e.node),
      path: String(e.path),
      sessionId: String(session.sessionId),
      pid: proc.pid,
      acquireReturned: e.acquireReturned as boolean,
      cut: e.cut as LeakedNode['cut'],
      states: e.states as string[],
      watching: e.watching as string[],
    };
    return { proc, leaked };
  });
}

/** 2. A holder, a waiter and a node leaked by kazoo #732 in one kazoo Lock directory. */
export async function kazoo732Scenario({ hosts, path, member, timeoutS = 30, order = 'holder-leaked-waiter' }: Kazoo732Plan): Promise<Kazoo732Scenario> {
  const target = member ?? hosts.split(',')[0]!;
  const startWaiter = () => startKazooContender({ hosts, path, timeoutS, identifier: 'waiter' });
  const startLeak = () => startLeaker(path, target, timeoutS);
  const holder = await startKazooContender({ hosts, path, timeoutS, identifier: 'holder' });
  const live: { stop(): Promise<void> }[] = [holder];
  const { leaker, waiter } = await orStop(live, async () => {
    // Started one after the other: the sequence numbers follow `order`.
    if (order === 'holder-leaked-waiter') {
      const l = await startLeak();
      live.push(l.proc);
      return { leaker: l, waiter: await startWaiter() };
    }
    const w = await startWaiter();
    live.push(w);
    return { waiter: w, leaker: await startLeak() };
  });
  const { leaked } = leaker;
  const contenders = order === 'holder-leaked-waiter' ? [holder, leaked, waiter] : [holder, waiter, leaked];
  return {
    dir: path,
    nodes: contenders.map(({ dir, name, path: p, sessionId }) => ({ dir, name, path: p, sessionId })),
    sessionIds: contenders.map((c) => c.sessionId),
    pids: contenders.map((c) => c.pid),
    holder,
    waiter,
    leaked,
    stopLeaker: () => leaker.proc.stop(),
    stop: async () => {
      await Promise.all([holder.stop(), waiter.stop(), leaker.proc.stop()]);
    },
  };
}
