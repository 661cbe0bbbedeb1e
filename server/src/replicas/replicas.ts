/**
 * This Keeper as one of several replicas (docs/operating/replicas.md): its own ZooKeeper session to the
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
import type { GatewayDefaults } from '../config/ensembleState.js';
import { ZkGateway } from '../zk/gateway.js';
import { ZkMutations } from '../zk/mutations.js';
import { saslFactory } from '../zk/sasl.js';
import { TlsMaterial } from '../zk/tlsMaterial.js';
import type { ReplicasOptions } from '../config/replicasConfig.js';
import { replicaAcl, replicaCredential } from './replicaAcl.js';
import { identitiesNotPresented } from './rootAcl.js';
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
import { PeerHealth, selfHealth } from './peerHealth.js';
import { candidateOrder } from './pollingElection.js';

export const REPLICAS_NOTE = 'A replica killed without closing stays listed until ZooKeeper ends its session, at most its session timeout later.';

/** One reading of the registry serves every admin asking within this time after it (the panel refreshes every 2 s). */
const ANSWER_REUSE_MS = 500;

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
  /** Each watched ensemble's shared upgrades, by its configured name (who runs what, for the answer). */
  private readonly upgrades = new Map<string, SharedUpgrades>();
  private readonly peers = new PeerHealth();
  private lastAnswer: { readAt: number | null; answer: Promise<ReplicasAnswer> } | null = null;
  /** The other replicas' URLs at the last reading: asked before the next one reads the registry. */
  private knownPeers: string[] = [];
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
      // The home ensemble's TLS and SASL as configured: x509 and SASL identities then join the ACL (docs/operating/replicas.md).
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
    this.store = new ReplicaStore({
      gateway: this.gateway,
      mutations,
      root: options.root,
      acl: replicaAcl(options.secret, options.identities),
      replicaId: this.id,
      log,
    });
    const identities = options.identities ?? [];
    if (identities.length > 0) {
      // Once per session, when ZooKeeper has said who it sees (whoami): a listed identity this replica does not present is logged.
      let checked: string | null = null;
      this.gateway.on('session', (session) => {
        const seen = session.connection?.identity;
        if (!seen || session.sessionId === null || session.sessionId === checked) return;
        checked = session.sessionId;
        for (const note of identitiesNotPresented(identities, seen)) log.warn({ replica: this.id }, `replicas: ${note}`);
      });
    }
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
  upgradesOf(ensemble: string): SharedUpgrades {
    const upgrades = new SharedUpgrades(this.store, () => ({ replica: this.id, name: this.name }), this.log);
    this.upgrades.set(ensemble, upgrades);
    return upgrades;
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

  /**
   * The registry read now, each replica with its health (asked of it, in parallel, each within
   * PROBE_DEADLINE_MS), whether it is the elected poller (one listing of the candidates) and the
   * upgrades it runs (one read of each ensemble's owner znode).
   */
  answer(): Promise<ReplicasAnswer> {
    // Every admin looking at the panel (it refreshes every 2 s) shares one reading while it is
    // under way and for ANSWER_REUSE_MS after the registry was read: a shared answer is never older.
    const now = Date.now();
    const last = this.lastAnswer;
    if (last && (last.readAt === null || now - last.readAt < ANSWER_REUSE_MS)) return last.answer;
    const answer = this.readAnswer();
    const entry: { readAt: number | null; answer: Promise<ReplicasAnswer> } = { readAt: null, answer };
    this.lastAnswer = entry;
    answer.then(
      (a) => {
        entry.readAt = a.readAt;
      },
      () => {
        if (this.lastAnswer === entry) this.lastAnswer = null;
      },
    );
    return answer;
  }

  private async readAnswer(): Promise<ReplicasAnswer> {
    // The peers known from the last reading are asked first (each within PROBE_DEADLINE_MS), the
    // registry read last: its time dates the answer (the panel shows the list "as of" it), so a
    // peer slow to answer does not age the list. Each health carries its own checkedAt.
    const asked = new Map(this.knownPeers.map((url) => [url, this.peers.of(url)] as const));
    await Promise.all(asked.values());
    const readAt = Date.now();
    const registered = this.registry ? await this.registry.list() : [];
    this.knownPeers = registered.filter((r) => !r.self).map((r) => r.url);
    this.peers.keepOnly(this.knownPeers);
    const [poller, runners, healths] = await Promise.all([
      this.options.sharedPolling ? this.electedPoller() : Promise.resolve(null),
      Promise.all(
        [...this.upgrades].map(async ([ensemble, upgrades]) => {
          const runner = await upgrades.runner().catch(() => null);
          return runner ? { ensemble, ...runner } : null;
        }),
      ),
      Promise.all(registered.map((r) => (r.self ? Promise.resolve(selfHealth(Date.now())) : (asked.get(r.url) ?? this.peers.of(r.url))))),
    ]);
    const replicas = registered.map((r, i) => {
      const health = healths[i]!;
      // Killed or cut off: ZooKeeper still names it the owner until its session ends, but it is not known to run the upgrade since it last answered.
      const unconfirmedSince = health.state === 'unreachable' ? (health.lastAnsweredAt ?? r.registeredAt) : null;
      return {
        ...r,
        health,
        poller: poller === r.id,
        upgrades: runners.flatMap((u) =>
          u && u.replica === r.id
            ? [{ ensemble: u.ensemble, upgradeId: u.upgradeId, since: u.since, ...(unconfirmedSince !== null ? { unconfirmedSince } : {}) }]
            : [],
        ),
      };
    });
    return {
      enabled: true,
      stateEnsemble: this.options.stateEnsemble,
      sharedPolling: this.options.sharedPolling === true,
      readAt,
      note: REPLICAS_NOTE,
      replicas,
    };
  }

  /** The replica whose candidate is lowest: the one polling for all. */
  private async electedPoller(): Promise<string | null> {
    const names = await this.store.children(this.store.path('polling')).catch(() => []);
    return candidateOrder(names)[0]?.replica ?? null;
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
