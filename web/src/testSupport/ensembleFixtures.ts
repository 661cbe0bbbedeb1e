/**
 * Realistic, schema-checked data for the web's unit tests (and for looking at the views without
 * a sandbox): a 3-member loopback ensemble as the sandbox runs it, healthy or with a member down,
 * its history, sessions and watches. Quorum and alerts come from the shared logic, like the server's.
 */
import {
  computeAlerts,
  EMPTY_METRICS,
  sessionFlags,
  summarizeQuorum,
  type EnsembleHealth,
  type EnsembleSession,
  type HistoryPoint,
  type MemberHistory,
  type MemberMetrics,
  type MemberStatus,
  type SessionsAnswer,
  type WatchesAnswer,
} from '@keeper/shared';

export const T0 = Date.UTC(2026, 10, 22, 13, 2, 31);
const VERSION = '3.8.0-${mvngit.commit.id}, built on 2023-01-01 00:00 UTC';

export function metrics(overrides: Partial<MemberMetrics> = {}): MemberMetrics {
  return { ...EMPTY_METRICS, ...overrides };
}

export function member(n: number, overrides: Partial<MemberStatus> = {}): MemberStatus {
  const port = 2190 + n;
  return {
    id: n,
    host: '127.0.0.1',
    clientPort: port,
    adminPort: 8090 + n,
    address: `127.0.0.1:${port}`,
    state: 'follower',
    configuredRole: 'participant',
    detail: null,
    source: '4lw',
    metrics: metrics({
      version: VERSION,
      zxid: '0x20000012f',
      epoch: 2,
      latencyMin: 0,
      latencyAvg: 0.42,
      latencyMax: 12,
      connections: 4,
      outstanding: 0,
      znodeCount: 1_284,
      watchCount: 37,
      ephemerals: 9,
      approximateDataSize: 48_213,
      openFds: 84,
      maxFds: 1_048_576,
      uptimeSeconds: 5_400,
      packetsReceived: 10_412,
      packetsSent: 10_430,
    }),
    polledAt: T0,
    lastServingAt: T0,
    nextPollAt: T0 + 5_000,
    ...overrides,
  };
}

export function leader(n: number, overrides: Partial<MemberStatus> = {}): MemberStatus {
  const base = member(n, { state: 'leader' });
  return { ...base, metrics: { ...base.metrics, followers: 2, syncedFollowers: 2, pendingSyncs: 0, connections: 7 }, ...overrides };
}

export function downMember(n: number, forMs = 40_000): MemberStatus {
  return member(n, {
    state: 'down',
    detail: 'connection refused',
    source: null,
    metrics: metrics(),
    lastServingAt: T0 - forMs,
    nextPollAt: T0 + 10_000,
  });
}

export function healthOf(members: MemberStatus[], polledAt = T0): EnsembleHealth {
  const quorum = summarizeQuorum(members);
  return {
    ensemble: 'default',
    polledAt,
    pollIntervalMs: 5_000,
    members,
    quorum,
    alerts: computeAlerts({ members, quorum, blocked: new Map(), lag: [] }),
  };
}

export const healthy = (): EnsembleHealth => healthOf([member(1), leader(2), member(3)]);

/** Every member serves, but the leader counts one follower fewer in sync: member 3 restarted 12 s ago. */
export function oneSyncing(): EnsembleHealth {
  const l = leader(2);
  const m3 = member(3);
  return healthOf([member(1), { ...l, metrics: { ...l.metrics, syncedFollowers: 1 } }, { ...m3, metrics: { ...m3.metrics, uptimeSeconds: 12 } }]);
}

export function oneDown(): EnsembleHealth {
  const l = leader(2);
  return healthOf([member(1), { ...l, metrics: { ...l.metrics, syncedFollowers: 1 } }, downMember(3)]);
}

/** ~15 min of 5 s polls: a gentle latency wave, a burst of outstanding requests, a short outage on member 3. */
export function history(health: EnsembleHealth, minutes = 15): MemberHistory {
  const out: MemberHistory = {};
  const steps = Math.floor((minutes * 60_000) / health.pollIntervalMs);
  for (const m of health.members) {
    const n = m.id ?? 1;
    const points: HistoryPoint[] = [];
    for (let i = steps; i >= 0; i--) {
      const at = health.polledAt - i * health.pollIntervalMs;
      const serving = !(n === 3 && i < 8) && !(n === 3 && i > 120 && i < 126);
      const wave = 0.35 + 0.25 * Math.sin((i + n * 7) / 9) + (i % 17 === 0 ? 1.5 : 0);
      points.push({
        at,
        latencyAvg: serving ? Number(wave.toFixed(2)) : null,
        latencyMax: serving ? Math.round(4 + 8 * Math.abs(Math.sin(i / 5 + n))) : null,
        outstanding: serving ? (i > 40 && i < 48 ? (48 - i) * 3 : 0) : null,
        connections: serving ? 3 + n + (i < 60 ? 2 : 0) : null,
        znodeCount: serving ? 1_284 : null,
        serving,
      });
    }
    out[m.address] = points;
  }
  return out;
}

function session(i: number, overrides: Partial<EnsembleSession> = {}): EnsembleSession {
  const timeoutMs = overrides.timeoutMs ?? 30_000;
  const lastResponseAt = overrides.lastResponseAt ?? T0 - 1_000 * (i % 7);
  const ephemerals = overrides.ephemerals ?? (i % 3 === 0 ? [`/services/api/instance-${i}`] : []);
  const s: EnsembleSession = {
    sessionId: `0x${(0x100000a3b52c400n + BigInt(i)).toString(16)}`,
    client: `10.0.4.${20 + (i % 40)}:${50_000 + i * 7}`,
    member: `127.0.0.1:${2191 + (i % 3)}`,
    timeoutMs,
    establishedAt: T0 - 3_600_000 + i * 61_000,
    lastResponseAt,
    latencyMin: 0,
    latencyAvg: Number((0.2 + (i % 5) * 0.3).toFixed(2)),
    latencyMax: 3 + (i % 9),
    queued: 0,
    received: 1_000 + i * 13,
    sent: 1_002 + i * 13,
    ephemeralCount: ephemerals.length,
    ephemerals,
    isConsole: false,
    connected: true,
    expiresAt: lastResponseAt + timeoutMs,
    flags: [],
    ...overrides,
  };
  const flags = sessionFlags({
    timeoutMs: s.timeoutMs,
    silentMs: s.lastResponseAt === null ? null : T0 - s.lastResponseAt,
    ephemeralCount: s.ephemeralCount,
    connected: s.connected ?? null,
  });
  return { ...s, flags };
}

export function sessions(count = 40): SessionsAnswer {
  const list: EnsembleSession[] = [];
  for (let i = 1; i <= count; i++) list.push(session(i));
  list.push(session(0, { isConsole: true, client: '127.0.0.1:41522', member: '127.0.0.1:2192', ephemerals: [] }));
  list.push(
    session(101, {
      timeoutMs: 900_000,
      ephemerals: ['/queue/tasks/worker-7', '/locks/jobs/_c_8f3e-lock-0000000041', '/workers/worker-7'],
    }),
  );
  list.push(session(102, { timeoutMs: 30_000, lastResponseAt: T0 - 24_000, ephemerals: ['/election/n_0000000012'] }));
  list.push(
    session(103, {
      connected: false,
      client: '',
      member: '',
      timeoutMs: 900_000,
      lastResponseAt: null,
      expiresAt: T0 + 610_000,
      ephemerals: ['/queue/tasks/worker-3'],
    }),
  );
  return {
    ensemble: 'default',
    gatheredAt: T0 - 12_000,
    gaps: [{ member: '127.0.0.1:2193', reason: 'cons is not in 4lw.commands.whitelist' }],
    sessions: list,
    nextGatherInSeconds: 0,
  };
}

export function watches(withByPath: boolean): WatchesAnswer {
  const sessionsOn = (n: number) => Array.from({ length: n }, (_, i) => `0x${(0x100000a3b52c400n + BigInt(i + 1)).toString(16)}`);
  return {
    ensemble: 'default',
    summary: [
      { member: '127.0.0.1:2191', connections: 3, paths: 12, watches: 19, error: null },
      { member: '127.0.0.1:2192', connections: 5, paths: 14, watches: 31, error: null },
      { member: '127.0.0.1:2193', connections: null, paths: null, watches: null, error: 'down: connection refused' },
    ],
    byPath: withByPath
      ? {
          gatheredAt: T0 - 4_000,
          paths: [
            { path: '/config/feature-flags', sessions: sessionsOn(14), watchers: 14 },
            { path: '/locks/jobs/_c_8f3e-lock-0000000041', sessions: sessionsOn(1), watchers: 1 },
            { path: '/services/api', sessions: sessionsOn(4), watchers: 4 },
          ],
          herds: [
            {
              path: '/config/feature-flags',
              watchers: 14,
              message:
                '14 sessions watch /config/feature-flags (33% of 42 sessions): when it changes or is deleted all of them are notified at once and usually all re-read it (a herd).',
            },
          ],
          gaps: [{ member: '127.0.0.1:2193', reason: 'down: connection refused' }],
        }
      : null,
    costWarning:
      'wchc and wchp may be expensive: ZooKeeper holds a lock while it walks every watch; on a busy ensemble with many watches this can affect performance. Run on demand only.',
    byPathNextInSeconds: 0,
  };
}
