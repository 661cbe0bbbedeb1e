/**
 * Real Apache Curator 5.4 lock users (Debian's libcurator-recipes-java) for the Locks view's
 * tests: scripts/lib/curator/CuratorLocks.java, compiled once (curatorClasses.ts) and run with C1
 * only, as the sandbox's members are: a lock user needs a quick start, not peak speed. One JVM
 * holds every participant, each with its own CuratorFramework and so its own session.
 */
import { fileURLToPath } from 'node:url';
import { curatorProgram } from './curatorClasses.js';
import { EventProcess, orStop } from './eventProcess.js';
import type { PlacedNode } from './kazooContender.js';
import type { LockScenario } from './kazooScenarios.js';

export const CURATOR_LOCKS_JAVA = fileURLToPath(new URL('../curator/CuratorLocks.java', import.meta.url));
/** curator-recipes.jar's manifest brings curator-framework, curator-client, zookeeper, guava and slf4j-api. */
export const CURATOR_CLASSPATH = ['/usr/share/java/curator-recipes.jar', '/usr/share/java/slf4j-nop.jar'].join(':');

/** lock: InterProcessMutex; read/write: InterProcessReadWriteLock; latch: LeaderLatch. */
export type CuratorRole = 'lock' | 'read' | 'write' | 'latch';

export interface CuratorParticipant extends PlacedNode {
  index: number;
  role: CuratorRole;
  initially: 'holding' | 'waiting';
  /** The paths its session watched in the directory when it reported waiting. */
  watching: string[];
}

export interface CuratorScenario extends LockScenario {
  /** In role order, which is sequence order. */
  participants: CuratorParticipant[];
  /** From spawn to every participant placed: the JVM start included. */
  startMs: number;
  /** The participant releases the lock (or closes its latch): its node goes, its session stays. */
  release(index: number): Promise<void>;
  /** Resolves once the participant holds the lock (or the leadership). */
  holding(index: number, withinMs?: number): Promise<void>;
}

export interface CuratorPlan {
  hosts: string;
  path: string;
  roles: CuratorRole[];
  sessionTimeoutMs?: number;
  readyWithinMs?: number;
}

export async function startCuratorScenario({ hosts, path, roles, sessionTimeoutMs = 30_000, readyWithinMs = 90_000 }: CuratorPlan): Promise<CuratorScenario> {
  const program = await curatorProgram(CURATOR_LOCKS_JAVA, CURATOR_CLASSPATH);
  const proc = new EventProcess(`Curator ${roles.join(',')} on ${path}`, 'java', [
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    '-cp',
    program.classpath,
    program.main,
    hosts,
    path,
    String(sessionTimeoutMs),
    roles.join(','),
  ]);
  return orStop([proc], async () => {
    await proc.event((e) => e.event === 'ready', { withinMs: readyWithinMs, what: 'ready' });
    const startMs = Date.now() - proc.startedAt;
    const participants = roles.map((role, index): CuratorParticipant => {
      const session = proc.events.find((e) => e.event === 'session' && e.index === index)!;
      const placed = proc.events.find((e) => (e.event === 'holding' || e.event === 'waiting') && e.index === index)!;
      return {
        index,
        role,
        dir: path,
        name: String(placed.node),
        path: String(placed.path),
        sessionId: String(session.sessionId),
        initially: placed.event as 'holding' | 'waiting',
        watching: placed.watching as string[],
      };
    });
    const holdingEvents = (index: number) => proc.events.filter((e) => e.event === 'holding' && e.index === index).length;
    return {
      dir: path,
      participants,
      nodes: participants.map(({ dir, name, path: p, sessionId }) => ({ dir, name, path: p, sessionId })),
      sessionIds: participants.map((p) => p.sessionId),
      pids: [proc.pid],
      startMs,
      release: async (index) => {
        proc.send(`release ${index}`);
        await proc.event((e) => e.event === 'released' && e.index === index, { what: `participant ${index} released` });
      },
      holding: async (index, withinMs = 30_000) => {
        if (holdingEvents(index) > 0) return;
        await proc.event((e) => e.event === 'holding' && e.index === index, { withinMs, what: `participant ${index} holding` });
      },
      stop: () => proc.stop(),
    };
  });
}

type Common = Omit<CuratorPlan, 'roles'>;

/** InterProcessMutex: a holder and `waiters` waiters (default 2). */
export function curatorMutexScenario({ waiters = 2, ...plan }: Common & { waiters?: number }): Promise<CuratorScenario> {
  return startCuratorScenario({ ...plan, roles: ['lock', ...Array<CuratorRole>(waiters).fill('lock')] });
}

/** InterProcessReadWriteLock: `readers` readers holding (default 2), then a writer waiting. */
export function curatorReadWriteScenario({ readers = 2, ...plan }: Common & { readers?: number }): Promise<CuratorScenario> {
  return startCuratorScenario({ ...plan, roles: [...Array<CuratorRole>(readers).fill('read'), 'write'] });
}

/** LeaderLatch: `participants` participants (default 3); the first is the leader. */
export function curatorLeaderLatchScenario({ participants = 3, ...plan }: Common & { participants?: number }): Promise<CuratorScenario> {
  return startCuratorScenario({ ...plan, roles: Array<CuratorRole>(participants).fill('latch') });
}
