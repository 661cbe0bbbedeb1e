/**
 * Why the console could not read a znode, from the subscription's error: ZooKeeper's NO_AUTH
 * (the node's ACL does not let the console read) is told apart from other failures, so a view
 * can say what is needed instead of waiting forever. The server words its errors
 * `NO_AUTH (-102) at /path` (server/src/zk/errors.ts): the code leads the message.
 */
import type { SubscriptionErrorEntry } from './znodeEntries';

export type ReadFailure =
  | { kind: 'noAuth'; message: string }
  /** Failed and not retried: nothing more will come by waiting. */
  | { kind: 'failed'; message: string }
  /** Failed but Keeper keeps retrying: still loading, with a reason. */
  | { kind: 'retrying'; message: string };

export function readFailureOf(error: SubscriptionErrorEntry | null | undefined): ReadFailure | null {
  if (!error) return null;
  if (/^NO_AUTH\b/.test(error.message)) return { kind: 'noAuth', message: error.message };
  return error.retrying ? { kind: 'retrying', message: error.message } : { kind: 'failed', message: error.message };
}

/** True when waiting will not bring the read: the view should stop saying "loading". */
export function isFinalFailure(failure: ReadFailure | null): boolean {
  return failure !== null && failure.kind !== 'retrying';
}
