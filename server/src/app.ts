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
import { Ensembles } from './ensemble/ensembles.js';
import { ensembleLookup } from './http/ensembleLookup.js';
import type { SandboxRestart } from './upgrades/restarter.js';
import type { UpgradeTimings } from '@keeper/shared';
import { LockMemory } from './locks/lockMemory.js';
import { ensembleStateDir } from './config/ensembleState.js';
import { SocketHub } from './hub/socketHub.js';
import { hubLimitsFromConfig } from './hub/hubLimits.js';
import { WalkBudget, walkLimitsFromConfig } from './ops/walkBudget.js';
import { topicProducers } from './topics/index.js';
import { staticWeb } from './http/staticWeb.js';
import { IDLE_CONNECTION_MS } from './http/idleConnections.js';
import { createLogger } from './logger.js';
import { installCrashGuards } from './crashGuards.js';
import type { MonitorSettings } from './members/memberMonitor.js';
import { AccessControl } from './auth/accessControl.js';
import { Credentials } from './auth/credentials.js';
import { isLoopbackHost } from './auth/origin.js';
import { SessionStore } from './auth/sessionStore.js';
import { ShareLinkStore } from './auth/shareLinks.js';
import { socketGate } from './auth/socketGate.js';
import { API_PREFIX, CLOSE_ACCESS_ENDED, ENSEMBLE_ROUTES_PREFIX } from '@keeper/shared';
import { AuditLog } from './audit/auditLog.js';
import { JobRegistry } from './admin/jobs.js';
import { Admin } from './admin/admin.js';
import { ZnodeOps } from './ops/znodeOps.js';
import type { RecursiveDeleteOptions } from './ops/recursiveDelete.js';
import { pageSignIn } from './http/pageSignIn.js';
import { requireIdentity } from './http/requestIdentity.js';
import { shareScopeGuard } from './http/shareScopeGuard.js';
import { jsonErrors } from './http/jsonBody.js';
import { sameOriginWrites } from './http/sameOriginWrites.js';
import { DEFAULT_RATE_LIMITS, apiLimiter, securityHeaders, signInLimiter, type RateLimits } from './http/security.js';
import { DEFAULT_AUDIT_ROTATION } from './audit/auditLog.js';
import { allowedHostNames } from './auth/hosts.js';
import { SignInGuard } from './auth/signInAudit.js';
import { DeviceCookies } from './auth/deviceCookies.js';
import { OidcClient } from './auth/oidc/oidcClient.js';
import { PendingSignIns } from './auth/oidc/pendingSignIns.js';
import { oidcRoutes } from './http/oidcRoutes.js';
import { unknownApiRoute } from './http/apiRoute.js';
import { allApiRoutes } from './http/allApiRoutes.js';
import { checkAuthOptions } from './auth/authOptions.js';
import { clientAddress, type TrustFn } from './http/clientAddress.js';
import { hostCheck, lastErrorHandler, malformedUrls } from './http/requestHygiene.js';
import { KeeperMetrics } from './metrics/keeperMetrics.js';
import { metricsRoute } from './http/metricsRoute.js';
import { Replicas } from './replicas/replicas.js';
import { checkReplicasOptions } from './config/replicasConfig.js';

export const SERVER_VERSION = '0.1.0';

export interface RunningKeeper {
  url: string;
  port: number;
  /** Every configured ensemble with what Keeper runs against it (tests reach a gateway as ensembles.get(name).gateway). */
  ensembles: Ensembles;
  hub: SocketHub;
  access: AccessControl;
  audit: AuditLog;
  jobs: JobRegistry;
  ops: ZnodeOps;
  metrics: KeeperMetrics;
  /** This Keeper as one of several replicas; null without `"replicas"` in the config. */
  replicas: Replicas | null;
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
  recursiveDelete?: Pick<RecursiveDeleteOptions, 'concurrency' | 'stallMs' | 'hold'>;
  /** The sandbox's own member restarter (npm start, tests): the Upgrades view's restart when no restartCommand is configured. */
  restartMember?: SandboxRestart;
  /** Upgrade timings for tests (a short settle time). */
  upgradeTimings?: Partial<UpgradeTimings>;
}

export async function startKeeper(options: KeeperOptions, extras: StartExtras = {}): Promise<RunningKeeper> {
  const log = extras.logger ?? createLogger();
  installCrashGuards(log);
  const auth = options.auth;
  if (!auth && !isLoopbackHost(options.host)) {
    throw new Error(
      `refusing to listen on ${options.host} without authentication: set KEEPER_ADMIN_TOKEN (and KEEPER_VIEWER_TOKEN), configure users, or bind 127.0.0.1`,
    );
  }
  if (auth) checkAuthOptions(auth, options.ensembles);
  const credentials = auth ? new Credentials({ ...auth, ...(auth.oidc ? { oidcIssuer: auth.oidc.issuer } : {}) }) : null;
  if (credentials && !credentials.configured)
    throw new Error('authentication is on but no admin token, viewer token, user or single sign-on is configured: nobody could sign in');
  // Refused before anything connects: a home ensemble not configured, a root Keeper may not use, a short secret.
  if (options.replicas)
    checkReplicasOptions(
      options.replicas,
      options.ensembles.map((e) => e.name),
    );

  // Sign-ins survive a restart: the sessions are journalled in the state directory, or with
  // replicas kept in the home ensemble (replicas/sharedSessions.ts), the journal then not opened.
  const sessions = await SessionStore.open(options.replicas ? null : (auth?.stateDir ?? null), { ttlMs: auth?.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS }, log);
  const access = new AccessControl(credentials, sessions, new ShareLinkStore(auth?.stateDir ?? null), auth?.allowedOrigins ?? []);
  const revoked = access.endRevoked();
  if (sessions.size > 0 || revoked > 0) log.info({ sessions: sessions.size, ended: revoked }, 'sign-in sessions kept from the previous run');
  const { stdout: auditToStdout, ...rotation } = options.audit ?? {};
  // The trail on stdout too, as JSON lines through the logger (one writer on fd 1), whatever the log level.
  const auditLines = auditToStdout ? log.child({ kind: 'audit' }, { level: 'info' }) : null;
  const audit = await AuditLog.open(
    auth?.stateDir ?? null,
    log,
    { ...DEFAULT_AUDIT_ROTATION, ...rotation },
    auditLines ? (entry) => auditLines.info(entry, 'audit') : null,
  );
  const jobs = new JobRegistry();
  const home = options.replicas ? options.ensembles.find((e) => e.name === options.replicas?.stateEnsemble) : undefined;
  const replicas = options.replicas && home ? new Replicas(options.replicas, home, log, extras.gatewayDefaults) : null;
  if (replicas && credentials) replicas.shareSessions(access);
  // One audit trail: each entry also in the home ensemble's window before the change is answered.
  replicas?.shareAudit(audit);
  const startedAt = Date.now();
  const admin = new Admin({ audit, jobs, log });
  // With sharedPolling the pollers wait for the election (replicas/sharedPolling.ts) rather than start with their ensembles.
  const pollerHeld = replicas !== null && options.replicas?.sharedPolling === true;
  const ensembles = Ensembles.fromConfig(options.ensembles, log, admin, extras.gatewayDefaults, {
    ...extras.ensembleDefaults,
    ...(pollerHeld ? { pollerHeld } : {}),
  });
  replicas?.sharePolling(ensembles);
  // The console session may carry the identity the root's ACL names (replicas.identities): it never reaches the root.
  if (options.replicas) ensembles.get(options.replicas.stateEnsemble).gateway.seal(options.replicas.root);
  for (const ensemble of ensembles) {
    // The Locks view remembers scans' finds and the holds it saw begin, keyed by the ensemble's identity.
    if (auth?.stateDir) {
      const stateDir = auth.stateDir;
      ensemble.locks.useMemory(
        ensemble.identity.whenKnown().then((id) => new LockMemory(ensembleStateDir(stateDir, id), id, ensemble.name, ensemble.locks.maxTracked, log)),
      );
    }
    ensemble.timeline.configure({ stateDir: auth?.stateDir ?? null });
    ensemble.upgrades.configure({
      stateDir: auth?.stateDir ?? null,
      audit: (entry) => audit.append(entry),
      ...(extras.restartMember ? { restartMember: extras.restartMember } : {}),
      ...(extras.upgradeTimings ? { timings: extras.upgradeTimings } : {}),
      // With replicas, workflows live in the home ensemble: one replica runs each, another takes it over when its session ends.
      ...(replicas ? { shared: replicas.upgradesOf(ensemble.name) } : {}),
    });
    ensemble.reconfig.configure({ stateDir: auth?.stateDir ?? null, audit: (entry) => audit.append(entry) });
    // With replicas, lock scans live in the home ensemble too: every replica lists them, another takes a scan over when its replica dies.
    if (replicas) ensemble.lockScans.configure({ shared: replicas.lockScansOf() });
  }
  const ops = new ZnodeOps({ admin, ...(extras.recursiveDelete ? { recursiveDelete: extras.recursiveDelete } : {}) });
  const limits: RateLimits = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits, ...extras.rateLimits };
  const guard = new SignInGuard(signInLimiter(limits), audit, log);
  // Guesses counted across replicas: N replicas allow what one allows, not N times as much.
  if (replicas) guard.limiter.share(replicas.signInFailures(limits.windowMs));
  const allowedHosts = allowedHostNames(options.host, auth?.allowedOrigins ?? [], options.allowedHosts ?? []);

  const app = express();
  app.disable('x-powered-by');
  // Behind a TLS proxy: req.ip from X-Forwarded-For, req.secure from X-Forwarded-Proto (trusted hops only).
  app.set('trust proxy', options.trustProxy ?? false);
  const trust = app.get('trust proxy fn') as TrustFn;

  const server: Server = createServer();
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  const hub = new SocketHub(
    {
      ensembles,
      producers: topicProducers({ jobs }),
      serverVersion: SERVER_VERSION,
      log,
      limits: hubLimitsFromConfig(options.limits),
    },
    socketGate(access, { allowedHosts, guard, addressOf: (request) => clientAddress(request, trust) }),
  );
  hub.attach(server);
  const metrics = new KeeperMetrics(ensembles, hub);
  // Access that ends (revoked or expired share link, sign-out, expired session) closes its sockets at once.
  access.on('ended', (end, reason) => {
    hub.closeWhere(
      (identity) => ('signInId' in end ? identity.signInId === end.signInId : identity.shareLinkId === end.shareLinkId),
      CLOSE_ACCESS_ENDED,
      reason,
    );
  });

  app.use(hostCheck(allowedHosts));
  app.use(malformedUrls(log));
  app.use(securityHeaders(options.webDist));
  // Prometheus has no sign-in session: /metrics has its own door (off, loopback or a token).
  app.use(metricsRoute(options.metrics ?? { access: 'loopback' }, metrics, guard));
  app.use(pageSignIn({ access, audit, guard }));
  if (auth?.oidc) {
    const client = new OidcClient(auth.oidc, log);
    access.oidcName = client.name;
    app.use(oidcRoutes({ access, audit, guard, client, pending: new PendingSignIns(), ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}) }));
    // Discovered now, so the first person to press the button does not wait (a failure is retried then).
    client.configuration().catch(() => undefined);
  }
  app.use(API_PREFIX, sameOriginWrites(access.allowedOrigins));
  app.use(API_PREFIX, requireIdentity(access, guard));
  // Per identity, so one viewer's flood cannot use up an admin's budget behind the same address.
  app.use(API_PREFIX, apiLimiter(limits));
  // A share-link holder reaches only its link's scope: refused before any route reads its input.
  app.use(API_PREFIX, shareScopeGuard);
  // One lookup of /api/ensembles/:name for every route below: an unknown name is answered here.
  app.use(ENSEMBLE_ROUTES_PREFIX, ensembleLookup(ensembles));
  // Every route of the table (shared/src/protocol/http/routeTable.ts), registered from its entry.
  const api = allApiRoutes({
    access,
    audit,
    guard,
    devices: DeviceCookies.open(auth?.stateDir ?? null),
    ensembles,
    ops,
    admin,
    walks: new WalkBudget(walkLimitsFromConfig(options.limits)),
    replicas,
    socketsFor: (id) => hub.countWhere((identity) => identity.shareLinkId === id),
    version: SERVER_VERSION,
    startedAt,
  });
  app.use(api.router);
  app.use(API_PREFIX, unknownApiRoute);
  app.use(API_PREFIX, jsonErrors);
  app.use(API_PREFIX, lastErrorHandler(log));
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
  ensembles.start();

  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}`;
  log.info({ url, ensembles: ensembles.names }, 'keeper is serving');
  replicas?.start({ url, port, version: SERVER_VERSION, startedAt }, { shareLinks: access.shareLinks });

  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    ensembles,
    hub,
    access,
    audit,
    jobs,
    ops,
    metrics,
    replicas,
    close() {
      closing ??= (async () => {
        access.close();
        replicas?.close();
        await jobs.close();
        hub.close();
        ensembles.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await audit.close();
        await sessions.close();
      })();
      return closing;
    },
  };
}
