/**
 * "Another client" for a TLS-only, SASL-required ensemble, where plain node-zookeeper-client
 * cannot connect at all: its own session through Keeper's connection (zk/connection.ts, which
 * adds TLS and SASL), with the same small API as rawClient.ts. Used to change znodes behind the
 * console's back and to force an expiry (the FAQ's two-clients trick) over TLS and SASL.
 */
import zookeeper from 'node-zookeeper-client';
import { ZkConnection } from '../../src/zk/connection.js';
import { saslFactory } from '../../src/zk/sasl.js';
import { TlsMaterial } from '../../src/zk/tlsMaterial.js';
import type { EnsembleConfig } from '../../src/config/types.js';
import type { RawClient } from './rawClient.js';

function promisify<T>(run: (cb: (error: unknown, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
}

export async function connectSecure(
  config: Pick<EnsembleConfig, 'connectionString' | 'tls' | 'sasl'>,
  options: { sessionId?: Buffer; sessionPassword?: Buffer; sessionTimeoutMs?: number } = {},
): Promise<RawClient & { connection: ZkConnection }> {
  const connection = new ZkConnection({
    connectionString: config.connectionString,
    sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
    tls: config.tls ? new TlsMaterial(config.tls) : null,
    sasl: config.sasl ? { settings: config.sasl, factory: saslFactory(config.sasl) } : null,
    ...(options.sessionId && options.sessionPassword ? { session: { id: options.sessionId, password: options.sessionPassword } } : {}),
  });
  const client = connection.client;
  let lastTrouble = '';
  connection.on('trouble', (t) => (lastTrouble = `: ${t.note}`));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`secure client could not connect to ${config.connectionString}${lastTrouble}`)), 30_000);
    connection.once('connected', () => {
      clearTimeout(timer);
      resolve();
    });
    connection.once('authFailed', ({ note }) => {
      clearTimeout(timer);
      reject(new Error(note));
    });
    connection.connect();
  });
  return {
    connection,
    client,
    create: (path, data, mode = zookeeper.CreateMode.PERSISTENT) => promisify((cb) => client.create(path, Buffer.from(data ?? ''), mode, (e, p) => cb(e, p))),
    set: (path, data) => promisify((cb) => client.setData(path, Buffer.from(data), -1, (e) => cb(e))),
    get: (path) => promisify<Buffer>((cb) => client.getData(path, (e, d) => cb(e, d))).then((d) => d?.toString('utf8') ?? ''),
    remove: (path) => promisify((cb) => client.remove(path, -1, (e) => cb(e))),
    mkdirp: (path) => promisify((cb) => client.mkdirp(path, (e) => cb(e))).then(() => undefined),
    sessionId: () => client.getSessionId(),
    sessionPassword: () => client.getSessionPassword(),
    close: () => connection.close(),
  };
}

/** The FAQ's forced expiry over TLS and SASL: a second handle on the same session, then closed. */
export async function forceExpireSecure(
  config: Pick<EnsembleConfig, 'connectionString' | 'tls' | 'sasl'>,
  sessionId: Buffer,
  sessionPassword: Buffer,
): Promise<void> {
  const twin = await connectSecure(config, { sessionId, sessionPassword });
  twin.close();
}
