/** EnsembleHealth snapshots for the upgrade tests, built the way the member poller reports them. */
import { EMPTY_METRICS, summarizeQuorum, type EnsembleHealth, type MemberMetrics, type MemberState, type MemberStatus } from '../../src/index.js';

export interface MemberSpec {
  id: number | null;
  state: MemberState;
  observer?: boolean;
  zxid?: string | null;
  syncedFollowers?: number | null;
  uptimeSeconds?: number | null;
  version?: string | null;
  packetsReceived?: number | null;
  source?: 'admin' | '4lw' | null;
  detail?: string | null;
  host?: string;
}

export const OLD = '3.8.0-${mvngit.commit.id}, built on 2023-10-30 12:00 UTC';
export const NEW = '3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC';

export function member(spec: MemberSpec, polledAt: number): MemberStatus {
  const host = spec.host ?? `zk${spec.id ?? 'x'}`;
  const serving = ['leader', 'follower', 'observer', 'standalone'].includes(spec.state);
  const metrics: MemberMetrics = {
    ...EMPTY_METRICS,
    version: serving ? (spec.version === undefined ? OLD : spec.version) : null,
    zxid: serving ? (spec.zxid === undefined ? '0x100000010' : spec.zxid) : null,
    syncedFollowers: spec.state === 'leader' ? (spec.syncedFollowers ?? null) : null,
    uptimeSeconds: serving ? (spec.uptimeSeconds === undefined ? 3600 : spec.uptimeSeconds) : null,
    packetsReceived: serving ? (spec.packetsReceived ?? null) : null,
  };
  return {
    id: spec.id,
    host,
    clientPort: 2181,
    adminPort: 8080,
    address: `${host}:2181`,
    state: spec.state,
    configuredRole: spec.observer ? 'observer' : 'participant',
    detail: spec.detail ?? (spec.state === 'down' ? 'connection refused' : null),
    source: spec.source !== undefined ? spec.source : serving || spec.state === 'not-serving' ? 'admin' : null,
    metrics,
    polledAt,
    lastServingAt: serving ? polledAt : null,
  };
}

export function health(specs: readonly MemberSpec[], polledAt: number, ensemble = 'main'): EnsembleHealth {
  const members = specs.map((s) => member(s, polledAt));
  return { ensemble, polledAt, pollIntervalMs: 2000, members, quorum: summarizeQuorum(members), alerts: [] };
}

/** Three voters, member 1 leading with both followers synced, everyone at the same zxid. */
export const threeVoters = (at: number, overrides: Partial<Record<number, Partial<MemberSpec>>> = {}): EnsembleHealth =>
  health(
    [
      { id: 1, state: 'leader', syncedFollowers: 2, ...overrides[1] },
      { id: 2, state: 'follower', ...overrides[2] },
      { id: 3, state: 'follower', ...overrides[3] },
    ],
    at,
  );
