/**
 * This Keeper as one of several replicas (docs/replicas.md): its own ZooKeeper session to the
 * home ensemble (the state session: it alone carries the replicas' identity, so browsing the home
 * ensemble through the console session never reaches Keeper's state), the store that writes under
 * the root, and the registry of replicas. Absent without `"replicas"` in the config.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { ReplicasAnswer } from '@keeper/shared';
import type { EnsembleConfig } from '../config/types.js';
import { parseConnectionString } from '../config/connectionString.js';
import type { GatewayDefaults } from '../ensemble/ensemble.js';
import { ZkGateway } from '../zk/gateway.js';
import { ZkMutations } from '../zk/mutations.js';
import { saslFactory } from '../zk/sasl.js';
import { TlsMaterial } from '../zk/tlsMaterial.js';
import { replicaAcl, replicaCredential, type ReplicasOptions } from './replicaConfig.js';
import { ReplicaRegistry } from './replicaRegistry.js';
import { ReplicaStore } from './replicaStore.js';
import { SharedShareLinks } from './sharedShareLinks.js';
import type { ShareLinkStore } from '../auth/shareLinks.js';
import type { AccessControl } from '../auth/accessControl.js';
import { SharedSessions } from './sharedSessions.js';
import { SharedPolling } from './sharedPolling.js';
import type { PollingTarget } from './polledEnsemble.js';
import { SharedUpgrades } from './sharedUpgrades.js';
import { SharedLockScans } from './sharedLockScans.js';
import { SharedAudit } from './sharedAudit.js';
import { SharedSignInFailures } from './sharedSignInFailures.js';
import type { AuditLog } from '../audit/auditLog.js';

export const REPLICAS_NOTE = 'A replica killed without closing stays listed until ZooKeeper ends its session, at most its session timeout later.';

export interface ReplicaSelf {
  url: string;
  port: number;
  version: string;
  startedAt: number;
}

export class Replicas {
  readonly gateway: ZkGateway;
  readonly store: ReplicaStore;
  private registry: ReplicaRegistry | null = null;
  private sharedLinks: SharedShareLinks | null = null;
  private sharedSessions: SharedSessions | null = null;
  private pollingTargets: PollingTarget[] = [];
  /** With `sharedPolling`: the election and what each watched ensemble shows (null without it). */
  polling: SharedPolling | null = null;
  private readonly stateSessionTimeoutMs: number;
  private sharedAudit: SharedAudit | null = null;
  /** Random per process: a restarted replica is a new one (its old znode goes with its old session). */
  readonly id = randomBytes(6).toString('hex');
  /** `<host>:<port>` once it serves (start). */
  private name = `${hostname()}:?`;

  constructor(
    readonly options: ReplicasOptions,
    home: EnsembleConfig,
    private readonly log: Logger,
    gatewayDefaults: GatewayDefaults = {},
  ) {
    this.stateSessionTimeoutMs = home.sessionTimeoutMs ?? gatewayDefaults.sessionTimeoutMs ?? 30_000;
    this.gateway = new ZkGateway({
      name: `${home.name} (replica state)`,
      connectionString: home.connectionString,
      auth: [...(home.auth ?? []), replicaCredential(options.secret)],
      // The home ensemble's TLS and SASL as configured: x509 and SASL identities then join the ACL (docs/replicas.md).
      ...(home.tls ? { tls: new TlsMaterial(home.tls) } : {}),
      ...(home.sasl ? { sasl: { settings: home.sasl, factory: saslFactory(home.sasl) } } : {}),
      // Shared state is written and read on a member with quorum, never a read-only one.
      canBeReadOnly: false,
      sessionTimeoutMs: this.stateSessionTimeoutMs,
      ...(gatewayDefaults.requestDeadlineMs ? { requestDeadlineMs: gatewayDefaults.requestDeadlineMs } : {}),
      maxInFlight: 16,
      maxQueued: 1_000,
      logger: log,
    });
    const parsed = parseConnectionString(home.connectionString);
    const mutations = new ZkMutations(this.gateway, {
      chroot: parsed.ok ? parsed.value.chroot : null,
      ...(home.juteMaxBuffer !== undefined ? { juteMaxBuffer: home.juteMaxBuffer } : {}),
    });
    this.store = new ReplicaStore({ gateway: this.gateway, mutations, root: options.root, acl: replicaAcl(options.secret), log });
  }

  /**
   * Sign-in sessions live in the home ensemble from now on (before the server takes a sign-in):
   * the access control's store becomes this replica's cache of them.
   */
  shareSessions(access: AccessControl): void {
    this.sharedSessions = new SharedSessions({
      store: this.store,
      sessions: access.sessions,
      secret: this.options.secret,
      ...(this.options.maxSessions !== undefined ? { maxSessions: this.options.maxSessions } : {}),
      onEnded: (id, reason) => access.endedElsewhere(id, reason),
      log: this.log,
    });
    access.sessions.shareWith(this.sharedSessions);
  }

  /** With `sharedPolling`: these ensembles (their pollers held until the election says who polls) are polled by one replica for all. */
  sharePolling(ensembles: Iterable<PollingTarget>): void {
    if (this.options.sharedPolling) this.pollingTargets = [...ensembles];
  }

  /** Every replica's audit entries in one bounded window of the home ensemble; this replica's file stays its own record. */
  shareAudit(audit: AuditLog): void {
    this.sharedAudit = new SharedAudit(this.store, () => ({ replica: this.id, name: this.name }), this.log, this.options.auditWindow);
    audit.share(this.sharedAudit);
  }

  /** Failed sign-ins counted in the home ensemble too, per window of `windowMs` (the limiter's). */
  signInFailures(windowMs: number): SharedSignInFailures {
    return new SharedSignInFailures(this.store, this.options.secret, windowMs, this.log);
  }

  /** An ensemble's upgrade workflows, kept in the home ensemble and run by one replica at a time (sharedUpgrades.ts). */
  upgradesOf(): SharedUpgrades {
    return new SharedUpgrades(this.store, () => ({ replica: this.id, name: this.name }), this.log);
  }

  /** An ensemble's lock scans, kept in the home ensemble and run by one replica at a time (sharedLockScans.ts). */
  lockScansOf(): SharedLockScans {
    return new SharedLockScans(this.store, () => ({ replica: this.id, name: this.name }), this.log);
  }

  /** Opens the state session, registers this replica once it serves at `self.url`, and shares its share links. */
  start(self: ReplicaSelf, shared: { shareLinks: ShareLinkStore }): void {
    const name = `${hostname()}:${self.port}`;
    this.name = name;
    this.registry = new ReplicaRegistry(
      this.store,
      { id: this.id, name, url: self.url, version: self.version, startedAt: self.startedAt, pid: process.pid },
      this.log,
    );
    this.sharedLinks = new SharedShareLinks(this.store, shared.shareLinks, this.log);
    if (this.options.sharedPolling)
      this.polling = new SharedPolling({
        store: this.store,
        self: { id: this.id, name },
        ensembles: this.pollingTargets,
        log: this.log,
        fallbackAfterMs: this.stateSessionTimeoutMs,
      });
    this.gateway.start();
    this.registry.start();
    void this.sharedLinks.start();
    void this.sharedSessions?.start();
    this.polling?.start();
  }

  /** The registered session (hex) once this replica is listed; null before. */
  get registeredSession(): string | null {
    return this.registry?.registeredSession ?? null;
  }

  /** Why this replica is not in the registry (null when it is): the answer refuses until then. */
  whyNotRegistered(): string | null {
    return this.registry ? this.registry.whyNotRegistered() : 'not started';
  }

  async answer(): Promise<ReplicasAnswer> {
    const replicas = this.registry ? await this.registry.list() : [];
    return { enabled: true, stateEnsemble: this.options.stateEnsemble, readAt: Date.now(), note: REPLICAS_NOTE, replicas };
  }

  close(): void {
    this.registry?.close();
    this.sharedLinks?.close();
    this.sharedSessions?.close();
    this.polling?.close();
    this.sharedAudit?.close();
    this.store.close();
    // Closing the session deletes this replica's znode at once: the others stop listing it.
    this.gateway.close();
  }
}
