/**
 * One-shot kazoo operations: set up znodes behind Keeper's back (as "another client" does) and
 * read them back as a witness that shares none of Keeper's code. One process per call; each
 * operation answers one result, in order.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DRIVER_PY, PYTHON } from './process.js';

const run = promisify(execFile);

/** A digest ACL entry: user, password and permission letters (rwcda). */
export interface DigestGrant {
  user: string;
  password: string;
  perms: string;
}

export type KazooOp =
  | { op: 'ensure'; path: string }
  /** Parents are made unless makepath is false. An ACL given as digest entries (plus world:anyone letters); none is OPEN. */
  | { op: 'create'; path: string; data?: string | Uint8Array; makepath?: boolean; sequence?: boolean; digest?: DigestGrant[]; world?: string }
  | { op: 'set'; path: string; data: string | Uint8Array }
  /** subtree: also count the nodes under it (the node included). */
  | { op: 'get'; path: string; subtree?: boolean }
  /** Every node under the path with its data (base64), versions and ACL. */
  | { op: 'snapshot'; path: string }
  | { op: 'delete'; path: string; recursive?: boolean }
  /** Deletes the subtree if it exists. */
  | { op: 'purge'; path: string }
  /** Creates path/shard-NN/item-NNNN: 1 + shards x (1 + perShard) nodes, fast. */
  | { op: 'grow'; path: string; shards: number; perShard: number };

/** A node as kazoo reads it, data decoded as UTF-8. */
export interface KazooNode {
  data: string;
  version: number;
  aversion: number;
  numChildren: number;
  /** Nodes in the subtree, the node itself included (get with subtree: true). */
  subtree?: number;
}

export type Snapshot = Record<string, { data: string; version: number; aversion: number; acl: string[] }>;

/** What each operation answers: the created path (with its sequence number), the node or null, the snapshot; null otherwise. */
export type KazooResult<O extends KazooOp> = O extends { op: 'create' }
  ? string
  : O extends { op: 'get' }
    ? KazooNode | null
    : O extends { op: 'snapshot' }
      ? Snapshot
      : null;

const base64 = (data: string | Uint8Array | undefined) => Buffer.from(data ?? '').toString('base64');

/** Runs the operations on one kazoo session; a failure (NoNode, NoAuth...) rejects with kazoo's message. */
export async function kazoo<const Ops extends readonly KazooOp[]>(hosts: string, ops: Ops): Promise<{ -readonly [K in keyof Ops]: KazooResult<Ops[K]> }> {
  // Data travels as base64 so binary values survive the trip.
  const wire = ops.map((o) => (o.op === 'create' || o.op === 'set' ? { ...o, data: base64(o.data) } : o));
  const running = run(PYTHON, [DRIVER_PY, 'ops', hosts], { timeout: 120_000, maxBuffer: 256 * 1024 * 1024 });
  // Through stdin: one argument may not exceed 128 KiB, and a large value's base64 does.
  running.child.stdin!.end(JSON.stringify(wire));
  const { stdout } = await running;
  return JSON.parse(stdout) as { -readonly [K in keyof Ops]: KazooResult<Ops[K]> };
}

export async function kazooGet(hosts: string, path: string, { subtree = false } = {}): Promise<KazooNode | null> {
  const [node] = await kazoo(hosts, [{ op: 'get', path, subtree }]);
  return node;
}

export async function kazooSnapshot(hosts: string, path: string): Promise<Snapshot> {
  const [snapshot] = await kazoo(hosts, [{ op: 'snapshot', path }]);
  return snapshot;
}
