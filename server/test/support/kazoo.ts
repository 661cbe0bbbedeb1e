/**
 * kazoo (python3-kazoo under /usr/bin/python3) as an independent witness: a third-party client
 * that reads (and sets up) znodes without any of Keeper's code, so "the ensemble is unchanged"
 * is checked by something that could not share our bugs.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

// Operations and results travel as JSON through argv/stdout: nothing is spliced into Python source.
const SCRIPT = `
import base64, json, sys
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError
hosts, ops = sys.argv[1], json.loads(sys.argv[2])
zk = KazooClient(hosts=hosts, timeout=10)
zk.start(timeout=20)
out = []
def walk(path, acc):
    try:
        data, stat = zk.get(path)
        acl, _ = zk.get_acls(path)
        children = zk.get_children(path)
    except NoNodeError:
        return
    acc[path] = {'data': base64.b64encode(data or b'').decode(), 'version': stat.version, 'aversion': stat.aversion,
                 'acl': sorted('%s:%s:%d' % (a.id.scheme, a.id.id, a.perms) for a in acl)}
    for c in children:
        walk(path.rstrip('/') + '/' + c, acc)
try:
    for o in ops:
        if o['op'] == 'snapshot':
            acc = {}
            walk(o['path'], acc)
            out.append(acc)
        elif o['op'] == 'create':
            zk.create(o['path'], base64.b64decode(o.get('data', '')), makepath=True)
        elif o['op'] == 'get':
            try:
                data, stat = zk.get(o['path'])
                out.append({'data': (data or b'').decode('utf-8', 'replace'), 'version': stat.version})
            except NoNodeError:
                out.append(None)
        elif o['op'] == 'delete':
            zk.delete(o['path'], recursive=o.get('recursive', False))
finally:
    zk.stop()
    zk.close()
print(json.dumps(out))
`;

export type KazooOp = { op: 'snapshot'; path: string } | { op: 'create'; path: string; data?: string } | { op: 'get'; path: string } | { op: 'delete'; path: string; recursive?: boolean };

export type Snapshot = Record<string, { data: string; version: number; aversion: number; acl: string[] }>;

export async function kazoo(hosts: string, ops: KazooOp[]): Promise<unknown[]> {
  const { stdout } = await run('/usr/bin/python3', ['-c', SCRIPT, hosts, JSON.stringify(ops.map((o) => (o.op === 'create' ? { ...o, data: Buffer.from(o.data ?? '').toString('base64') } : o)))], {
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(stdout) as unknown[];
}

export async function kazooSnapshot(hosts: string, path: string): Promise<Snapshot> {
  return (await kazoo(hosts, [{ op: 'snapshot', path }]))[0] as Snapshot;
}

export async function kazooGet(hosts: string, path: string): Promise<{ data: string; version: number } | null> {
  return (await kazoo(hosts, [{ op: 'get', path }]))[0] as { data: string; version: number } | null;
}
