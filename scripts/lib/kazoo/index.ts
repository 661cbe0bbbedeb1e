/**
 * kazoo (python3-kazoo under /usr/bin/python3) for integration tests and e2e specs alike: a
 * third-party ZooKeeper client that shares none of Keeper's code. One-shot operations
 * (ops.ts), sessions held while a test runs (sessions.ts), a writer whose acks are the truth
 * (writer.ts) and a write load for rolling upgrades (loadWriter.ts, its own loadwriter.py); the
 * rest drive driver.py.
 */
export { kazoo, kazooGet, kazooSnapshot, type DigestGrant, type KazooNode, type KazooOp, type KazooResult, type Snapshot } from './ops.js';
export { holdSessions, type HeldSessions, type HoldOptions, type KazooClientPlan } from './sessions.js';
export { startRequestHerd, type RequestHerdPlan, type RunningRequestHerd } from './herd.js';
export { KazooWriter, type AckedWrite } from './writer.js';
export {
  longestGapAcross,
  missingWrites,
  startLoadWriter,
  startingOn,
  type LoadAck,
  type LoadReport,
  type LoadWriterPlan,
  type RunningLoadWriter,
} from './loadWriter.js';
export { longestGap, typicalGap, writesSentIn, type SentWrite } from './writeGaps.js';
