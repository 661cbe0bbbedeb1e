/**
 * Geometry for the member sparklines: plain SVG path strings, computed once per history update.
 * Hand-rolled instead of a chart library: three tiny charts per member need a line, an area, gaps
 * and a hover readout, nothing more; SVG paths take their colors from CSS variables, so both themes
 * work without a JavaScript theme bridge (a canvas library such as uPlot would need one).
 */

export interface SeriesPoint {
  at: number;
  value: number | null;
}

export interface Frame {
  /** Time window shown, epoch ms. */
  from: number;
  to: number;
  width: number;
  height: number;
}

/** 1, 2, 2.5, 5, 10 × 10^k: the smallest such value >= v, so the y axis tops out at a round figure. */
export function niceCeil(v: number): number {
  if (!(v > 0)) return 1;
  const exp = Math.floor(Math.log10(v));
  const base = 10 ** exp;
  for (const step of [1, 2, 2.5, 5, 10]) {
    const candidate = step * base;
    if (candidate >= v * (1 - 1e-9)) return Number(candidate.toPrecision(12));
  }
  return 10 * base;
}

/** Largest value among the series within the frame; the y axis top is niceCeil of it. */
export function maxValue(series: readonly (readonly SeriesPoint[])[], frame: Pick<Frame, 'from' | 'to'>): number {
  let max = 0;
  for (const points of series) for (const p of points) if (p.value !== null && p.at >= frame.from && p.at <= frame.to && p.value > max) max = p.value;
  return max;
}

/** Typical spacing between points; a hole longer than ~2.5 of them is a missed poll and breaks the line. */
export function typicalStep(points: readonly SeriesPoint[]): number {
  const steps: number[] = [];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    if (a && b && b.at > a.at) steps.push(b.at - a.at);
  }
  if (steps.length === 0) return Infinity;
  steps.sort((x, y) => x - y);
  return steps[Math.floor(steps.length / 2)] ?? Infinity;
}

const r = (n: number) => Math.round(n * 10) / 10;

/** Runs of consecutive, present points (null values and missed polls split them), as [x, y] pairs. */
export function segments(points: readonly SeriesPoint[], frame: Frame, top: number): [number, number][][] {
  const span = Math.max(1, frame.to - frame.from);
  const maxGap = typicalStep(points) * 2.5;
  const out: [number, number][][] = [];
  let run: [number, number][] = [];
  let prevAt: number | null = null;
  for (const p of points) {
    if (p.at < frame.from || p.at > frame.to) continue;
    const broken = p.value === null || (prevAt !== null && p.at - prevAt > maxGap);
    if (broken && run.length > 0) {
      out.push(run);
      run = [];
    }
    prevAt = p.at;
    if (p.value === null) continue;
    const x = ((p.at - frame.from) / span) * frame.width;
    const y = frame.height - (Math.min(p.value, top) / top) * frame.height;
    run.push([r(x), r(y)]);
  }
  if (run.length > 0) out.push(run);
  return out;
}

/** The stroke: one subpath per run; a lone point becomes a short dash so it stays visible. */
export function linePath(runs: readonly (readonly [number, number][])[]): string {
  return runs
    .map((run) => {
      const first = run[0];
      if (!first) return '';
      if (run.length === 1) return `M${r(first[0] - 1)} ${first[1]}H${r(first[0] + 1)}`;
      return run.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${x} ${y}`).join('');
    })
    .join('');
}

/** The fill under each run, closed on the baseline. */
export function areaPath(runs: readonly (readonly [number, number][])[], height: number): string {
  return runs
    .filter((run) => run.length > 1)
    .map((run) => {
      const first = run[0]!;
      const last = run[run.length - 1]!;
      return `M${first[0]} ${height}${run.map(([x, y]) => `L${x} ${y}`).join('')}L${last[0]} ${height}Z`;
    })
    .join('');
}

/** Spans where the member was not serving, as x ranges, for a red band along the chart's foot. */
export function downBands(points: readonly { at: number; serving: boolean }[], frame: Frame): { x: number; width: number }[] {
  const span = Math.max(1, frame.to - frame.from);
  const toX = (at: number) => r(((Math.min(Math.max(at, frame.from), frame.to) - frame.from) / span) * frame.width);
  const bands: { x: number; width: number }[] = [];
  let start: number | null = null;
  let prev: number | null = null;
  for (const p of points) {
    if (p.at < frame.from || p.at > frame.to) continue;
    if (!p.serving && start === null) start = prev ?? p.at;
    if (p.serving && start !== null) {
      bands.push({ x: toX(start), width: Math.max(1, r(toX(p.at) - toX(start))) });
      start = null;
    }
    prev = p.at;
  }
  if (start !== null && prev !== null) bands.push({ x: toX(start), width: Math.max(1, r(toX(prev) - toX(start))) });
  return bands;
}

/** Index of the point nearest in time to `at` (points sorted by time); -1 when there are none. */
export function nearestIndex(points: readonly { at: number }[], at: number): number {
  if (points.length === 0) return -1;
  let lo = 0;
  let hi = points.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((points[mid]?.at ?? 0) < at) lo = mid + 1;
    else hi = mid;
  }
  const before = points[lo - 1];
  const here = points[lo];
  if (before && here && at - before.at <= here.at - at) return lo - 1;
  return lo;
}
