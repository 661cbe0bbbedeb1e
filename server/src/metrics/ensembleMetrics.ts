/**
 * What Keeper already knows about each ensemble, as Prometheus gauges read at scrape time: the
 * member poller's last round, the quorum, the console's session, its watches, the busiest client
 * hosts of the last sessions gathering, the watched locks by status and the current upgrade. A scrape never asks ZooKeeper
 * anything: it reads what the poller and collectors hold (one 4lw round serves every browser and
 * every scrape alike), and says when that was seen (`*_polled_timestamp_seconds`).
 *
 * Labels are bounded: members of the ensemble, the state words of fixed lists, and at most
 * TOP_CLIENT_HOSTS client hosts per ensemble. No znode path and no session id is ever a label.
 */
import { Gauge, type Registry } from 'prom-client';
import { CONSOLE_SESSION_STATES, SERVING_STATES, UPGRADE_STATES, clientHostOf, type LockCounts } from '@keeper/shared';
import type { Ensemble } from '../ensemble/ensemble.js';

/** Client hosts named by keeper_sessions_request_rate per ensemble (the busiest; the rest are summed as "other"). */
export const TOP_CLIENT_HOSTS = 10;

type EnsembleList = () => Iterable<Ensemble>;

/** The statuses keeper_locks counts by (every key of LockCounts, in the Locks view's order). */
const LOCK_STATUSES = ['leaked', 'persistent', 'waiting', 'holder', 'empty'] as const satisfies readonly (keyof LockCounts)[];

function gauge<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[], collect: (g: Gauge<L>) => void): void {
  new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      // Each scrape states the present: series of members or hosts that went away are dropped.
      this.reset();
      collect(this);
    },
  });
}

export function registerEnsembleMetrics(registry: Registry, ensembles: EnsembleList): void {
  const each = (fn: (e: Ensemble) => void) => {
    for (const e of ensembles()) fn(e);
  };
  const members = (fn: (e: Ensemble, m: NonNullable<ReturnType<Ensemble['poller']['current']>>['members'][number]) => void) =>
    each((e) => {
      for (const m of e.poller.current()?.members ?? []) fn(e, m);
    });

  gauge(
    registry,
    'keeper_member_up',
    "1 while a member serves (leader, follower, observer, standalone), else 0; role is the poller's word for it.",
    ['ensemble', 'member', 'role'],
    (g) => members((e, m) => g.set({ ensemble: e.name, member: m.address, role: m.state }, SERVING_STATES.includes(m.state) ? 1 : 0)),
  );
  gauge(
    registry,
    'keeper_member_polled_timestamp_seconds',
    'When the poller last checked the member (Unix seconds): how old the member figures are.',
    ['ensemble', 'member'],
    (g) => members((e, m) => g.set({ ensemble: e.name, member: m.address }, m.polledAt / 1000)),
  );
  const figure = (name: string, help: string, pick: (m: Parameters<Parameters<typeof members>[0]>[1]) => number | null) =>
    gauge(registry, name, help, ['ensemble', 'member'], (g) =>
      members((e, m) => {
        const value = pick(m);
        if (value !== null) g.set({ ensemble: e.name, member: m.address }, value);
      }),
    );
  figure('keeper_member_latency_avg_ms', "The member's average request latency (srvr/mntr), ms.", (m) => m.metrics.latencyAvg);
  figure('keeper_member_latency_max_ms', "The member's maximum request latency since its counters were reset, ms.", (m) => m.metrics.latencyMax);
  figure('keeper_member_outstanding_requests', 'Requests queued on the member.', (m) => m.metrics.outstanding);
  figure('keeper_member_connections', 'Client connections to the member.', (m) => m.metrics.connections);
  figure('keeper_member_znodes', 'Znodes on the member.', (m) => m.metrics.znodeCount);

  const quorum = (name: string, help: string, pick: (q: NonNullable<ReturnType<Ensemble['poller']['current']>>['quorum']) => number) =>
    gauge(registry, name, help, ['ensemble'], (g) =>
      each((e) => {
        const q = e.poller.current()?.quorum;
        if (q) g.set({ ensemble: e.name }, pick(q));
      }),
    );
  quorum('keeper_quorum_tolerates', 'Voter failures the configured ensemble tolerates: floor((voters - 1) / 2).', (q) => q.tolerates);
  quorum('keeper_quorum_can_lose_now', 'Further voter failures it can take right now, given who serves (0: the next one loses quorum).', (q) => q.canLoseNow);
  quorum('keeper_quorum_voters_serving', 'Voters serving now.', (q) => q.votersServing);
  quorum('keeper_quorum_has_quorum', '1 while a majority of voters serves.', (q) => (q.hasQuorum ? 1 : 0));

  gauge(registry, 'keeper_ensemble_alerts', 'Alerts the ensemble view shows now, by severity.', ['ensemble', 'severity'], (g) =>
    each((e) => {
      const alerts = e.poller.current()?.alerts ?? [];
      for (const severity of ['info', 'warning', 'critical'] as const)
        g.set({ ensemble: e.name, severity }, alerts.filter((a) => a.severity === severity).length);
    }),
  );

  gauge(registry, 'keeper_console_session_state', "1 for the state the console's own ZooKeeper session is in, 0 for the others.", ['ensemble', 'state'], (g) =>
    each((e) => {
      const now = e.gateway.session.state;
      for (const state of CONSOLE_SESSION_STATES) g.set({ ensemble: e.name, state }, state === now ? 1 : 0);
    }),
  );
  gauge(
    registry,
    'keeper_watches',
    'Distinct znodes Keeper watches in the ensemble (one ZooKeeper watch per znode however many browsers).',
    ['ensemble'],
    (g) => each((e) => g.set({ ensemble: e.name }, e.gateway.watches.watchedPaths)),
  );

  gauge(
    registry,
    'keeper_sessions_request_rate',
    `Requests per second sent by the sessions of a client host, from the last sessions gathering (cons); the ${TOP_CLIENT_HOSTS} busiest hosts, the rest as "other". Absent when no gathering is recent.`,
    ['ensemble', 'client'],
    (g) =>
      each((e) => {
        const sessions = e.sessions.recentSessions(2 * e.sessions.cadenceMs);
        if (!sessions) return;
        const byHost = new Map<string, number>();
        for (const s of sessions) {
          if (s.requestsPerSecond === null || s.requestsPerSecond === undefined || !s.client) continue;
          const host = clientHostOf(s.client);
          byHost.set(host, (byHost.get(host) ?? 0) + s.requestsPerSecond);
        }
        const ranked = [...byHost].sort((a, b) => b[1] - a[1]);
        for (const [host, rate] of ranked.slice(0, TOP_CLIENT_HOSTS)) g.set({ ensemble: e.name, client: host }, rate);
        const rest = ranked.slice(TOP_CLIENT_HOSTS).reduce((n, [, rate]) => n + rate, 0);
        if (ranked.length > TOP_CLIENT_HOSTS) g.set({ ensemble: e.name, client: 'other' }, rest);
      }),
  );

  gauge(
    registry,
    'keeper_locks',
    "Lock directories Keeper watches in the ensemble, by their worst contender's status (leaked: kazoo #732's nodes, proven by watch gatherings), from the Locks view's reports; a scrape starts no gathering.",
    ['ensemble', 'status'],
    (g) =>
      each((e) => {
        const counts = e.locks.statusCounts();
        for (const status of LOCK_STATUSES) g.set({ ensemble: e.name, status }, counts[status]);
      }),
  );

  gauge(
    registry,
    'keeper_upgrade_state',
    "1 for the state of the ensemble's current (or last) upgrade, 0 for the others; no series when there has been none.",
    ['ensemble', 'state'],
    (g) =>
      each((e) => {
        const wf = e.upgrades.current();
        if (!wf) return;
        for (const state of UPGRADE_STATES) g.set({ ensemble: e.name, state }, wf.state === state ? 1 : 0);
      }),
  );
}
