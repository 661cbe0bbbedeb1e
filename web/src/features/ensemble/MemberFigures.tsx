/**
 * The figures of a member card, one per line like the tree's stat table (name left, value
 * right), so cards side by side line up for comparison; more of them when expanded.
 */
import type { MemberStatus } from '@keeper/shared';
import { formatDuration } from '../../lib/time';
import { bytes, count, fds, latencyTriple } from '../../ui/format';
import { isServingState } from './memberState';

export function MemberFigures({
  member,
  expanded,
  votingFollowers,
}: {
  member: MemberStatus;
  expanded: boolean;
  /** Voters other than the leader (from the configuration): zk_followers only counts those connected now. */
  votingFollowers: number;
}) {
  const m = member.metrics;
  const leader = member.state === 'leader';
  if (!isServingState(member.state) && Object.values(m).every((v) => v === null)) {
    return <p className="note mfig__none">No figures: it does not answer. The charts keep its last ones.</p>;
  }
  const expected = Math.max(votingFollowers, m.followers ?? 0);
  return (
    <dl className="mfig">
      <Figure
        label="latency"
        hint="min / avg / max, ms (since the member's counters were last reset)"
        value={latencyTriple(m.latencyMin, m.latencyAvg, m.latencyMax)}
      />
      <Figure label="connections" value={count(m.connections)} />
      <Figure
        label="outstanding"
        hint="requests queued on the member: above a few means it is not keeping up"
        value={count(m.outstanding)}
        warn={m.outstanding !== null && m.outstanding > 10}
      />
      <Figure label="znodes" value={count(m.znodeCount)} />
      <Figure label="watches" hint="data and child watches it holds for its clients (zk_watch_count)" value={count(m.watchCount)} />
      <Figure label="ephemerals" value={count(m.ephemerals)} />
      <Figure label="data size" hint="approximate size of all znode data (zk_approximate_data_size)" value={bytes(m.approximateDataSize)} />
      <Figure
        label="open fds"
        hint="open of max file descriptors"
        value={fds(m.openFds, m.maxFds)}
        warn={m.openFds !== null && m.maxFds !== null && m.maxFds > 0 && m.openFds / m.maxFds >= 0.8}
      />
      {/* Leader-only lines go last, so the lines above stay level with the followers' cards. */}
      {leader && m.syncedFollowers !== null && (
        <Figure
          label="synced followers"
          hint="voting followers in sync with the leader (zk_synced_followers), of the configured voters other than the leader"
          value={`${count(m.syncedFollowers)} of ${count(expected)}`}
          warn={m.syncedFollowers < expected}
        />
      )}
      {leader && m.pendingSyncs !== null && <Figure label="pending syncs" value={count(m.pendingSyncs)} warn={m.pendingSyncs > 0} />}
      {expanded && (
        <>
          <Figure label="uptime" value={m.uptimeSeconds === null ? '—' : formatDuration(m.uptimeSeconds * 1000)} />
          <Figure label="packets received" value={count(m.packetsReceived)} />
          <Figure label="packets sent" value={count(m.packetsSent)} />
          <Figure label="configured as" value={member.configuredRole ?? '—'} />
          <Figure label="admin port" value={member.adminPort === null ? '—' : String(member.adminPort)} />
          <Figure label="version" value={m.version ?? '—'} hint={m.version ?? undefined} />
        </>
      )}
    </dl>
  );
}

function Figure({ label, value, hint, warn }: { label: string; value: string; hint?: string; warn?: boolean }) {
  return (
    <div className="mfig__row" title={hint}>
      <dt className="mfig__name">{label}</dt>
      <dd className={`mfig__value mono${warn ? ' figure--warn' : ''}`}>{value}</dd>
    </div>
  );
}
