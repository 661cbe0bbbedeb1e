/**
 * Request rates in the sessions view: how a rate reads, and the sessions grouped by client host
 * ("120 sessions from 10.0.0.5, 1,900 req/s"), busiest first. Pure, tested without a browser.
 */
import { clientHost, type EnsembleSession } from '@keeper/shared';
import { NONE } from '../../ui/format';

/** Tenths below 10/s (an idle session pings about 0.1/s), whole numbers with separators above. */
export function rateText(rate: number | null): string {
  if (rate === null) return NONE;
  return rate < 10 ? rate.toFixed(1).replace(/\.0$/, '') : Math.round(rate).toLocaleString('en-US');
}

export interface HostGroup {
  host: string;
  sessions: number;
  /** Sum of the known rates; null when no session of the host has one yet. */
  requestsPerSecond: number | null;
  /** Sessions of the host without a rate (first reading, or no connection). */
  withoutRate: number;
}

/** Sessions by client host, the busiest first; sessions without a connection are grouped as "no connection". */
export function groupByHost(sessions: readonly EnsembleSession[]): HostGroup[] {
  const groups = new Map<string, HostGroup>();
  for (const s of sessions) {
    const host = s.client === '' ? '' : clientHost(s.client);
    const g = groups.get(host) ?? { host, sessions: 0, requestsPerSecond: null, withoutRate: 0 };
    const rate = s.requestsPerSecond ?? null;
    groups.set(host, {
      ...g,
      sessions: g.sessions + 1,
      requestsPerSecond: rate === null ? g.requestsPerSecond : (g.requestsPerSecond ?? 0) + rate,
      withoutRate: g.withoutRate + (rate === null ? 1 : 0),
    });
  }
  return [...groups.values()].sort(
    (a, b) => (b.requestsPerSecond ?? -1) - (a.requestsPerSecond ?? -1) || b.sessions - a.sessions || a.host.localeCompare(b.host, 'en', { numeric: true }),
  );
}
