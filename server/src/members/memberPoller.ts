/**
 * The member poller: ONE per ensemble, whatever the number of browsers, implementing the
 * hub's HealthFeed. Every `intervalMs` it asks each due member how it is (AdminServer JSON,
 * else srvr + mntr), classifies the answers, computes the quorum and the alerts, keeps
 * ~15 minutes of history and tells its subscribers.
 *
 * Rules it keeps:
 *  - every request has a deadline; nothing a member answers (or fails to) throws out of it;
 *  - a round never overlaps the previous one (the next is scheduled when one ends);
 *  - a member that is down or unreachable is retried with exponential back-off and jitter,
 *    capped short (~5 s by default, `maxBackoffMs`) so one that answers again is seen at
 *    once; it shows its last state, when it was tried (`polledAt`) and when it will be next;
 *  - an AdminServer that does not answer is left alone for a while instead of doubling
 *    every poll with a failed HTTP call before the 4lw fallback.
 *
 * With the replicas' sharedPolling, a replica that does not poll is stopped and shows the rounds
 * another replica published (`adopt`), and says when they stop arriving (`markLate`).
 */
import type { Logger } from 'pino';
import {
  assessLag,
  classifyProbe,
  computeAlerts,
  EMPTY_LAG_MEMORY,
  EMPTY_METRICS,
  metricsFrom,
  parseConf,
  ratesBetween,
  roundRate,
  blockedWord,
  isNotServing,
  summarizeQuorum,
  creditRefusingMembers,
  ownConfFromAdmin,
  ownConfFromText,
  SERVING_STATES,
  type Alert,
  type EnsembleHealth,
  type HistoryPoint,
  type LagMemory,
  type MemberHistory,
  type MemberStatus,
  type MemberState,
  type MemberMetrics,
  type CounterReading,
  type ServerSpec,
} from '@keeper/shared';
import type { HealthFeed } from './healthFeed.js';
import { DEFAULT_MEMBER_BACKOFF_MAX_MS, isDue, retryDelay } from './backoff.js';
import { HistoryRing } from './historyRing.js';
import { probeMember } from './memberProbe.js';
import { askMember } from './memberAsk.js';
import { hostMatcher, type Resolve } from './hostAliases.js';
import { hostNames, mergeMembership, type MemberTarget } from './memberTargets.js';
import type { MemberTransport } from './transport.js';

export interface PollerOptions {
  ensemble: string;
  targets: MemberTarget[];
  transport: MemberTransport;
  intervalMs?: number;
  /** Back-off cap for members that are down or unreachable (default DEFAULT_MEMBER_BACKOFF_MAX_MS). */
  maxBackoffMs?: number;
  historyMs?: number;
  membershipIntervalMs?: number;
  /** Reads /zookeeper/config through the console's session; null when it cannot. */
  readClusterConfig?: () => Promise<string | null>;
  /** Host name resolution for matching the membership to the targets (tests replace it). */
  resolveHost?: Resolve;
  /** host:port of the member the console's session is on, while that session is confirmed alive: evidence for a member at maxClientCnxns. */
  consoleMember?: () => string | null;
  /** Connections per client host on each member (member -> host -> count), from a recent gathering of sessions; null when none. */
  clientConnections?: () => ReadonlyMap<string, ReadonlyMap<string, number>> | null;
  /** Transactions a member may trail the leader's previous zxid by (see assessLag). */
  lagThreshold?: number;
  log: Logger;
}

interface Slot {
  target: MemberTarget;
  status: MemberStatus | null;
  blocked: string[];
  failures: number;
  nextPollAt: number;
  /** Before this time the AdminServer is not tried (it did not answer usefully). */
  adminRetryAt: number;
  lastServingAt: number | null;
  /** The last serving state it answered with: the role a member at maxClientCnxns keeps. */
  lastServingState: MemberState | null;
  /** This poll its four-letter-word connection was closed at once (see connectionLimit.ts). */
  closedAtOnce: boolean;
  /** From its `conf`, read now and then; null until read. */
  maxClientCnxns: number | null;
  /** Its own serverId, from the same `conf`; null until read. */
  ownId: number | null;
  /** Times its `conf` was asked; after ID_ASKS, asked again for its id only at the minute's refresh. */
  confAsks: number;
  /** zk_packets_received/sent at the previous answer, for packets per second. */
  packets: CounterReading | null;
  /** Named by the ensemble's membership at some read: only such a member can be removed from it. */
  inMembership: boolean;
  /** Named once, no longer: a reconfig removed it. Kept (apart from the members) while it still answers. */
  removed: boolean;
}

type Listener = (health: EnsembleHealth, appended: MemberHistory) => void;

const ADMIN_RECHECK_MS = 5 * 60_000;
/** The briskest cadence anyone may ask for. */
const BRISK_FLOOR_MS = 1_000;
const MEMBERSHIP_ATTEMPTS = 2;
/** `conf` asks between refreshes for a member whose id is unknown (its own serverId). */
const ID_ASKS = 3;

export class MemberPoller implements HealthFeed {
  readonly ensemble: string;
  private readonly baseIntervalMs: number;
  /** A faster cadence someone asked for (an upgrade under way), or null. */
  private briskMs: number | null = null;
  /** Rounds completed (tests compare request counts per round). */
  rounds = 0;
  private readonly slots = new Map<string, Slot>();
  private readonly listeners = new Set<Listener>();
  private readonly ring: HistoryRing;
  private readonly maxBackoffMs: number;
  private readonly membershipIntervalMs: number;
  private latest: EnsembleHealth | null = null;
  private lagMemory: LagMemory = EMPTY_LAG_MEMORY;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private stopped = true;
  private membershipDueAt = 0;
  private limitsDueAt = 0;
  /** The membership as last read (server ids, roles), for the ids members tell of themselves. */
  private servers: ServerSpec[] = [];
  private firstRound: { promise: Promise<void>; resolve: () => void };
  /** Alerts other parts raise on the ensemble (a paused upgrade), shown with the poller's own. */
  private readonly alertSources: (() => Alert | null)[] = [];
  /** The shown health's alerts that no source raised (the round's own, or the adopted round's). */
  private roundAlerts: Alert[] = [];
  private readonly briskListeners = new Set<(brisk: boolean) => void>();
  /** Rounds another replica polled and this one showed (sharedPolling). */
  adopted = 0;

  constructor(private readonly options: PollerOptions) {
    this.ensemble = options.ensemble;
    this.baseIntervalMs = options.intervalMs ?? 5_000;
    this.maxBackoffMs = options.maxBackoffMs ?? DEFAULT_MEMBER_BACKOFF_MAX_MS;
    this.membershipIntervalMs = options.membershipIntervalMs ?? 60_000;
    const historyMs = options.historyMs ?? 15 * 60_000;
    // Sized for brisk rounds too, so a rolling restart does not push the earlier history out.
    this.ring = new HistoryRing(historyMs, Math.ceil(historyMs / Math.max(250, Math.min(this.baseIntervalMs, BRISK_FLOOR_MS))) + 10);
    for (const target of options.targets) this.addSlot(target);
    let resolve = () => {};
    const promise = new Promise<void>((r) => (resolve = r));
    this.firstRound = { promise, resolve };
  }

  /** The cadence now: the configured one, or a brisker one while it is asked for. */
  get intervalMs(): number {
    return this.briskMs === null ? this.baseIntervalMs : Math.min(this.baseIntervalMs, this.briskMs);
  }

  /**
   * While an upgrade is under way, each phase (down, back, synced) is seen a round later than it
   * happened: at 5 s a 1.3 s restart costs about 4 s a phase. A brisk cadence (at least 1 s;
   * null ends it) makes the next round come sooner; srvr and mntr are cheap, and N browsers
   * still share the one poller.
   */
  setBrisk(intervalMs: number | null): void {
    const next = intervalMs === null ? null : Math.max(BRISK_FLOOR_MS, intervalMs);
    if (next === this.briskMs) return;
    const was = this.briskMs !== null;
    this.briskMs = next;
    if (was !== (next !== null)) for (const listener of this.briskListeners) listener(next !== null);
    // A round far off comes sooner; one under way schedules the next at the new cadence itself.
    if (next !== null && !this.running && !this.stopped && this.timer) {
      clearTimeout(this.timer);
      this.schedule(0);
    }
  }

  addAlertSource(source: () => Alert | null): void {
    this.alertSources.push(source);
  }

  /**
   * A source's alert changed (an upgrade paused or resumed): the shown health says so now, not a
   * round later, so the members view and the upgrade never disagree for a poll interval.
   */
  refreshAlerts(): void {
    if (!this.latest) return;
    const alerts = this.withSourced(this.roundAlerts);
    if (JSON.stringify(alerts) === JSON.stringify(this.latest.alerts)) return;
    this.tell({ ...this.latest, alerts }, {});
  }

  /** `base`, then what the sources raise that `base` does not already hold. */
  private withSourced(base: Alert[]): Alert[] {
    const ids = new Set(base.map((a) => a.id));
    return [...base, ...this.alertSources.flatMap((source) => source() ?? []).filter((a) => !ids.has(a.id))];
  }

  /** Whether someone asked for a brisk cadence (an upgrade under way on this replica). */
  get brisk(): boolean {
    return this.briskMs !== null;
  }

  /** Told when a brisk cadence starts or ends (sharedPolling: a replica running an upgrade polls itself); returns unsubscribe. */
  onBriskChange(listener: (brisk: boolean) => void): () => void {
    this.briskListeners.add(listener);
    return () => this.briskListeners.delete(listener);
  }

  /** Whether this poller runs rounds of its own now. */
  get polling(): boolean {
    return !this.stopped;
  }

  // ---- HealthFeed ----

  current(): EnsembleHealth | null {
    return this.latest;
  }

  history(): MemberHistory {
    return this.ring.snapshot();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- lifecycle ----

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.firstRound.resolve();
  }

  /** Resolves after the first round (or the timeout), with whatever is current. */
  async ready(timeoutMs: number): Promise<EnsembleHealth | null> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.firstRound.promise, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    return this.latest;
  }

  /** The members as currently known (the collectors ask the same list). */
  targets(): MemberTarget[] {
    return [...this.slots.values()].map((s) => s.target);
  }

  /** Per member: the last status (null before its first poll). */
  statuses(): MemberStatus[] {
    return [...this.slots.values()].map((s) => s.status).filter((s): s is MemberStatus => s !== null);
  }

  requestCounts() {
    return this.options.transport.counters.snapshot();
  }

  // ---- rounds ----

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    // One chain of rounds: a stop and a start while a round ran must not leave two.
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.round(), delayMs);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    const started = Date.now();
    try {
      const due = [...this.slots.values()].filter((s) => isDue(s.nextPollAt, started, this.intervalMs));
      await Promise.all(due.map((slot) => this.pollSlot(slot, started)));
      // After the probes, so `conf` (when /zookeeper/config is unreadable) goes to a member known to serve.
      if (started >= this.membershipDueAt) {
        await this.refreshMembership();
        // A member the membership just revealed (a reconfig added it) is polled now, not a round later.
        const revealed = [...this.slots.values()].filter((slot) => slot.status === null);
        await Promise.all(revealed.map((slot) => this.pollSlot(slot, started)));
      }
      if (started >= this.limitsDueAt) await this.refreshLimits();
      else await this.learnMissingIds();
      this.publish(started);
    } catch (error) {
      this.options.log.warn({ ensemble: this.ensemble, err: error }, 'member poll round failed');
    } finally {
      this.running = false;
      this.rounds++;
      this.firstRound.resolve();
      this.schedule(Math.max(0, this.intervalMs - (Date.now() - started)));
    }
  }

  private async pollSlot(slot: Slot, roundStart: number): Promise<void> {
    const { transport } = this.options;
    const sentAt = Date.now();
    const { probe, adminWorked, closedAtOnce } = await probeMember(transport, slot.target, roundStart >= slot.adminRetryAt);
    const at = Date.now();
    if (adminWorked === false) slot.adminRetryAt = at + ADMIN_RECHECK_MS;
    const { state, detail } = classifyProbe(probe, transport.deadlineMs);
    const answered = probe.kind === 'answered';
    const serving = SERVING_STATES.includes(state);
    if (serving) slot.lastServingAt = at;
    if (serving) slot.lastServingState = state;
    slot.closedAtOnce = closedAtOnce;
    slot.blocked = answered ? probe.blocked : [];
    if (state === 'down' || state === 'unreachable') {
      slot.failures++;
      // Counted from the round's start, the clock the next rounds are scheduled on.
      // While brisk (a member restarting on purpose), its return is looked for at twice the cadence at most.
      const maxDelayMs = this.briskMs === null ? this.maxBackoffMs : Math.min(this.maxBackoffMs, 2 * this.intervalMs);
      slot.nextPollAt = roundStart + retryDelay(slot.failures, { intervalMs: this.intervalMs, maxDelayMs });
    } else {
      slot.failures = 0;
      slot.nextPollAt = 0;
    }
    const t = slot.target;
    slot.status = {
      id: t.id,
      host: t.host,
      clientPort: t.clientPort,
      adminPort: t.adminPort,
      address: t.address,
      state,
      configuredRole: t.configuredRole,
      detail,
      source: answered ? probe.source : null,
      metrics: answered ? this.withPacketRates(slot, metricsFrom(probe.srvr, probe.mntr), at) : EMPTY_METRICS,
      // When this member was last checked: the card's "checked 4 s ago" (it keeps the time of
      // the last try while a backed-off member waits for its next one).
      polledAt: at,
      probeSentAt: sentAt,
      lastServingAt: slot.lastServingAt,
      nextPollAt: slot.nextPollAt === 0 ? null : slot.nextPollAt,
    };
  }

  /** Packets per second since the member's previous answer (the counters are cumulative). */
  private withPacketRates(slot: Slot, metrics: MemberMetrics, at: number): MemberMetrics {
    const reading: CounterReading = { member: slot.target.address, received: metrics.packetsReceived, sent: metrics.packetsSent, at };
    const rates = ratesBetween(slot.packets ?? undefined, reading);
    slot.packets = reading;
    return { ...metrics, packetsReceivedPerSecond: roundRate(rates.receivedPerSecond), packetsSentPerSecond: roundRate(rates.sentPerSecond) };
  }

  /** Members that closed Keeper's connection at once but something else vouches for count as serving (connectionLimit.ts). */
  private creditRefusals(): void {
    const slots = [...this.slots.values()].filter((s): s is Slot & { status: MemberStatus } => s.status !== null);
    const credited = creditRefusingMembers({
      members: slots.map((s) => ({ ...s.status, id: s.target.id, configuredRole: s.target.configuredRole })),
      facts: new Map(
        slots.map((s) => [s.target.address, { closedAtOnce: s.closedAtOnce, lastServingState: s.lastServingState, maxClientCnxns: this.limitOf(s) }]),
      ),
      consoleMember: this.options.consoleMember?.() ?? null,
    });
    slots.forEach((slot, i) => {
      const status = credited[i]!;
      if (!status.connectionLimit) return;
      // Serving: polled every round like any serving member, so its recovery is seen at once.
      slot.failures = 0;
      slot.nextPollAt = 0;
      slot.lastServingAt = status.lastServingAt;
      slot.status = { ...status, nextPollAt: null };
    });
  }

  /** Its own maxClientCnxns, else the one every member that told agrees on. */
  private limitOf(slot: Slot): number | null {
    if (slot.maxClientCnxns !== null) return slot.maxClientCnxns;
    const known = new Set([...this.slots.values()].map((s) => s.maxClientCnxns).filter((n) => n !== null));
    return known.size === 1 ? [...known][0]! : null;
  }

  private publish(started: number): void {
    this.creditRefusals();
    const appended: MemberHistory = {};
    const members: MemberStatus[] = [];
    const removed: MemberStatus[] = [];
    for (const [address, slot] of [...this.slots]) {
      if (!slot.status) continue;
      if (slot.removed) {
        // Out of the ensemble: listed apart while it answers at all, forgotten once it does not.
        if (slot.status.state === 'down' || slot.status.state === 'unreachable') {
          this.slots.delete(address);
          continue;
        }
        slot.status = { ...slot.status, id: slot.target.id, configuredRole: null, removed: true };
        removed.push(slot.status);
        continue;
      }
      // Keep the target's latest id/role (membership may have arrived after the poll).
      const { removed: _wasRemoved, ...current } = slot.status;
      const status: MemberStatus = { ...current, id: slot.target.id, configuredRole: slot.target.configuredRole };
      slot.status = status;
      members.push(status);
      const polledNow = status.polledAt >= started;
      const point: HistoryPoint = {
        at: started,
        latencyAvg: polledNow ? status.metrics.latencyAvg : null,
        latencyMax: polledNow ? status.metrics.latencyMax : null,
        outstanding: polledNow ? status.metrics.outstanding : null,
        connections: polledNow ? status.metrics.connections : null,
        znodeCount: polledNow ? status.metrics.znodeCount : null,
        serving: polledNow && SERVING_STATES.includes(status.state),
        packetsReceivedPerSecond: polledNow ? (status.metrics.packetsReceivedPerSecond ?? null) : null,
      };
      this.ring.add(status.address, point);
      appended[status.address] = [point];
    }
    this.ring.retain(new Set(this.slots.keys()));
    const quorum = summarizeQuorum(members);
    const lag = assessLag(members, this.lagMemory, this.options.lagThreshold ?? 0);
    this.lagMemory = lag.memory;
    const blocked = new Map([...this.slots.values()].map((s) => [s.target.address, s.blocked] as const));
    const limits = new Map([...this.slots.values()].map((s) => [s.target.address, this.limitOf(s)] as const));
    const connectionLimits = { limits, connections: this.options.clientConnections?.() ?? null };
    this.roundAlerts = computeAlerts({ members, quorum, blocked, lag: lag.findings, connectionLimits });
    const alerts = this.withSourced(this.roundAlerts);
    this.tell(
      {
        ensemble: this.ensemble,
        polledAt: started,
        pollIntervalMs: this.intervalMs,
        members,
        quorum,
        alerts,
        ...(removed.length > 0 ? { removed } : {}),
      },
      appended,
    );
  }

  // ---- another replica's rounds (sharedPolling) ----

  /**
   * A round another replica polled, shown as if polled here while this poller is stopped: its
   * members become the targets and statuses (the collectors ask the same list), its points join
   * the history, and subscribers hear it as they hear a round. Alerts raised here (this replica's
   * paused upgrade) join the published ones.
   */
  adopt(health: EnsembleHealth, appended: MemberHistory): void {
    if (!this.stopped) return;
    for (const m of health.members) {
      const target: MemberTarget = {
        host: m.host,
        clientPort: m.clientPort,
        adminPort: m.adminPort,
        address: m.address,
        id: m.id,
        configuredRole: m.configuredRole,
      };
      if (!this.slots.has(m.address)) this.addSlot(target);
      const slot = this.slots.get(m.address)!;
      slot.target = target;
      slot.status = m;
      slot.lastServingAt = m.lastServingAt;
      if (SERVING_STATES.includes(m.state)) slot.lastServingState = m.state;
      // Polled elsewhere: when this replica polls again, it asks at once.
      slot.nextPollAt = 0;
      slot.failures = 0;
    }
    for (const [address, points] of Object.entries(appended)) for (const point of points) this.ring.add(address, point);
    this.roundAlerts = health.alerts;
    this.adopted++;
    this.tell({ ...health, ensemble: this.ensemble, alerts: this.withSourced(health.alerts) }, appended);
  }

  /** The kept history another replica published, when this one has none yet (a replica that just started). */
  seedHistory(history: MemberHistory): void {
    if (Object.keys(this.ring.snapshot()).length > 0) return;
    for (const [address, points] of Object.entries(history)) for (const point of points) this.ring.add(address, point);
  }

  /** The shown result is no longer live (the replica that polls stopped publishing): subscribers hear it with `reason`. */
  markLate(reason: string): void {
    if (!this.latest || this.latest.lateReason === reason) return;
    this.tell({ ...this.latest, lateReason: reason }, {});
  }

  private tell(health: EnsembleHealth, appended: MemberHistory): void {
    this.latest = health;
    this.firstRound.resolve();
    for (const listener of this.listeners) {
      try {
        listener(health, appended);
      } catch (error) {
        this.options.log.warn({ ensemble: this.ensemble, err: error }, 'health subscriber threw');
      }
    }
  }

  // ---- membership ----

  private addSlot(target: MemberTarget): void {
    this.slots.set(target.address, {
      target,
      status: null,
      blocked: [],
      failures: 0,
      nextPollAt: 0,
      adminRetryAt: 0,
      lastServingAt: null,
      lastServingState: null,
      closedAtOnce: false,
      maxClientCnxns: null,
      ownId: null,
      confAsks: 0,
      packets: null,
      inMembership: false,
      removed: false,
    });
  }

  /** maxClientCnxns and its own server id from each serving member's `conf` (or the AdminServer's `configuration`): a few words a minute. */
  private async refreshLimits(): Promise<void> {
    const read = await this.askConf(this.servingSlots());
    this.limitsDueAt = Date.now() + (read > 0 ? this.membershipIntervalMs : this.intervalMs * 2);
  }

  /** Between refreshes, `conf` only to a serving member whose id is still unknown (one that was down at the last ask), a few times at most. */
  private async learnMissingIds(): Promise<void> {
    const missing = this.servingSlots().filter((s) => s.target.id === null && s.confAsks < ID_ASKS);
    if (missing.length > 0) await this.askConf(missing);
  }

  private servingSlots(): Slot[] {
    return [...this.slots.values()].filter((s) => s.status !== null && SERVING_STATES.includes(s.status.state) && !s.closedAtOnce);
  }

  /** Asks each slot's `conf`; answers how many told their maxClientCnxns. */
  private async askConf(serving: Slot[]): Promise<number> {
    const spec = {
      word: 'conf',
      fromText: ownConfFromText,
      admin: { command: 'configuration', fromBody: ownConfFromAdmin },
      purpose: 'membership' as const,
    };
    const answers = await Promise.all(serving.map(async (slot) => ({ slot, answer: await askMember(this.options.transport, slot.target, spec) })));
    let read = 0;
    for (const { slot, answer } of answers) {
      slot.confAsks++;
      if (!answer.ok) continue;
      if (answer.value.serverId !== null) slot.ownId = answer.value.serverId;
      if (answer.value.maxClientCnxns === null) continue;
      slot.maxClientCnxns = answer.value.maxClientCnxns;
      read++;
    }
    this.applyOwnIds();
    // An id just learned may be one the membership does not name (a member only Keeper's configuration names).
    this.markRemoved(this.servers);
    return read;
  }

  /**
   * Ids for the targets the membership could not match by client address: a TLS-only member's
   * `server.N` line names no client port, so its own `conf` (serverId) says which N it is; its
   * participant/observer role then comes from that line.
   */
  private applyOwnIds(): void {
    for (const slot of this.slots.values()) {
      if (slot.target.id !== null || slot.ownId === null) continue;
      const id = slot.ownId;
      if ([...this.slots.values()].some((s) => s.target.id === id)) continue;
      const server = this.servers.find((s) => s.id === id);
      slot.target = { ...slot.target, id, configuredRole: server?.role ?? slot.target.configuredRole };
    }
  }

  /** Server ids and roles from /zookeeper/config (the console's session) or `conf` (4lw). */
  private async refreshMembership(): Promise<void> {
    const servers = (await this.membershipFromSession()) ?? (await this.membershipFromConf());
    if (!servers || servers.length === 0) {
      this.membershipDueAt = Date.now() + this.intervalMs * 2;
      return;
    }
    this.membershipDueAt = Date.now() + this.membershipIntervalMs;
    this.servers = servers;
    const targets = this.targets();
    let merged = mergeMembership(targets, servers);
    // A server that matched no target by name may be one under another name: ask DNS only then.
    if (merged.length > targets.length) merged = mergeMembership(targets, servers, await hostMatcher(hostNames(targets, servers), this.options.resolveHost));
    for (const target of merged) {
      const slot = this.slots.get(target.address);
      if (slot) slot.target = target;
      else this.addSlot(target);
    }
    this.applyOwnIds();
    this.markRemoved(servers);
  }

  /**
   * The membership is what the ensemble says (/zookeeper/config, else `conf`) once a member has
   * answered; Keeper's own list is only where it starts. A member not named is out of the members
   * (the quorum, the alerts, an upgrade's plan) at once:
   *  - one the membership named before: a reconfig removed it;
   *  - one only Keeper's configuration names (a config file older than a resize, read again at a
   *    restart): its own id (`conf`) is not in the membership, or, id unknown, it does not answer
   *    at an address no server line has (every line names its client address, so the match was
   *    conclusive; a member that answers under another name keeps its place until its id is known).
   * While it still answers it is listed apart ("removed from the ensemble, still running: stop
   * it"); once it stops answering it is forgotten. One named again (added back) is a member again.
   */
  private markRemoved(servers: readonly ServerSpec[]): void {
    if (servers.length === 0) return;
    const ids = new Set(servers.map((s) => s.id));
    const addressesConclusive = servers.every((s) => s.clientPort !== null);
    for (const slot of this.slots.values()) {
      const id = slot.target.id;
      if (id !== null && ids.has(id)) {
        slot.inMembership = true;
        slot.removed = false;
        continue;
      }
      if (slot.removed) continue;
      const silent = slot.status !== null && (slot.status.state === 'down' || slot.status.state === 'unreachable');
      const notNamed = slot.inMembership ? id !== null : id !== null || (addressesConclusive && silent);
      if (!notNamed) continue;
      slot.removed = true;
      slot.target = { ...slot.target, configuredRole: null };
      // Asked again at once: whether it still runs is what the view says of it.
      slot.nextPollAt = 0;
      if (slot.inMembership)
        this.options.log.info({ ensemble: this.ensemble, member: slot.target.address, id }, 'a member left the membership (a reconfig removed it)');
      else
        this.options.log.warn(
          { ensemble: this.ensemble, member: slot.target.address, id },
          "Keeper's configuration names a member the ensemble's membership does not: not counted (the membership is what the ensemble says)",
        );
    }
  }

  /** The membership changed (a reconfig): read it in the next round, which comes at once. */
  refreshMembershipSoon(): void {
    this.membershipDueAt = 0;
    if (!this.running && !this.stopped && this.timer) {
      clearTimeout(this.timer);
      this.schedule(0);
    }
  }

  private async membershipFromSession(): Promise<ServerSpec[] | null> {
    if (!this.options.readClusterConfig) return null;
    try {
      const text = await this.options.readClusterConfig();
      const servers = text ? parseConf(text).servers : [];
      return servers.length > 0 ? servers : null;
    } catch {
      return null;
    }
  }

  private async membershipFromConf(): Promise<ServerSpec[] | null> {
    const candidates = [...this.slots.values()].filter((s) => s.status !== null && SERVING_STATES.includes(s.status.state)).slice(0, MEMBERSHIP_ATTEMPTS);
    for (const slot of candidates) {
      const answer = await this.options.transport.fourLetterWord(slot.target, 'conf', 'membership');
      if (!answer.ok || blockedWord(answer.text) || isNotServing(answer.text)) continue;
      const servers = parseConf(answer.text).servers;
      if (servers.length > 0) return servers;
    }
    return null;
  }
}
