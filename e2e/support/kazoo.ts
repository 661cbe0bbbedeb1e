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
