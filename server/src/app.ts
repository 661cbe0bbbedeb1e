/**
 * Keeper's server: one ZooKeeper gateway per ensemble, the socket hub and the HTTP API as
 * thin adapters around them. `startKeeper` is what `npm start`, the tests and the
 * benchmarks call.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Logger } from 'pino';
import type { KeeperOptions } from './config/types.js';
import { ZkGateway } from './zk/gateway.js';
import { SocketHub } from './hub/socketHub.js';
import { apiRoutes } from './http/apiRoutes.js';
import { staticWeb } from './http/staticWeb.js';
import { createLogger } from './logger.js';
import { installCrashGuards } from './crashGuards.js';

export const SERVER_VERSION = '0.1.0';

export interface RunningKeeper {
  url: string;
  port: number;
  gateways: ReadonlyMap<string, ZkGateway>;
  hub: SocketHub;
  close(): Promise<void>;
}

export interface StartExtras {
  logger?: Logger;
  /** Overrides for tests (short timeouts, small caps). */
  gatewayDefaults?: { requestDeadlineMs?: number; sessionTimeoutMs?: number; maxInFlight?: number };
}

export async function startKeeper(options: KeeperOptions, extras: StartExtras = {}): Promise<RunningKeeper> {
  const log = extras.logger ?? createLogger();
  installCrashGuards(log);
  const gateways = new Map<string, ZkGateway>();
  for (const ensemble of options.ensembles) {
    if (gateways.has(ensemble.name)) throw new Error(`two ensembles are named ${JSON.stringify(ensemble.name)}`);
    const gateway = new ZkGateway({
      name: ensemble.name,
      connectionString: ensemble.connectionString,
      ...(ensemble.auth ? { auth: ensemble.auth } : {}),
      sessionTimeoutMs: ensemble.sessionTimeoutMs ?? extras.gatewayDefaults?.sessionTimeoutMs ?? 30_000,
      ...(extras.gatewayDefaults?.requestDeadlineMs ? { requestDeadlineMs: extras.gatewayDefaults.requestDeadlineMs } : {}),
      ...(extras.gatewayDefaults?.maxInFlight ? { maxInFlight: extras.gatewayDefaults.maxInFlight } : {}),
      logger: log,
    });
    gateways.set(ensemble.name, gateway);
  }

  const app = express();
  app.disable('x-powered-by');
  app.use('/api', apiRoutes({ gateways, version: SERVER_VERSION, startedAt: Date.now() }));
  if (options.webDist) app.use(staticWeb(options.webDist));

  const server: Server = createServer(app);
  const hub = new SocketHub({
    gateways,
    health: new Map(),
    serverVersion: SERVER_VERSION,
    log,
    limits: { maxSubscriptions: 5_000, helloTimeoutMs: 10_000, maxBufferedBytes: 32 * 1024 * 1024, batchIntervalMs: 25 },
  });
  hub.attach(server);

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${options.port} on ${options.host} is already in use: stop what uses it or pass --port`) : error);
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  for (const gateway of gateways.values()) gateway.start();

  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}`;
  log.info({ url, ensembles: [...gateways.keys()] }, 'keeper is serving');

  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    gateways,
    hub,
    close() {
      closing ??= (async () => {
        hub.close();
        for (const gateway of gateways.values()) gateway.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closing;
    },
  };
}
