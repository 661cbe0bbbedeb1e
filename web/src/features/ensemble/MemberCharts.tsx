/** Latency, outstanding requests, packets received per second and connections of one member over the history window (~15 min). */
import { memo } from 'react';
import type { HistoryPoint } from '@keeper/shared';
import { count, ms } from '../../ui/format';
import { Sparkline, type SeriesSpec } from './Sparkline';

export const HISTORY_WINDOW_MS = 15 * 60_000;

// Module-level so Sparkline's memo sees the same objects on every render.
const LATENCY_AVG: SeriesSpec = { name: 'avg', pick: (p) => p.latencyAvg };
const LATENCY_MAX: SeriesSpec = { name: 'max', pick: (p) => p.latencyMax };
const OUTSTANDING: SeriesSpec = { name: 'outstanding', pick: (p) => p.outstanding };
const PACKETS: SeriesSpec = { name: 'packets/s', pick: (p) => p.packetsReceivedPerSecond ?? null };
const CONNECTIONS: SeriesSpec = { name: 'connections', pick: (p) => p.connections };
const formatCountOrNone = (n: number | null) => count(n);

export const MemberCharts = memo(function MemberCharts({ points, to, large }: { points: readonly HistoryPoint[] | undefined; to: number; large: boolean }) {
  const height = large ? 56 : 24;
  const from = to - HISTORY_WINDOW_MS;
  if (!points || points.length === 0) return <p className="member__charts-empty note">No history yet: charts fill in as polls arrive.</p>;
  return (
    <div className="member__charts">
      <Sparkline
        title="latency"
        unit="ms"
        points={points}
        from={from}
        to={to}
        height={height}
        primary={LATENCY_AVG}
        secondary={LATENCY_MAX}
        format={ms}
        axis={large}
      />
      <Sparkline
        title="outstanding"
        unit=""
        points={points}
        from={from}
        to={to}
        height={height}
        primary={OUTSTANDING}
        format={formatCountOrNone}
        axis={large}
      />
      <Sparkline title="packets/s" unit="" points={points} from={from} to={to} height={height} primary={PACKETS} format={formatCountOrNone} axis={large} />
      <Sparkline title="connections" unit="" points={points} from={from} to={to} height={height} primary={CONNECTIONS} format={formatCountOrNone} axis />
    </div>
  );
});
