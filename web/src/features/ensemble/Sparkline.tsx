/**
 * One small chart over the history window: an area for the series, red ticks along the foot
 * where the member was not serving, and an optional companion figure in the caption only
 * (latency max: ZooKeeper's max is a running maximum since the counters were reset, a step that
 * would flatten the average if drawn on the same scale). Hover (or touch) reads a value at a
 * time. Colors come from CSS, so both themes work.
 */
import { memo, useMemo, useState, type PointerEvent } from 'react';
import type { HistoryPoint } from '@keeper/shared';
import { formatClock } from '../../lib/time';
import { areaPath, downBands, linePath, maxValue, nearestIndex, niceCeil, segments, type Frame } from './sparkline';

const WIDTH = 240;

export interface SeriesSpec {
  name: string;
  pick: (p: HistoryPoint) => number | null;
}

export const Sparkline = memo(function Sparkline({
  title,
  unit,
  points,
  from,
  to,
  height,
  primary,
  secondary,
  format,
  axis = false,
}: {
  title: string;
  unit: string;
  points: readonly HistoryPoint[];
  from: number;
  to: number;
  height: number;
  primary: SeriesSpec;
  /** A companion figure read at the same point, in the caption only (not drawn). */
  secondary?: SeriesSpec;
  format: (n: number | null) => string;
  /** Label the time axis under the chart ("−15 min … now"). */
  axis?: boolean;
}) {
  const [hover, setHover] = useState<number | null>(null);
  const geometry = useMemo(() => {
    const frame: Frame = { from, to, width: WIDTH, height };
    const main = points.map((p) => ({ at: p.at, value: primary.pick(p) }));
    const peak = maxValue([main], frame);
    const top = niceCeil(peak);
    const runs = segments(main, frame, top);
    return { area: areaPath(runs, height), line: linePath(runs), bands: downBands(points, frame), peak, top };
  }, [points, from, to, height, primary]);

  const last = points.length > 0 ? points[points.length - 1] : undefined;
  const shownIndex = hover ?? (last ? points.length - 1 : -1);
  const shown = shownIndex >= 0 ? points[shownIndex] : undefined;
  const mainNow = shown ? primary.pick(shown) : null;
  const secondNow = shown && secondary ? secondary.pick(shown) : null;
  const hoverX = hover !== null && shown ? ((shown.at - from) / Math.max(1, to - from)) * WIDTH : null;

  const onMove = (e: PointerEvent<SVGSVGElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    if (rect.width <= 0) return;
    const at = from + ((e.clientX - rect.left) / rect.width) * (to - from);
    const i = nearestIndex(points, at);
    setHover(i < 0 ? null : i);
  };

  const summary = `${title}${secondary ? ` ${primary.name}` : ''} over the last ${Math.round((to - from) / 60_000)} min: now ${format(last ? primary.pick(last) : null)} ${unit}, peak ${format(geometry.peak)} ${unit}`;

  return (
    <figure className="spark">
      <figcaption className="spark__caption">
        <span className="spark__title">
          {title}
          {secondary && <span className="spark__series"> {primary.name}</span>}
        </span>
        <span className="spark__value mono">
          {format(mainNow)}
          {unit && mainNow !== null && <span className="spark__unit"> {unit}</span>}
          {secondary && secondNow !== null && (
            <span className="spark__second">
              {' '}
              {secondary.name} {format(secondNow)}
            </span>
          )}
          {hover !== null && shown && <span className="spark__at"> at {formatClock(shown.at)}</span>}
        </span>
      </figcaption>
      <svg
        className="spark__svg"
        viewBox={`0 0 ${WIDTH} ${height}`}
        preserveAspectRatio="none"
        height={height}
        role="img"
        aria-label={summary}
        onPointerMove={onMove}
        onPointerDown={onMove}
        onPointerLeave={() => setHover(null)}
      >
        <title>{`peak ${format(geometry.peak)} ${unit}; scale 0–${format(geometry.top)}`}</title>
        <line className="spark__grid" x1={0} x2={WIDTH} y1={0.5} y2={0.5} vectorEffect="non-scaling-stroke" />
        <line className="spark__base" x1={0} x2={WIDTH} y1={height - 0.5} y2={height - 0.5} vectorEffect="non-scaling-stroke" />
        {geometry.bands.map((b) => (
          <rect key={b.x} className="spark__down" x={b.x} y={height - 3} width={b.width} height={3} />
        ))}
        <path className="spark__area" d={geometry.area} />
        <path className="spark__line" d={geometry.line} vectorEffect="non-scaling-stroke" />
        {hoverX !== null && <line className="spark__cursor" x1={hoverX} x2={hoverX} y1={0} y2={height} vectorEffect="non-scaling-stroke" />}
      </svg>
      {axis && (
        <div className="spark__axis" aria-hidden="true">
          <span>−{Math.round((to - from) / 60_000)} min</span>
          <span>now</span>
        </div>
      )}
    </figure>
  );
});
