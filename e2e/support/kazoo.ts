/**
 * kazoo (python3-kazoo under /usr/bin/python3) as "another client": a real third-party
 * ZooKeeper client changing znodes behind the console's back.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type KazooOp =
  | { op: 'ensure'; path: string }
  | { op: 'create'; path: string; data?: string; makepath?: boolean }
  | { op: 'set'; path: string; data: string }
  | { op: 'delete'; path: string; recursive?: boolean };

// Reads the operations as JSON from argv so no value is ever spliced into Python source.
const SCRIPT = `
import json, sys
from kazoo.client import KazooClient
hosts, ops = sys.argv[1], json.loads(sys.argv[2])
zk = KazooClient(hosts=hosts, timeout=10)
zk.start(timeout=15)
try:
    for o in ops:
        if o['op'] == 'ensure':
            zk.ensure_path(o['path'])
        elif o['op'] == 'create':
            zk.create(o['path'], o.get('data', '').encode(), makepath=o.get('makepath', True))
        elif o['op'] == 'set':
            zk.set(o['path'], o['data'].encode())
        elif o['op'] == 'delete':
            zk.delete(o['path'], recursive=o.get('recursive', False))
finally:
    zk.stop()
    zk.close()
`;

export async function kazoo(hosts: string, ops: KazooOp[]): Promise<void> {
  await run('/usr/bin/python3', ['-c', SCRIPT, hosts, JSON.stringify(ops)], { timeout: 30_000 });
}

export interface KazooNode {
  data: string;
  version: number;
  aversion: number;
  numChildren: number;
  /** Nodes in the subtree, the node itself included. */
  subtree: number;
}

// Reads (and bulk creation) for the access spec: what another client sees, independent of Keeper.
const READ_SCRIPT = `
import json, sys
from kazoo.client import KazooClient
hosts, req = sys.argv[1], json.loads(sys.argv[2])
zk = KazooClient(hosts=hosts, timeout=10)
zk.start(timeout=15)
try:
    if req['op'] == 'get':
        path = req['path']
        if not zk.exists(path):
            print('null')
        else:
            data, stat = zk.get(path)
            count, todo = 0, [path]
            while todo:
                p = todo.pop()
                count += 1
                todo.extend((p.rstrip('/') + '/' + c) for c in zk.get_children(p))
            print(json.dumps({'data': data.decode('utf-8', 'replace'), 'version': stat.version, 'aversion': stat.aversion, 'numChildren': stat.numChildren, 'subtree': count}))
    elif req['op'] == 'grow':
        # root/shard-NN/item-NNNN, created asynchronously: thousands of nodes in a second or two.
        zk.ensure_path(req['path'])
        for i in range(req['shards']):
            shard = '%s/shard-%02d' % (req['path'], i)
            zk.create(shard, b'{"owner":"ingest"}')
            for r in [zk.create_async('%s/item-%04d' % (shard, j), b'x') for j in range(req['perShard'])]:
                r.get()
        print('null')
finally:
    zk.stop()
    zk.close()
`;

/** The node as kazoo reads it (data as UTF-8, stat, subtree size), or null when it does not exist. */
export async function kazooGet(hosts: string, path: string): Promise<KazooNode | null> {
  const { stdout } = await run('/usr/bin/python3', ['-c', READ_SCRIPT, hosts, JSON.stringify({ op: 'get', path })], { timeout: 60_000 });
  return JSON.parse(stdout) as KazooNode | null;
}

/** Creates path/shard-NN/item-NNNN: 1 + shards × (1 + perShard) nodes. */
export async function kazooGrow(hosts: string, path: string, shards: number, perShard: number): Promise<void> {
  await run('/usr/bin/python3', ['-c', READ_SCRIPT, hosts, JSON.stringify({ op: 'grow', path, shards, perShard })], { timeout: 120_000 });
}
