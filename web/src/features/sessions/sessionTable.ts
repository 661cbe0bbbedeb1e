/**
 * Sorting and filtering of the sessions table, pure so they are tested without a browser.
 * Missing figures (a member that did not report) sort last in either direction: an operator
 * sorting by latency wants the slowest sessions, not the unknown ones, at the top.
 */
import type { EnsembleSession } from '@keeper/shared';
import { toHexId } from '../../lib/zxid';

export const SORT_KEYS = [
  'sessionId',
  'client',
  'member',
  'timeout',
  'established',
  'lastResponse',
  'rate',
  'latency',
  'queued',
  'ephemerals',
  'flags',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDir = 'asc' | 'desc';
export interface Sort {
  key: SortKey;
  dir: SortDir;
}

/** Problems first: flagged sessions on top, then the longest silent. */
export const DEFAULT_SORT: Sort = { key: 'flags', dir: 'desc' };

/** The direction a column sorts in on its first click: what an operator looks for first. */
export const FIRST_DIR: Record<SortKey, SortDir> = {
  sessionId: 'asc',
  client: 'asc',
  member: 'asc',
  timeout: 'desc',
  established: 'asc',
  // Oldest response first: the silent sessions.
  lastResponse: 'asc',
  // The busiest first: who is hammering the ensemble.
  rate: 'desc',
  latency: 'desc',
  queued: 'desc',
  ephemerals: 'desc',
  flags: 'desc',
};

export function nextSort(current: Sort, key: SortKey): Sort {
  if (current.key !== key) return { key, dir: FIRST_DIR[key] };
  return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
}

function idValue(id: string): bigint | null {
  const hex = toHexId(id);
  if (!/^0x[0-9a-f]+$/.test(hex)) return null;
  return BigInt(hex);
}

export function compareIds(a: string, b: string): number {
  const x = idValue(a);
  const y = idValue(b);
  if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
  return a.localeCompare(b);
}

/** ip:port and host:port compared by host, then port as a number. */
export function compareAddresses(a: string, b: string): number {
  const [ha = '', pa = ''] = splitAddress(a);
  const [hb = '', pb = ''] = splitAddress(b);
  if (ha !== hb) return ha.localeCompare(hb, 'en', { numeric: true });
  return (Number(pa) || 0) - (Number(pb) || 0);
}

function splitAddress(address: string): [string, string] {
  const i = address.lastIndexOf(':');
  return i < 0 ? [address, ''] : [address.slice(0, i), address.slice(i + 1)];
}

type Value = number | string | null;

function value(s: EnsembleSession, key: SortKey): Value {
  switch (key) {
    case 'sessionId':
      return s.sessionId;
    case 'client':
      return s.client === '' ? null : s.client;
    case 'member':
      return s.member === '' ? null : s.member;
    case 'timeout':
      return s.timeoutMs;
    case 'established':
      return s.establishedAt;
    case 'lastResponse':
      return s.lastResponseAt;
    case 'rate':
      return s.requestsPerSecond ?? null;
    case 'latency':
      return s.latencyAvg;
    case 'queued':
      return s.queued;
    case 'ephemerals':
      return s.ephemeralCount;
    case 'flags':
      return s.flags.length;
    default: {
      const never: never = key;
      return never;
    }
  }
}

export function compareSessions(a: EnsembleSession, b: EnsembleSession, sort: Sort): number {
  const x = value(a, sort.key);
  const y = value(b, sort.key);
  if (x === null || y === null) {
    if (x !== y) return x === null ? 1 : -1;
  } else {
    let c: number;
    if (sort.key === 'sessionId') c = compareIds(String(x), String(y));
    else if (sort.key === 'client' || sort.key === 'member') c = compareAddresses(String(x), String(y));
    else c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    if (c !== 0) return sort.dir === 'asc' ? c : -c;
  }
  // Ties: flagged by their silence (oldest last response first), then by id, so the order is stable.
  if (sort.key === 'flags') {
    const la = a.lastResponseAt;
    const lb = b.lastResponseAt;
    if (la !== lb) return la === null ? 1 : lb === null ? -1 : la - lb;
  }
  return compareIds(a.sessionId, b.sessionId);
}

export function sortSessions(sessions: readonly EnsembleSession[], sort: Sort): EnsembleSession[] {
  return [...sessions].sort((a, b) => compareSessions(a, b, sort));
}

/** The text a filter token is matched against: id (with and without 0x), client, member, ephemerals, flags. */
function haystack(s: EnsembleSession): string {
  const id = toHexId(s.sessionId);
  return [
    id,
    id.slice(2),
    s.client,
    s.member,
    s.isConsole ? 'console' : '',
    s.connected === false ? 'no connection' : '',
    ...s.ephemerals,
    ...s.flags.flatMap((f) => [f.kind, f.message]),
  ]
    .join('\n')
    .toLowerCase();
}

/** Every whitespace-separated token must match somewhere (AND), case-insensitive. */
export function filterSessions(sessions: readonly EnsembleSession[], query: string, flaggedOnly: boolean): EnsembleSession[] {
  const tokens = query.toLowerCase().split(/\s+/).filter(Boolean);
  return sessions.filter((s) => {
    if (flaggedOnly && s.flags.length === 0) return false;
    if (tokens.length === 0) return true;
    const text = haystack(s);
    return tokens.every((t) => text.includes(t));
  });
}

/** Same session? Ids may come as hex of any case or padding, or decimal. */
export function sameSessionId(a: string, b: string): boolean {
  return toHexId(a) === toHexId(b);
}
