/**
 * Long-lived kazoo clients (python3-kazoo under /usr/bin/python3) for as long as a test
 * needs them: each with its own host list and session timeout, optional ephemerals and
 * exists-watches. Prints one "ready" line with the session ids, then holds the sessions
 * until killed. Plans travel as JSON through argv: nothing is spliced into Python source.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface KazooClientPlan {
  hosts: string;
  /** Seconds, as kazoo takes it. */
  timeout: number;
  ephemerals?: string[];
  /** exists() with a watch, as lock waiters do. */
  watch?: string[];
}

const SCRIPT = `
import json, sys, time
from kazoo.client import KazooClient
plans = json.loads(sys.argv[1])
clients = []
for plan in plans:
    zk = KazooClient(hosts=plan['hosts'], timeout=plan['timeout'])
    zk.start(timeout=20)
    clients.append(zk)
    for path in plan.get('ephemerals', []):
        zk.create(path, b'', ephemeral=True, makepath=True)
    for path in plan.get('watch', []):
        zk.exists(path, watch=lambda event: None)
print('ready ' + json.dumps(['0x%x' % zk.client_id[0] for zk in clients]), flush=True)
while True:
    time.sleep(1)
`;

export interface KazooSessions {
  /** Session ids in plan order, as ZooKeeper prints them. */
  sessionIds: string[];
  /** Kills the process (SIGKILL: the sessions stay on the ensemble until they expire). */
  kill(): Promise<void>;
}

export async function holdKazooSessions(plans: KazooClientPlan[], timeoutMs = 60_000): Promise<KazooSessions> {
  const child: ChildProcess = spawn('/usr/bin/python3', ['-c', SCRIPT, JSON.stringify(plans)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  try {
    const sessionIds = await new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kazoo not ready within ${timeoutMs} ms: ${stderr.slice(-2000)}`)), timeoutMs);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (!line.startsWith('ready ')) return;
        clearTimeout(timer);
        resolve(JSON.parse(line.slice(6)) as string[]);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`kazoo exited (${code}) before ready: ${stderr.slice(-2000)}`));
      });
    });
    return { sessionIds, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}
