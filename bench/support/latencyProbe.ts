/**
 * The ensemble's latency as another client sees it: one plain node-zookeeper-client session
 * per member (pinned to it), each doing getData of one znode every 20 ms, one at a time.
 * Runs in its own process so that the bench's own work (a scan) does not delay its timers
 * or callbacks; prints one line per answer: `<member index> <epoch ms> <latency ms>`.
 *
 *   node --import tsx bench/support/latencyProbe.ts <path> <host:port> [<host:port>...]
 */
import zookeeper from 'node-zookeeper-client';

const SPACING_MS = 20;
const [path, ...members] = process.argv.slice(2);
if (!path || members.length === 0) throw new Error('usage: latencyProbe.ts <path> <host:port>...');

function connect(member: string): Promise<zookeeper.Client> {
  const client = zookeeper.createClient(member, { sessionTimeout: 30_000 });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`probe could not connect to ${member}`)), 15_000);
    client.once('connected', () => {
      clearTimeout(timer);
      resolve(client);
    });
    client.connect();
  });
}

async function probe(index: number, client: zookeeper.Client): Promise<never> {
  for (;;) {
    const began = performance.now();
    await new Promise<void>((resolve) =>
      client.getData(path!, (error) => {
        const ms = performance.now() - began;
        if (error) process.stderr.write(`probe ${index}: ${String(error)}\n`);
        else process.stdout.write(`${index} ${Date.now()} ${ms.toFixed(3)}\n`);
        resolve();
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, SPACING_MS - (performance.now() - began))));
  }
}

const clients = await Promise.all(members.map(connect));
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  for (const c of clients) c.close();
  process.exit(0);
});
await Promise.all(clients.map((c, i) => probe(i, c)));
