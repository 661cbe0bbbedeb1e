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
    const timer = setTimeout(() => reject(new Error(`raw client could not connect to ${connectionString}`)), 15_000);
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
