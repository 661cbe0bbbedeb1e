/**
 * The raw baseline: a plain node-zookeeper-client session (the test helper's connect),
 * with the few calls the benches make, promisified, and a count of the requests it sends
 * so its share can be taken out of the ensemble's own counters. On a secure ensemble it is
 * node-zookeeper-client with the project's own TLS and SASL extension (server/src/zk, through
 * the secured tests' client), which is what a raw client there needs: no Keeper in between.
 */
import zookeeper from 'node-zookeeper-client';
import type { KeeperSecureSettings } from '../../scripts/sandbox/index.js';
import { connectRaw } from '../../server/test/support/rawClient.js';
import { connectSecure } from '../../server/test/support/secureClient.js';
import type { Scope } from './lifecycle.js';

export interface RawZk {
  client: zookeeper.Client;
  /** Requests this session has sent (pings excepted: a busy session sends none). */
  readonly requests: number;
  setData(path: string, value: string): Promise<void>;
  getData(path: string, watcher?: (event: zookeeper.Event) => void): Promise<Buffer>;
  getChildren(path: string): Promise<string[]>;
  /** Creates persistent znodes in one multi; missing parents are not created. */
  createMany(paths: readonly string[], data?: string): Promise<void>;
  create(path: string, data?: string): Promise<void>;
  remove(path: string): Promise<void>;
  mkdirp(path: string): Promise<void>;
}

function call<T>(run: (cb: (error: Error | zookeeper.Exception | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
}

/**
 * Connects to `connectionString` (a single host:port pins the session to that member), over
 * TLS and SASL when `security` is given (the bench env's own: Keeper's files and login).
 */
export async function openRaw(scope: Scope, connectionString: string, what: string, security: KeeperSecureSettings | null = null): Promise<RawZk> {
  const raw = security
    ? await connectSecure({ connectionString, ...security }, { sessionTimeoutMs: 30_000 })
    : await connectRaw(connectionString, { sessionTimeout: 30_000 });
  scope.defer(`close raw ${what}`, () => raw.close());
  const { client } = raw;
  let requests = 0;
  const counted = <T>(run: (cb: (error: Error | zookeeper.Exception | null, value?: T) => void) => void): Promise<T> => {
    requests++;
    return call(run);
  };
  return {
    client,
    get requests() {
      return requests;
    },
    setData: (path, value) => counted<void>((cb) => client.setData(path, Buffer.from(value), -1, (e) => cb(e))),
    getData: (path, watcher) =>
      counted<Buffer>((cb) => (watcher ? client.getData(path, watcher, (e, data) => cb(e, data)) : client.getData(path, (e, data) => cb(e, data)))),
    getChildren: (path) => counted<string[]>((cb) => client.getChildren(path, (e, children) => cb(e, children))),
    createMany: (paths, data = '') =>
      counted<void>((cb) => {
        const tx = client.transaction();
        for (const p of paths) tx.create(p, Buffer.from(data), zookeeper.CreateMode.PERSISTENT);
        tx.commit((e) => cb(e));
      }),
    create: (path, data = '') => counted<void>((cb) => client.create(path, Buffer.from(data), zookeeper.CreateMode.PERSISTENT, (e) => cb(e))),
    remove: (path) => counted<void>((cb) => client.remove(path, -1, (e) => cb(e))),
    mkdirp: (path) => counted<void>((cb) => client.mkdirp(path, (e) => cb(e))),
  };
}
