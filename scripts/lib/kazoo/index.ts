/**
 * kazoo (python3-kazoo under /usr/bin/python3) for integration tests and e2e specs alike: a
 * third-party ZooKeeper client that shares none of Keeper's code. One-shot operations
 * (ops.ts), sessions held while a test runs (sessions.ts), a writer whose acks are the truth
 * (writer.ts); all of them drive driver.py.
 */
export { kazoo, kazooGet, kazooSnapshot, type DigestGrant, type KazooNode, type KazooOp, type KazooResult, type Snapshot } from './ops.js';
export { holdSessions, type HeldSessions, type HoldOptions, type KazooClientPlan } from './sessions.js';
export { startHerd, type HerdPlan, type RunningHerd } from './herd.js';
export { KazooWriter, type AckedWrite } from './writer.js';
