/**
 * The member monitor: everything the ensemble view needs to watch one ensemble's members, built once
 * at start-up: the member poller (the hub's HealthFeed), the sessions and watches collectors, one
 * counted transport they share. The console's gateway is only read: its session id (to mark the
 * console's own session) and /zookeeper/config (membership without 4lw). The aggregate that owns it is ensemble/ensemble.ts.
 */
import type { Logger } from 'pino';
import { SERVING_STATES, type RequestHerdThresholds } from '@keeper/shared';
import type { EnsembleConfig } from '../config/types.js';
import type { ZkGateway } from '../zk/gateway.js';
import type { TlsMaterial } from '../zk/tlsMaterial.js';
import { RequestCounters } from './counters.js';
import { monitorSettingsFromEnv } from './envSettings.js';
import { MemberPoller } from './memberPoller.js';
import { initialTargets } from './memberTargets.js';
import { SessionsCollector } from './sessionsCollector.js';
import { MemberTransport } from './transport.js';
import { WatchesCollector } from './watchesCollector.js';

export interface MonitorSettings {
  pollIntervalMs?: number;
  callDeadlineMs?: number;
  maxBackoffMs?: number;
  sessionsMinIntervalMs?: number;
  sessionsCadenceMs?: number;
  watchesByPathMinIntervalMs?: number;
  /** KEEPER_HERD_LATENCY_MS sets latencyMs; tests open that gate, since whether a herd raises latency depends on the machine. */
  herdThresholds?: Partial<RequestHerdThresholds>;
  /** The poller does not start with the monitor: another part starts it (the replicas' sharedPolling, once the election has spoken). */
  pollerHeld?: boolean;
}

export interface MemberMonitor {
  poller: MemberPoller;
  sessions: SessionsCollector;
  watches: WatchesCollector;
  counters: RequestCounters;
  /** The one counted, deadlined way to ask members 4lw and AdminServer commands. */
  transport: MemberTransport;
  start(): void;
  close(): void;
}

/** `given` (tests, benches) wins over the environment (envSettings.ts), which wins over the defaults. */
export function createMemberMonitor(
  config: EnsembleConfig,
  gateway: ZkGateway | null,
  given: MonitorSettings,
  log: Logger,
  tls: TlsMaterial | null = null,
): MemberMonitor {
  const settings: MonitorSettings = { ...monitorSettingsFromEnv(process.env), ...given };
  const counters = new RequestCounters();
  const transport = new MemberTransport(counters, settings.callDeadlineMs ?? 2_000, tls);
  const deadlineMs = settings.callDeadlineMs ?? 2_000;
  const readClusterConfig = gateway
    ? async () => {
        if (gateway.session.state !== 'connected' && gateway.session.state !== 'readOnly') return null;
        counters.record(gateway.session.member ?? 'console session', 'zk', 'getData /zookeeper/config', 'membership');
        const { data } = await gateway.getData('/zookeeper/config', { deadlineMs });
        return data.toString('utf8');
      }
    : undefined;
  const poller: MemberPoller = new MemberPoller({
    ensemble: config.name,
    targets: initialTargets(config),
    transport,
    ...(settings.pollIntervalMs ? { intervalMs: settings.pollIntervalMs } : {}),
    ...(settings.maxBackoffMs ? { maxBackoffMs: settings.maxBackoffMs } : {}),
    ...(readClusterConfig ? { readClusterConfig } : {}),
    // Only a session confirmed alive vouches for its member (a member without quorum drops it).
    consoleMember: () => (gateway?.session.state === 'connected' ? gateway.session.member : null),
    clientConnections: () => sessions.recentConnectionsByHost(2 * sessions.cadenceMs),
    log,
  });
  const consoleSessionId = () => gateway?.session.sessionId ?? null;
  const sessions = new SessionsCollector({
    ensemble: config.name,
    members: poller,
    transport,
    consoleSessionId,
    // Child lists browsers have open: a herd's likely target, named at no cost to ZooKeeper.
    heldLists: () => (gateway?.heldZnodes() ?? []).map(({ path, held }) => ({ path, numChildren: held.stat.numChildren, pzxid: held.stat.pzxid })),
    ...(settings.sessionsMinIntervalMs ? { minIntervalMs: settings.sessionsMinIntervalMs } : {}),
    ...(settings.sessionsCadenceMs ? { cadenceMs: settings.sessionsCadenceMs } : {}),
    ...(settings.herdThresholds ? { herdThresholds: settings.herdThresholds } : {}),
    log,
  });
  const watches = new WatchesCollector({
    ensemble: config.name,
    members: poller,
    transport,
    consoleSessionId,
    // Sessions counted by a recent gathering, else the serving members' connection counts.
    totalSessions: () => {
      const cached = sessions.recentCount(2 * sessions.cadenceMs);
      if (cached !== null) return cached;
      const serving = poller.statuses().filter((s) => SERVING_STATES.includes(s.state) && s.metrics.connections !== null);
      return serving.length > 0 ? serving.reduce((n, s) => n + (s.metrics.connections ?? 0), 0) : null;
    },
    ...(settings.watchesByPathMinIntervalMs ? { byPathMinIntervalMs: settings.watchesByPathMinIntervalMs } : {}),
  });
  sessions.addWatchSource(() => watches.lastSighting());
  // A request herd is an ensemble alert too, from the latest sessions gathering (kept fresh while the ensemble view is open).
  poller.addAlertSource(() => sessions.recentHerdAlert(2 * sessions.cadenceMs + 5_000));
  return {
    poller,
    sessions,
    watches,
    counters,
    transport,
    start: () => {
      if (!settings.pollerHeld) poller.start();
    },
    close() {
      poller.stop();
      sessions.close();
    },
  };
}
