/**
 * A child process of bench/scale.ts: a plain ZooKeeper client (node-zookeeper-client, no
 * Keeper) writing one znode at a steady rate, each value stamped with this process's clock
 * (`w<seq>@<ms>`), so a browser can tell how long after the write the change reached it. Apart
 * from Keeper's process, so Keeper's load never delays a write nor its stamp.
 *
 * Commands over IPC: connect {connectionString}, write {path, perSecond, durationMs}.
 */
import zookeeper from 'node-zookeeper-client';

type Command = { cmd: 'connect'; connectionString: string } | { cmd: 'write'; path: string; perSecond: number; durationMs: number };

let client: zookeeper.Client | null = null;
let seq = 0;

const clock = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function write(path: string, perSecond: number, durationMs: number): Promise<{ writes: number; errors: number; acks: number[] }> {
  const c = client;
  if (!c) throw new Error('not connected');
  const started = performance.now();
  let writes = 0;
  let errors = 0;
  /** How long each write took to be acknowledged: ZooKeeper's own latency in the same run. */
  const acks: number[] = [];
  const pending: Promise<void>[] = [];
  while (performance.now() - started < durationMs) {
    const due = started + (writes * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sent = clock();
    const value = `w${seq++}@${sent}`;
    writes++;
    pending.push(
      new Promise((resolve) =>
        c.setData(path, Buffer.from(value), -1, (error) => {
          if (error) errors++;
          else acks.push(clock() - sent);
          resolve();
        }),
      ),
    );
  }
  await Promise.all(pending);
  return { writes, errors, acks };
}

process.on('message', (command: Command) => {
  void (async () => {
    switch (command.cmd) {
      case 'connect': {
        client = zookeeper.createClient(command.connectionString, { sessionTimeout: 30_000 });
        await new Promise<void>((resolve) => {
          client!.once('connected', () => resolve());
          client!.connect();
        });
        process.send?.({ connected: true });
        return;
      }
      case 'write':
        process.send?.(await write(command.path, command.perSecond, command.durationMs));
        return;
    }
  })().catch((error: unknown) => process.send?.({ error: String(error) }));
});

process.on('disconnect', () => {
  client?.close();
  process.exit(0);
});
