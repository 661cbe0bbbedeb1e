/**
 * Lock scenarios made by real clients on a real ensemble, for the Locks view's integration
 * tests and e2e specs (issue 12, item 11): kazoo 2.8.0 (kazoo_locks.py under /usr/bin/python3)
 * and Apache Curator 5.4 (scripts/lib/curator/CuratorLocks.java). Every handle says which nodes
 * it made, their owner sessions (0x...) and its processes, and stop() ends them all.
 */
export { EventProcess, type LockEvent } from './eventProcess.js';
export { startKazooContender, type KazooContender, type KazooContenderPlan, type KazooRecipe, type PlacedNode } from './kazooContender.js';
export {
  kazooFrozenHolderScenario,
  kazooLockScenario,
  kazooPersistentNodeScenario,
  kazooReadWriteScenario,
  kazooSemaphoreScenario,
  kazooLockHerdScenario,
  startInOrder,
  type KazooFrozenHolderScenario,
  type KazooLockScenario,
  type KazooPersistentScenario,
  type KazooReadWriteScenario,
  type KazooSemaphoreScenario,
  type LockScenario,
  type LockHerdScenario,
} from './kazooScenarios.js';
export { kazoo732Scenario, type Kazoo732Plan, type Kazoo732Scenario, type LeakedNode } from './kazoo732.js';
export {
  curatorLeaderLatchScenario,
  curatorMutexScenario,
  curatorReadWriteScenario,
  startCuratorScenario,
  type CuratorParticipant,
  type CuratorPlan,
  type CuratorRole,
  type CuratorScenario,
} from './curator.js';
export { kazooChildren, type OwnedChild } from './inspect.js';
