/**
 * kazoo making the nodes the tree-controls spec needs that e2e/support/kazoo.ts does not: nodes
 * with a digest ACL the console lacks, sequential children with chosen prefixes (as lock
 * recipes make them), and ephemeral nodes held by a live kazoo session until released.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type NodeSpec =
  | { op: 'ensure'; path: string }
  | { op: 'purge'; path: string }
  /** ACL: digest entries (user, password, perms letters) plus optional world:anyone perms. */
  | { op: 'create'; path: string; data?: string; sequence?: boolean; digest?: { user: string; password: string; perms: string }[]; world?: string };

// Operations as JSON through argv: nothing is spliced into Python source.
const SCRIPT = `
import json, sys
from kazoo.client import KazooClient
from kazoo.security import make_acl, make_digest_acl
hosts, ops = sys.argv[1], json.loads(sys.argv[2])
auth = [('digest', '%s:%s' % (d['user'], d['password'])) for o in ops for d in o.get('digest', [])]
zk = KazooClient(hosts=hosts, timeout=10, auth_data=auth)
zk.start(timeout=15)
def perms(letters):
    return dict(read='r' in letters, write='w' in letters, create='c' in letters, delete='d' in letters, admin='a' in letters)
made = []
try:
    for o in ops:
        if o['op'] == 'ensure':
            zk.ensure_path(o['path'])
        elif o['op'] == 'purge':
            if zk.exists(o['path']):
                zk.delete(o['path'], recursive=True)
        elif o['op'] == 'create':
            acl = None
            if o.get('digest') or o.get('world'):
                acl = [make_digest_acl(d['user'], d['password'], **perms(d['perms'])) for d in o.get('digest', [])]
                if o.get('world'):
                    acl.append(make_acl('world', 'anyone', **perms(o['world'])))
            made.append(zk.create(o['path'], o.get('data', '').encode(), acl=acl, sequence=o.get('sequence', False), makepath=True))
finally:
    zk.stop()
    zk.close()
print(json.dumps(made))
`;

/** Runs the operations; answers the paths created (with their sequence numbers). */
export async function kazooNodes(hosts: string, ops: NodeSpec[]): Promise<string[]> {
  const { stdout } = await run('/usr/bin/python3', ['-c', SCRIPT, hosts, JSON.stringify(ops)], { timeout: 30_000 });
  return JSON.parse(stdout) as string[];
}

const HOLD_SCRIPT = `
import json, sys
from kazoo.client import KazooClient
hosts, path = sys.argv[1], sys.argv[2]
zk = KazooClient(hosts=hosts, timeout=10)
zk.start(timeout=15)
zk.ensure_path(path.rsplit('/', 1)[0] or '/')
zk.create(path, b'held by kazoo', ephemeral=True)
print(json.dumps({'session': '0x%x' % zk.client_id[0]}), flush=True)
sys.stdin.read()
zk.stop()
zk.close()
`;

export interface HeldEphemeral {
  /** The owning session, as 0x hex. */
  session: string;
  /** Closes the session (the node goes with it) and waits for the process to end. */
  release(): Promise<void>;
}

/** An ephemeral node owned by a kazoo session that lives until release(). */
export async function holdEphemeral(hosts: string, path: string): Promise<HeldEphemeral> {
  const child: ChildProcess = spawn('/usr/bin/python3', ['-c', HOLD_SCRIPT, hosts, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('kazoo did not create the ephemeral node within 30 s')), 30_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`kazoo exited (${code}) before creating ${path}`)));
  });
  const { session } = JSON.parse(first) as { session: string };
  return {
    session,
    release: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin!.end();
      }),
  };
}
