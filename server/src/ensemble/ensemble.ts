/**
 * One configured ensemble and everything Keeper runs against it: the console's gateway (its one
 * ZooKeeper session) with the mutations that go through it, the ensemble view's member poller
 * and sessions/watches collectors, the Locks view's tracker, scans and lock actions, the
 * Upgrades view's runner. Adapters (HTTP routes, the socket hub, admin operations) look
 * an ensemble up once by name in `Ensembles` and use what it owns; later views add their parts
 * here, so starting and stopping stays one call each.
 */
import type { Logger } from 'pino';
import { LOCK_DEFAULTS, parseSrvr, reconfigEvents, upgradeEvents, type EnsembleSummary, type ReconfigWorkflow, type UpgradeWorkflow } from '@keeper/shared';
import type { MemberModes } from '../zk/readOnlyPolicy.js';
import type { EnsembleConfig } from '../config/types.js';
import { parseConnectionString } from '../config/connectionString.js';
import { ZkGateway } from '../zk/gateway.js';
import { ZkMutations } from '../zk/mutations.js';
import { saslFactory } from '../zk/sasl.js';
import { TlsMaterial } from '../zk/tlsMaterial.js';
import { createMemberMonitor, type MemberMonitor, type MonitorSettings } from '../members/memberMonitor.js';
import { LockTracker } from '../locks/lockTracker.js';
import { LockActions } from '../locks/lockActions.js';
import { LockScans } from '../locks/lockScans.js';
import type { Admin } from '../admin/admin.js';
import { WatchGatherer } from '../locks/watchGatherings.js';
import { UpgradeRunner } from '../upgrades/upgradeRunner.js';
import { ReconfigRunner } from '../reconfig/reconfigRunner.js';
import { EnsembleTimeline } from './eventTimeline.js';
import { ConfigFollower } from './configFollower.js';
import { EnsembleIdentity } from './ensembleIdentity.js';
import type { GatewayDefaults } from '../config/ensembleState.js';

const READ_WRITE_MODES: ReadonlySet<string> = new Set(['leader', 'follower', 'observer', 'standalone']);

export class Ensemble {
  readonly name: string;
  readonly gateway: ZkGateway;
  readonly mutations: ZkMutations;
  /** The ensemble view's poller, collectors and their request counters. */
  readonly monitor: MemberMonitor;
  /** The Locks view: tracked lock directories and the watch gatherings behind their statuses. */
  readonly locks: LockTracker;
  /** The Locks view's scans of this ensemble (one at a time), as admin jobs. */
  readonly lockScans: LockScans;
  /** What an admin may do to this ensemble's locks: delete a contender, clean leaked ones. */
  readonly lockActions: LockActions;
  /** The ensemble's own id (`/keeper/ensemble-id`): what its durable state is keyed by, never its name. */
  readonly identity: EnsembleIdentity;
  /** The Upgrades view: the ensemble's rolling restart or upgrade (configured by startKeeper before start). */
  readonly upgrades: UpgradeRunner;
  /** Resizing: the ensemble's dynamic reconfiguration workflow (configured by startKeeper before start). */
  readonly reconfig: ReconfigRunner;
  /** What changed, as the poller observed it, and the upgrade's steps (configured by startKeeper before start). */
  readonly timeline: EnsembleTimeline;
  /** /zookeeper/config followed: the membership and Keeper's connection string move with it. */
  readonly configFollower: ConfigFollower;
  private readonly stops: (() => void)[] = [];

  constructor(
    readonly config: EnsembleConfig,
    log: Logger,
    admin: Admin,
    gatewayDefaults: GatewayDefaults = {},
    monitorSettings: MonitorSettings = {},
  ) {
    this.name = config.name;
    // One TLS material for the session and the poller: a rotated file is read once for both.
    const tls = config.tls ? new TlsMaterial(config.tls) : null;
    this.gateway = new ZkGateway({
      name: config.name,
      connectionString: config.connectionString,
      ...(config.auth ? { auth: config.auth } : {}),
      ...(tls ? { tls } : {}),
      ...(config.sasl ? { sasl: { settings: config.sasl, factory: saslFactory(config.sasl) } } : {}),
      ...(config.canBeReadOnly !== undefined ? { canBeReadOnly: config.canBeReadOnly } : {}),
      memberIdOf: (address) => this.memberIdOf(address),
      memberModes: () => this.memberModes(),
      sessionTimeoutMs: config.sessionTimeoutMs ?? gatewayDefaults.sessionTimeoutMs ?? 30_000,
      ...(gatewayDefaults.requestDeadlineMs ? { requestDeadlineMs: gatewayDefaults.requestDeadlineMs } : {}),
      ...(gatewayDefaults.maxInFlight ? { maxInFlight: gatewayDefaults.maxInFlight } : {}),
      logger: log,
    });
    const parsed = parseConnectionString(config.connectionString);
    this.mutations = new ZkMutations(this.gateway, {
      chroot: parsed.ok ? parsed.value.chroot : null,
      ...(config.juteMaxBuffer !== undefined ? { juteMaxBuffer: config.juteMaxBuffer } : {}),
    });
    this.monitor = createMemberMonitor(config, this.gateway, monitorSettings, log, tls);
    const gatherer = new WatchGatherer({
      members: this.monitor.poller,
      transport: this.monitor.transport,
      sessions: this.monitor.sessions,
      intervalMs: config.locks?.gatherIntervalMs ?? LOCK_DEFAULTS.gatherIntervalMs,
      // Only what the Locks view reads: watches in tracked lock directories, and herds.
      keep: (path, watchers) => watchers >= (config.locks?.herdMinWatchers ?? LOCK_DEFAULTS.herdMinWatchers) || this.locks.coversWatch(path),
      log,
    });
    // The Locks view's wchp, when it is newer than the Watches view's: what a request herd watches.
    this.monitor.sessions.addWatchSource(() => {
      const last = gatherer.gatherings.at(-1);
      return last
        ? { gatheredAt: last.askedAt, complete: last.complete, source: 'locks', paths: [...last.watches].map(([path, sessions]) => ({ path, sessions })) }
        : null;
    });
    this.locks = new LockTracker({ ensemble: config.name, gateway: this.gateway, gatherer, ...(config.locks ? { config: config.locks } : {}), log });
    this.lockScans = new LockScans(admin, this, log);
    this.lockActions = new LockActions(admin, this);
    this.identity = new EnsembleIdentity(this.gateway, this.mutations, log.child({ ensemble: config.name }));
    this.upgrades = new UpgradeRunner(config, this.monitor.poller, this.gateway, this.mutations, this.identity, log);
    this.monitor.poller.addAlertSource(() => this.upgrades.alert());
    this.reconfig = new ReconfigRunner(config, this.monitor.poller, this.gateway, this.mutations, this.identity, log);
    // One workflow at a time on an ensemble: an upgrade and a resize refuse each other (and share the lock across Keepers).
    this.reconfig.blockWhile(() => {
      const wf = this.upgrades.current();
      return wf && !['done', 'doneWithExceptions', 'failed', 'aborted'].includes(wf.state)
        ? `upgrade ${wf.id} of ${this.name} is ${wf.state}: an upgrade and a resize never run together`
        : null;
    });
    this.upgrades.blockWhile(() => this.reconfig.inProgress());
    this.timeline = new EnsembleTimeline({ ensemble: config.name, identity: this.identity, log });
    this.stops.push(this.monitor.poller.subscribe((health) => this.timeline.observe(health)));
    // The upgrade's steps, from each change its runner commits (no change to the runner itself). A
    // workflow first seen mid-way (resumed after a restart) is narrated from there on, not again.
    let lastWorkflow: UpgradeWorkflow | null = null;
    this.stops.push(
      this.upgrades.onChange((next) => {
        if (next && (lastWorkflow !== null || next.state === 'planned')) this.timeline.add(upgradeEvents(lastWorkflow, next, Date.now()));
        lastWorkflow = next;
        this.monitor.poller.refreshAlerts();
      }),
    );
    let lastResize: ReconfigWorkflow | null = null;
    this.stops.push(
      this.reconfig.onChange((next) => {
        if (next && (lastResize !== null || next.state === 'planned')) this.timeline.add(reconfigEvents(lastResize, next, Date.now()));
        lastResize = next;
      }),
    );
    this.configFollower = new ConfigFollower({
      gateway: this.gateway,
      refreshMembership: () => this.monitor.poller.refreshMembershipSoon(),
      timeline: (events) => this.timeline.add(events),
      log: log.child({ ensemble: config.name }),
    });
  }

  /**
   * What each member serves now, from srvr's Mode (one word per member, counted as polls): asked
   * by the gateway only while its session is disconnected or read-only (zk/readOnlyPolicy.ts).
   */
  private async memberModes(): Promise<MemberModes> {
    const targets = this.monitor.poller.targets();
    const modes = await Promise.all(
      targets.map(async (t) => {
        const answer = await this.monitor.transport.fourLetterWord(t, 'srvr', 'poll');
        return { address: t.address, mode: answer.ok ? (parseSrvr(answer.text)?.mode ?? null) : null };
      }),
    );
    return {
      readWrite: modes.filter((m) => m.mode !== null && READ_WRITE_MODES.has(m.mode)).map((m) => m.address),
      readOnly: modes.filter((m) => m.mode === 'read-only').map((m) => m.address),
    };
  }

  /** The server id of the member at host:port, from the membership the poller learned; null when unknown. */
  private memberIdOf(address: string): number | null {
    const targets = this.monitor?.poller.targets() ?? [];
    const exact = targets.find((t) => t.address === address);
    if (exact) return exact.id;
    const port = Number(address.slice(address.lastIndexOf(':') + 1));
    const onPort = targets.filter((t) => t.clientPort === port);
    return onPort.length === 1 ? (onPort[0]?.id ?? null) : null;
  }

  get poller(): MemberMonitor['poller'] {
    return this.monitor.poller;
  }

  get sessions(): MemberMonitor['sessions'] {
    return this.monitor.sessions;
  }

  get watches(): MemberMonitor['watches'] {
    return this.monitor.watches;
  }

  /** What the ensemble list and the socket's welcome show: never the connection string's credentials. */
  summary(): EnsembleSummary {
    return { name: this.name, connectionString: this.gateway.connectionString, session: this.gateway.session };
  }

  start(): void {
    this.gateway.start();
    this.monitor.start();
    this.locks.start();
    this.upgrades.start();
    this.reconfig.start();
    this.timeline.start();
    this.configFollower.start();
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.configFollower.close();
    this.timeline.close();
    this.identity.close();
    this.upgrades.close();
    this.reconfig.close();
    this.lockScans.close();
    this.locks.close();
    this.monitor.close();
    this.gateway.close();
  }
}
