/**
 * "Another client": a plain node-zookeeper-client session used by tests to change znodes
 * behind the console's back, and as the raw baseline in benchmarks.
 */
import zookeeper from 'node-zookeeper-client';

export interface RawClient {
  client: zookeeper.Client;
  create(path: string, data?: string, mode?: number): Promise<string>;
  set(path: string, data: string): Promise<void>;
  get(path: string): Promise<string>;
  remove(path: string): Promise<void>;
  mkdirp(path: string): Promise<void>;
  sessionId(): Buffer;
  sessionPassword(): Buffer;
  close(): void;
}

function promisify<T>(run: (cb: (error: unknown, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
}

/** Session options node-zookeeper-client accepts but its type definitions omit. */
type RawOptions = Partial<zookeeper.Option> & { sessionId?: Buffer; sessionPassword?: Buffer };

export async function connectRaw(connectionString: string, options: RawOptions = {}): Promise<RawClient> {
  const client = zookeeper.createClient(connectionString, { sessionTimeout: 10_000, ...options } as Partial<zookeeper.Option>);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Closed, or it would go on retrying the members for as long as the process lives.
      client.close();
      reject(new Error(`raw client could not connect to ${connectionString}`));
    }, 15_000);
    client.once('connected', () => {
      clearTimeout(timer);
      resolve();
    });
    client.connect();
  });
  return {
    client,
    create: (path, data, mode = zookeeper.CreateMode.PERSISTENT) => promisify((cb) => client.create(path, Buffer.from(data ?? ''), mode, (e, p) => cb(e, p))),
    set: (path, data) => promisify((cb) => client.setData(path, Buffer.from(data), -1, (e) => cb(e))),
    get: (path) => promisify<Buffer>((cb) => client.getData(path, (e, d) => cb(e, d))).then((d) => d?.toString('utf8') ?? ''),
    remove: (path) => promisify((cb) => client.remove(path, -1, (e) => cb(e))),
    mkdirp: (path) => promisify((cb) => client.mkdirp(path, (e) => cb(e))).then(() => undefined),
    sessionId: () => client.getSessionId(),
    sessionPassword: () => client.getSessionPassword(),
    close: () => client.close(),
  };
}

/** The FAQ's forced expiry: a second client on the same session id and password, then close it. */
export async function forceExpire(connectionString: string, sessionId: Buffer, sessionPassword: Buffer): Promise<void> {
  const twin = await connectRaw(connectionString, { sessionId, sessionPassword });
  twin.close();
}

const SEQUENTIAL = new Set<number>([zookeeper.CreateMode.PERSISTENT_SEQUENTIAL, zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL]);

/** Whether `path` exists, asked until an answer comes (a lost connection is waited out, 10 tries). */
async function existsOnceConnected(client: zookeeper.Client, path: string): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
    try {
      return (await promisify<zookeeper.Stat | null>((cb) => client.exists(path, (e, st) => cb(e, st)))) !== null;
    } catch (error) {
      if (attempt >= 9) throw error;
    }
  }
}

/**
 * One multi transaction of creates. A lost connection is not a failure: once connected again, the
 * first node says whether the transaction was applied (all or none of it was), and it is sent
 * again if not. Sequential names cannot be looked up: their loss is thrown.
 */
async function commitCreates(client: zookeeper.Client, batch: readonly { path: string; data?: string }[], mode: number): Promise<string[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      const tx = client.transaction();
      for (const n of batch) tx.create(n.path, Buffer.from(n.data ?? ''), mode);
      const results = await promisify<{ path?: string }[]>((cb) => tx.commit((e, r) => cb(e, r)));
      return results.map((r, i) => r.path ?? batch[i]!.path);
    } catch (error) {
      const code = (error as { code?: number }).code;
      const lost = code === zookeeper.Exception.CONNECTION_LOSS || code === zookeeper.Exception.OPERATION_TIMEOUT;
      if (!lost || SEQUENTIAL.has(mode) || attempt >= 5) throw error;
      if (await existsOnceConnected(client, batch[0]!.path)) return batch.map((n) => n.path);
    }
  }
}

/**
 * Many creates in multi transactions of `perTransaction`, a few in flight: a fixture of 100,000
 * nodes costs the members and the test process a hundred requests, not 100,000 (the nodes are
 * the same as one create each would make). All or none of a transaction's nodes are made.
 * Returns the paths made, in order (a sequential node's with its suffix).
 */
export async function createMany(
  client: zookeeper.Client,
  nodes: readonly { path: string; data?: string }[],
  mode: number = zookeeper.CreateMode.PERSISTENT,
  { perTransaction = 100, inFlight = 8 } = {},
): Promise<string[]> {
  const made = new Array<string>(nodes.length);
  let next = 0;
  const worker = async () => {
    while (next < nodes.length) {
      const from = next;
      next = Math.min(nodes.length, next + perTransaction);
      const batch = nodes.slice(from, next);
      const results = await commitCreates(client, batch, mode);
      results.forEach((path, i) => (made[from + i] = path));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return made;
}
