/** Figures as operators read them on a member card; null (not reported) is always an em dash, never 0. */
import { formatBytes, formatCount } from '../lib/bytes';

export const NONE = '—';

export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? NONE : formatCount(n);
}

export function bytes(n: number | null | undefined): string {
  return n === null || n === undefined ? NONE : formatBytes(n);
}

/** ZooKeeper reports latencies in ms, with decimals for the average: "0", "0.42", "12". */
export function ms(n: number | null | undefined): string {
  if (n === null || n === undefined) return NONE;
  if (n === 0 || n >= 100) return String(Math.round(n));
  if (n >= 10) return n.toFixed(1).replace(/\.0$/, '');
  return String(Number(n.toFixed(2)));
}

/** "0 / 0.42 / 12 ms" */
export function latencyTriple(min: number | null, avg: number | null, max: number | null): string {
  if (min === null && avg === null && max === null) return NONE;
  return `${ms(min)} / ${ms(avg)} / ${ms(max)} ms`;
}

/** A session timeout or any ms duration as a short human figure: "4 s", "30 s", "15 min", "1 h 30 min". */
export function duration(msValue: number | null | undefined): string {
  if (msValue === null || msValue === undefined) return NONE;
  if (msValue < 1000) return `${Math.round(msValue)} ms`;
  const s = msValue / 1000;
  if (s < 120) return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  const min = Math.round(s / 60);
  if (min < 120) return `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
}

/** "80 of 1,048,576" file descriptors, with the share when it matters. */
export function fds(open: number | null, max: number | null): string {
  if (open === null) return NONE;
  if (max === null || max <= 0) return formatCount(open);
  const share = open / max;
  return share >= 0.5 ? `${formatCount(open)} of ${formatCount(max)} (${Math.round(share * 100)}%)` : `${formatCount(open)} of ${formatCount(max)}`;
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${formatCount(n)} ${n === 1 ? word : many}`;
}
