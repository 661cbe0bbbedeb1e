/**
 * Deletes a subtree children-first, one znode at a time through ZkMutations (never
 * node-zookeeper-client's removeRecursive, which holds the whole subtree and passes one
 * version to every node). Safe under faults:
 *  - each delete's outcome is verified after a lost reply (ZkMutations);
 *  - NO_NODE counts as deleted (someone, or our own lost reply, got there first);
 *  - NOT_EMPTY means children were added meanwhile: list them and delete them first;
 *  - transient failures (leader election, reconnect) are retried with back-off until no
 *    progress has been made for `stallMs`.
 * When it stops early (failure, cancellation) it reads the subtree back and reports exactly
 * what remains, or, if the ensemble cannot be read, what its own bookkeeping says remains.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_REPORTED_REMAINING, backoffDelay, joinPath, type JobSnapshot } from '@keeper/shared';
import { READ_RETRY, type ZkGateway } from '../zk/gateway.js';
import type { ZkMutations } from '../zk/mutations.js';
import { toZkError } from '../zk/errors.js';
import type { JobControl } from '../admin/jobs.js';
import { OpError, toOpError } from '../admin/opError.js';
import { Semaphore, forEachPooled } from '../lib/pool.js';
import { walkSubtree } from './subtree.js';

export const MAX_RECURSIVE_DELETE_NODES = 1_000_000;

/** Failures after which trying the same delete again later may work. */
const RETRYABLE = new Set([
  'CONNECTION_LOSS',
  'NOT_CONNECTED',
  'DEADLINE_EXCEEDED',
  'SESSION_EXPIRED',
  'SESSION_MOVED',
  'OPERATION_TIMEOUT',
  'REQUEST_TIMEOUT',
  'THROTTLED_OP',
  'OVERLOADED',
  'OUTCOME_UNKNOWN',
]);

/**
 * A seam for tests that must act while a delete runs (Cancel, a screenshot, a member killed): the
 * first job on `root` sends `afterDeletes` deletes, then takes no new work until it is cancelled
 * or `until` settles. Once per process (`spent`), so a second job on the same root runs to its
 * end. Nothing sets it outside tests (scripts/start.ts reads KEEPER_TEST_HOLD_DELETE for the e2e
 * servers).
 */
export interface RecursiveDeleteHold {
  root: string;
  afterDeletes: number;
  until?: Promise<void>;
  spent?: boolean;
}

export interface RecursiveDeleteOptions {
  gateway: ZkGateway;
  mutations: ZkMutations;
  root: string;
  /** The root's version as the operator saw it; children are deleted whatever their version. */
  rootVersion: number;
  concurrency?: number;
  /** Give up after this long without a single node deleted. */
  stallMs?: number;
  hold?: RecursiveDeleteHold;
}

class Cancelled extends Error {}

export async function runRecursiveDelete(options: RecursiveDeleteOptions, job: JobControl): Promise<Partial<JobSnapshot> & Pick<JobSnapshot, 'state'>> {
  const { gateway, mutations, root } = options;
  const stallMs = options.stallMs ?? 60_000;
  const concurrency = options.concurrency ?? 16;
  const gate = new Semaphore(concurrency);
  const known = new Set<string>();
  const gone = new Set<string>();
  let lastProgressAt = Date.now();

  const listing = await walkSubtree(gateway, root, { maxNodes: MAX_RECURSIVE_DELETE_NODES, concurrency: 8 });
  for (const n of listing.nodes) known.add(n.path);
  job.progress({ total: known.size, done: 0 });
  // A node the console may not read can be deleted, but not its unseen children: say so before deleting anything.
  const blocked = listing.unlisted.filter((u) => u.children !== 0);
  if (blocked.length > 0) {
    const named = blocked.slice(0, 5).map((u) => `${u.path} (${u.children ?? 'unknown'} children)`);
    return {
      state: 'failed',
      done: 0,
      total: known.size,
      remaining: listing.nodes.map((n) => n.path).slice(0, MAX_REPORTED_REMAINING),
      remainingTotal: known.size,
      remainingVerified: true,
      error: {
        code: 'NO_AUTH',
        message: `nothing deleted: the console may not list the children of ${blocked.length} ${blocked.length === 1 ? 'node' : 'nodes'} it cannot read: ${named.join(', ')}${blocked.length > 5 ? ', …' : ''}. Give the console read on ${blocked.length === 1 ? 'it' : 'them'} (or delete the children with a client that may), then retry`,
      },
    };
  }

  const deleted = (path: string) => {
    if (gone.has(path)) return;
    gone.add(path);
    lastProgressAt = Date.now();
    job.progress({ done: gone.size, current: path });
  };

  const hold = options.hold && !options.hold.spent && options.hold.root === root ? options.hold : null;
  if (hold) hold.spent = true;
  let sent = 0;

  const deleteNode = async (path: string): Promise<void> => {
    const version = path === root ? options.rootVersion : -1;
    if (hold && ++sent > hold.afterDeletes) await (hold.until ? Promise.race([job.whenCancelled, hold.until]) : job.whenCancelled);
    for (let attempt = 0; ; attempt++) {
      if (job.cancelled) throw new Cancelled();
      try {
        await gate.run(() => mutations.remove(path, version));
        return deleted(path);
      } catch (error) {
        const code = error instanceof Cancelled ? 'CANCELLED' : toOpError(error, path).code;
        if (code === 'NO_NODE') return deleted(path);
        if (code === 'NOT_EMPTY') {
          // Someone added children since we listed: they go first.
          const children = await readChildren(gateway, path);
          const fresh = children.map((c) => joinPath(path, c)).filter((p) => !gone.has(p));
          for (const p of fresh) known.add(p);
          job.progress({ total: known.size });
          await forEachPooled(fresh, concurrency, deleteNode, () => job.cancelled);
          continue;
        }
        if (RETRYABLE.has(code) && Date.now() - lastProgressAt < stallMs) {
          await sleep(backoffDelay(attempt, READ_RETRY));
          continue;
        }
        throw error;
      }
    }
  };

  // Deepest level first: by the time a node's turn comes, its children are normally gone.
  const byDepth = new Map<number, string[]>();
  for (const n of listing.nodes) byDepth.set(n.depth, [...(byDepth.get(n.depth) ?? []), n.path]);
  const depths = [...byDepth.keys()].sort((a, b) => b - a);
  try {
    for (const depth of depths) {
      await forEachPooled(byDepth.get(depth) ?? [], concurrency, deleteNode, () => job.cancelled);
      if (job.cancelled) throw new Cancelled();
    }
    return { state: 'done', done: gone.size, total: known.size };
  } catch (error) {
    const cancelled = error instanceof Cancelled || job.cancelled;
    const remaining = await whatRemains(gateway, root, known, gone);
    const failure = cancelled ? undefined : toOpError(error, root);
    return {
      state: cancelled ? 'cancelled' : 'failed',
      done: gone.size,
      total: known.size,
      remaining: remaining.paths.slice(0, MAX_REPORTED_REMAINING),
      remainingTotal: remaining.paths.length,
      remainingVerified: remaining.verified,
      ...(failure ? { error: { code: failure.code, message: failure.message } } : {}),
    };
  }
}

async function readChildren(gateway: ZkGateway, path: string): Promise<string[]> {
  try {
    return (await gateway.getChildren(path)).children;
  } catch (error) {
    if (toZkError(error).code === 'NO_NODE') return [];
    throw error;
  }
}

/** The subtree as it is now (read back, deepest first), or the job's own idea of it if ZooKeeper cannot be read. */
async function whatRemains(gateway: ZkGateway, root: string, known: Set<string>, gone: Set<string>): Promise<{ paths: string[]; verified: boolean }> {
  try {
    const now = await walkSubtree(gateway, root, { maxNodes: MAX_RECURSIVE_DELETE_NODES, concurrency: 8, deadlineMs: 30_000 });
    return { paths: now.nodes.sort((a, b) => b.depth - a.depth || a.path.localeCompare(b.path)).map((n) => n.path), verified: true };
  } catch (error) {
    if (error instanceof OpError && error.code === 'NO_NODE') return { paths: [], verified: true };
    const paths = [...known].filter((p) => !gone.has(p));
    paths.sort((a, b) => b.split('/').length - a.split('/').length || a.localeCompare(b));
    return { paths, verified: false };
  }
}
