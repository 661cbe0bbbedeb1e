/**
 * A real kazoo client (python3-kazoo under /usr/bin/python3) writing `{"counter": N}` to one znode every
 * `intervalMs`, and reporting each ACKNOWLEDGED write with the time the ack arrived. Fault tests
 * use it as "the truth": which values exist, and from when, whatever the console shows.
 * Used by integration tests and e2e specs alike; it only needs Node and kazoo.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface AckedWrite {
  value: number;
  /** Epoch ms when kazoo had the ack (this machine's clock, like the console's). */
  at: number;
}

// The writer prints "ack <value> <epoch ms>" per acknowledged write; failures are retried
// at the next tick and never printed as acks. Arguments come as JSON: nothing is spliced into Python.
const SCRIPT = `
import json, sys, time
from kazoo.client import KazooClient
from kazoo.retry import KazooRetry
cfg = json.loads(sys.argv[1])
zk = KazooClient(hosts=cfg['hosts'], timeout=cfg['sessionTimeoutS'], connection_retry=KazooRetry(max_tries=-1, max_delay=0.5))
zk.start(timeout=30)
zk.ensure_path(cfg['path'])
print('ready', flush=True)
value = 0
while True:
    value += 1
    try:
        zk.set(cfg['path'], json.dumps({'counter': value}).encode())
        print('ack %d %d' % (value, int(time.time() * 1000)), flush=True)
    except Exception as e:
        print('fail %d %s' % (value, type(e).__name__), flush=True)
    time.sleep(cfg['intervalS'])
`;

export class KazooWriter {
  readonly acks: AckedWrite[] = [];
  private readonly proc: ChildProcess;
  private readonly ready: Promise<void>;

  constructor(hosts: string, path: string, { intervalMs = 500, sessionTimeoutMs = 10_000 } = {}) {
    this.proc = spawn('/usr/bin/python3', ['-c', SCRIPT, JSON.stringify({ hosts, path, intervalS: intervalMs / 1000, sessionTimeoutS: sessionTimeoutMs / 1000 })], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: this.proc.stdout! });
    this.ready = new Promise((resolve, reject) => {
      this.proc.once('exit', (code) => reject(new Error(`kazoo writer exited (${code})`)));
      lines.on('line', (line) => {
        if (line === 'ready') resolve();
        const m = /^ack (\d+) (\d+)$/.exec(line);
        if (m) this.acks.push({ value: Number(m[1]), at: Number(m[2]) });
      });
    });
    this.proc.stderr!.resume();
  }

  /** Resolves once the path exists and the first write is on its way. */
  started(): Promise<void> {
    return this.ready;
  }

  /** The first acknowledged write after `value`, if any: the first truth a frozen view missed. */
  firstAckAfter(value: number): AckedWrite | undefined {
    return this.acks.find((a) => a.value > value);
  }

  stop(): void {
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
  }
}
