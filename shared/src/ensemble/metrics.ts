/**
 * A member's figures from whichever source answered: srvr + mntr over 4lw, or the
 * AdminServer's server_stats + monitor (same keys as mntr without zk_). srvr-only members
 * (mntr not whitelisted) still give version, zxid, latency, connections and node count.
 */
import type { MemberMetrics } from './types.js';
import { toNumber } from './parse/numbers.js';
import type { SrvrInfo } from './parse/srvr.js';
import { zxidParts } from './zxid.js';

export const EMPTY_METRICS: MemberMetrics = {
  version: null,
  zxid: null,
  epoch: null,
  latencyMin: null,
  latencyAvg: null,
  latencyMax: null,
  connections: null,
  outstanding: null,
  znodeCount: null,
  watchCount: null,
  ephemerals: null,
  approximateDataSize: null,
  openFds: null,
  maxFds: null,
  followers: null,
  syncedFollowers: null,
  pendingSyncs: null,
  uptimeSeconds: null,
  packetsReceived: null,
  packetsSent: null,
};

/** The first key present: names moved between versions (zk_followers became zk_learners). */
function pick(mntr: ReadonlyMap<string, string>, ...keys: string[]): number | null {
  for (const key of keys) {
    const value = toNumber(mntr.get(key));
    if (value !== null) return value;
  }
  return null;
}

/**
 * The voting followers in sync: the leader's synced_followers counts every forwarding follower,
 * a learner waiting to be added by a reconfig among them (non-voting until then), so a resize's
 * preflight said "4 of 2 followers synced" (issue 34 item 8). Its synced_non_voting_followers
 * (3.5+) are those: taken off.
 */
function votingSynced(synced: number | null, nonVoting: number | null): number | null {
  if (synced === null) return null;
  return nonVoting === null ? synced : Math.max(0, synced - nonVoting);
}

export function metricsFrom(srvr: SrvrInfo | null, mntr: ReadonlyMap<string, string> | null): MemberMetrics {
  const m = mntr ?? new Map<string, string>();
  const zxid = srvr?.zxid ?? null;
  const uptimeMs = pick(m, 'uptime');
  return {
    version: srvr?.version ?? m.get('version') ?? null,
    zxid,
    epoch: zxidParts(zxid)?.epoch ?? null,
    latencyMin: srvr?.latencyMin ?? pick(m, 'min_latency'),
    latencyAvg: srvr?.latencyAvg ?? pick(m, 'avg_latency'),
    latencyMax: srvr?.latencyMax ?? pick(m, 'max_latency'),
    connections: pick(m, 'num_alive_connections') ?? srvr?.connections ?? null,
    outstanding: pick(m, 'outstanding_requests') ?? srvr?.outstanding ?? null,
    znodeCount: pick(m, 'znode_count') ?? srvr?.nodeCount ?? null,
    watchCount: pick(m, 'watch_count'),
    ephemerals: pick(m, 'ephemerals_count'),
    approximateDataSize: pick(m, 'approximate_data_size'),
    openFds: pick(m, 'open_file_descriptor_count'),
    maxFds: pick(m, 'max_file_descriptor_count'),
    // Learners connected to the leader (3.4 says zk_followers; both count observers too).
    followers: pick(m, 'followers', 'learners'),
    syncedFollowers: votingSynced(pick(m, 'synced_followers'), pick(m, 'synced_non_voting_followers')),
    pendingSyncs: pick(m, 'pending_syncs'),
    uptimeSeconds: uptimeMs === null ? null : Math.floor(uptimeMs / 1000),
    packetsReceived: pick(m, 'packets_received') ?? srvr?.received ?? null,
    packetsSent: pick(m, 'packets_sent') ?? srvr?.sent ?? null,
    sessionsExpired: pick(m, 'stale_sessions_expired'),
  };
}
