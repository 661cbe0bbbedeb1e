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
import { hubLimitsFromConfig } from './hub/hubLimits.js';
import { WalkBudget, walkLimitsFromConfig } from './ops/walkBudget.js';
import { MutationBudget } from './hub/mutationBudget.js';
import { apiRoutes } from './http/apiRoutes.js';
import { staticWeb } from './http/staticWeb.js';
import { createLogger } from './logger.js';
import { installCrashGuards } from './crashGuards.js';
import { createEnsembleMonitor, type EnsembleMonitor, type MonitorSettings } from './ensemble/ensembleMonitor.js';
import { ensembleRoutes } from './http/ensembleRoutes.js';
import { AccessControl } from './auth/accessControl.js';
import { Credentials } from './auth/credentials.js';
import { isLoopbackHost } from './auth/origin.js';
import { SessionStore } from './auth/sessionStore.js';
import { ShareLinkStore } from './auth/shareLinks.js';
import { upgradeAuthorizer } from './auth/upgrade.js';
import { CLOSE_ACCESS_ENDED } from '@keeper/shared';
import { AuditLog } from './audit/auditLog.js';
import { JobRegistry } from './ops/jobs.js';
import { ZnodeOps } from './ops/znodeOps.js';
import { authRoutes } from './http/authRoutes.js';
import { pageSignIn } from './http/pageSignIn.js';
import { requireIdentity } from './http/requestIdentity.js';
import { shareLinkRoutes } from './http/shareLinkRoutes.js';
import { shareScopeGuard } from './http/shareScopeGuard.js';
import { auditRoutes } from './http/auditRoutes.js';
import { opsRoutes } from './http/opsRoutes.js';
import { jsonErrors } from './http/jsonBody.js';
import { sameOriginWrites } from './http/sameOriginWrites.js';
import { DEFAULT_RATE_LIMITS, apiLimiter, securityHeaders, signInLimiter, type RateLimits } from './http/security.js';
import { DEFAULT_AUDIT_ROTATION } from './audit/auditLog.js';
import { allowedHostNames } from './auth/hosts.js';
import { SignInGuard } from './auth/signInAudit.js';
import { clientAddress, type TrustFn } from './http/clientAddress.js';
import { hostCheck, lastErrorHandler, malformedUrls } from './http/requestHygiene.js';

export const SERVER_VERSION = '0.1.0';

export interface RunningKeeper {
  url: string;
  port: number;
  gateways: ReadonlyMap<string, ZkGateway>;
  hub: SocketHub;
  /** The ensemble view's poller and collectors, one set per ensemble. */
  monitors: ReadonlyMap<string, EnsembleMonitor>;
  access: AccessControl;
  audit: AuditLog;
  jobs: JobRegistry;
  ops: ZnodeOps;
  close(): Promise<void>;
}

const DEFAULT_SESSION_TTL_MS = 12 * 3600_000;

export interface StartExtras {
  logger?: Logger;
  /** Overrides for tests (short timeouts, small caps). */
  gatewayDefaults?: { requestDeadlineMs?: number; sessionTimeoutMs?: number; maxInFlight?: number };
  /** Member poller and collector settings (tests poll every second). */
  ensembleDefaults?: MonitorSettings;
  /** Tests raise these so fuzzing is not throttled (and lower them to test throttling). */
  rateLimits?: Partial<RateLimits>;
  recursiveDelete?: { concurrency?: number; stallMs?: number };
}

export async function startKeeper(options: KeeperOptions, extras: StartExtras = {}): Promise<RunningKeeper> {
  const log = extras.logger ?? createLogger();
  installCrashGuards(log);
  const auth = options.auth;
  if (!auth && !isLoopbackHost(options.host)) {
    throw new Error(`refusing to listen on ${options.host} without authentication: set KEEPER_ADMIN_TOKEN (and KEEPER_VIEWER_TOKEN), configure users, or bind 127.0.0.1`);
  }
  const credentials = auth ? new Credentials(auth) : null;
  if (credentials && !credentials.configured) throw new Error('authentication is on but no admin token, viewer token or user is configured: nobody could sign in');
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
  const monitors = new Map<string, EnsembleMonitor>();
  for (const ensemble of options.ensembles) monitors.set(ensemble.name, createEnsembleMonitor(ensemble, gateways.get(ensemble.name) ?? null, extras.ensembleDefaults ?? {}, log));

  const access = new AccessControl(credentials, new SessionStore(auth?.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS), new ShareLinkStore(auth?.stateDir ?? null), auth?.allowedOrigins ?? []);
  const audit = await AuditLog.open(auth?.stateDir ?? null, log, { ...DEFAULT_AUDIT_ROTATION, ...options.audit });
  const jobs = new JobRegistry();
  const ops = new ZnodeOps({ gateways, audit, jobs, log, ensembles: options.ensembles, ...(extras.recursiveDelete ? { recursiveDelete: extras.recursiveDelete } : {}) });
  const limits: RateLimits = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits, ...extras.rateLimits };
  const guard = new SignInGuard(signInLimiter(limits), audit, log);
  const allowedHosts = allowedHostNames(options.host, auth?.allowedOrigins ?? [], options.allowedHosts ?? []);

  const app = express();
  app.disable('x-powered-by');
  // Behind a TLS proxy: req.ip from X-Forwarded-For, req.secure from X-Forwarded-Proto (trusted hops only).
  app.set('trust proxy', options.trustProxy ?? false);
  const trust = app.get('trust proxy fn') as TrustFn;

  const server: Server = createServer();
  const hub = new SocketHub(
    {
      gateways,
      health: new Map([...monitors].map(([name, monitor]) => [name, monitor.poller])),
      serverVersion: SERVER_VERSION,
      log,
      limits: hubLimitsFromConfig(options.limits),
      ops,
      mutationBudget: new MutationBudget({ limit: limits.api, windowMs: limits.windowMs }),
    },
    upgradeAuthorizer(access, { allowedHosts, guard, addressOf: (request) => clientAddress(request, trust) }),
  );
  hub.attach(server);
  // Access that ends (revoked or expired share link, sign-out, expired session) closes its sockets at once.
  access.on('ended', (end, reason) => {
    hub.closeWhere((identity) => ('sessionId' in end ? identity.sessionId === end.sessionId : identity.shareLinkId === end.shareLinkId), CLOSE_ACCESS_ENDED, reason);
  });
  jobs.on('update', (job) => hub.pushJob(job));

  app.use(hostCheck(allowedHosts));
  app.use(malformedUrls(log));
  app.use(securityHeaders(options.webDist));
  app.use(pageSignIn({ access, audit, guard }));
  app.use('/api', sameOriginWrites(access.allowedOrigins));
  app.use('/api', requireIdentity(access, guard));
  // Per identity, so one viewer's flood cannot use up an admin's budget behind the same address.
  app.use('/api', apiLimiter(limits));
  // A share-link holder reaches only its link's scope: refused before any route reads its input.
  app.use('/api', shareScopeGuard);
  app.use('/api', authRoutes({ access, audit, guard }));
  app.use('/api', shareLinkRoutes({ access, audit, socketsFor: (id) => hub.countWhere((identity) => identity.shareLinkId === id) }));
  app.use('/api', auditRoutes(audit));
  app.use('/api', opsRoutes(ops, jobs, new WalkBudget(walkLimitsFromConfig(options.limits))));
  app.use('/api/ensembles/:name', ensembleRoutes(monitors, gateways));
  app.use('/api', apiRoutes({ gateways, version: SERVER_VERSION, startedAt: Date.now() }));
  app.use('/api', jsonErrors);
  app.use('/api', lastErrorHandler(log));
  if (options.webDist) app.use(staticWeb(options.webDist));
  app.use(lastErrorHandler(log));
  server.on('request', app);

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
  for (const monitor of monitors.values()) monitor.start();

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
    monitors,
    access,
    audit,
    jobs,
    ops,
    close() {
      closing ??= (async () => {
        access.close();
        await jobs.close();
        hub.close();
        for (const monitor of monitors.values()) monitor.close();
        for (const gateway of gateways.values()) gateway.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await audit.close();
      })();
      return closing;
    },
  };
}
