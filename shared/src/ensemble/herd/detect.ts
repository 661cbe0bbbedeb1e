/**
 * A request-rate herd (seed 000: a thousand workers looping getChildren('available') on a list
 * of 10^5 tasks, then racing to create pending/<id>). Not a watch herd, so wchp shows nothing:
 * it shows as many sessions sending requests at similar high rates while latency or
 * outstanding requests climb. Pure and stateless: each gathering decides afresh from its own
 * rates, so the herd clears at the first gathering after the loop stops.
 */
import type { Alert, EnsembleSession } from '../types.js';
import type { RequestHerd } from './schema.js';

export interface HerdThresholds {
  /** Sessions at similar high rates before it is a herd. */
  minSessions: number;
  /** A session's requests per second before it counts as hot. */
  minSessionRate: number;
  /** The herd's requests per second together. */
  minCombinedRate: number;
  /** Similar rates: within this factor of the hot sessions' median, either way. */
  similarity: number;
  /** Latency climbs: the herd's mean average latency (ms) reaches this... */
  latencyMs: number;
  /** ...or is this many times the other sessions' (when theirs is known and above zero)... */
  latencyRatio: number;
  /**
   * ...or this share of them had a request wait at least `slowRequestMs` (their cons maxlat). cons
   * prints whole milliseconds, so a sub-millisecond average hides queueing that the maximum shows:
   * 30 kazoo workers on 3,000 children averaged 1 ms while a third of them waited 50-270 ms.
   */
  slowShare: number;
  slowRequestMs: number;
  /** Outstanding requests climb: on one member, or queued for the herd's connections together. */
  outstanding: number;
  /** A child list at least this long is a candidate for the hammered node. */
  largeListChildren: number;
}

export const DEFAULT_HERD_THRESHOLDS: HerdThresholds = {
  minSessions: 10,
  minSessionRate: 5,
  minCombinedRate: 100,
  similarity: 4,
  latencyMs: 2,
  latencyRatio: 3,
  slowShare: 0.25,
  slowRequestMs: 50,
  outstanding: 10,
  largeListChildren: 1_000,
};

/** A znode Keeper holds already (a browser has it open), so naming it costs ZooKeeper nothing. */
export interface KnownList {
  path: string;
  numChildren: number;
  /** Its pzxid moved since the previous gathering: its child list keeps changing. */
  pzxidChanging: boolean;
}

export interface HerdInput {
  sessions: readonly EnsembleSession[];
  /** Requests outstanding on each serving member (mntr zk_outstanding_requests). */
  memberOutstanding: readonly (number | null)[];
  knownLists?: readonly KnownList[];
  thresholds?: Partial<HerdThresholds>;
}

/** What cons prints as `lop`, in the words of the client APIs. */
const OPERATION_NAMES: Record<string, string> = {
  GETC: 'getChildren',
  GETC2: 'getChildren2',
  GETD: 'getData',
  EXIS: 'exists',
  CREA: 'create',
  CRE2: 'create',
  SETD: 'setData',
  DELE: 'delete',
  MULT: 'multi',
  SYNC: 'sync',
  GACL: 'getACL',
  PING: 'ping',
  ALLC: 'getAllChildrenNumber',
};

export function operationName(lop: string): string {
  return OPERATION_NAMES[lop] ?? lop;
}

const isChildrenRead = (lop: string | null) => lop === 'GETC' || lop === 'GETC2';

export function clientHost(client: string): string {
  const i = client.lastIndexOf(':');
  const host = i < 0 ? client : client.slice(0, i);
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The herd in this gathering, or null. */
export function detectRequestHerd(input: HerdInput): RequestHerd | null {
  const t = { ...DEFAULT_HERD_THRESHOLDS, ...input.thresholds };
  const rate = (s: EnsembleSession) => s.requestsPerSecond ?? 0;
  const hot = input.sessions.filter((s) => !s.isConsole && rate(s) >= t.minSessionRate);
  if (hot.length < t.minSessions) return null;
  const m = median(hot.map(rate).sort((a, b) => a - b));
  const herd = hot.filter((s) => rate(s) >= m / t.similarity && rate(s) <= m * t.similarity);
  const combined = herd.reduce((n, s) => n + rate(s), 0);
  if (herd.length < t.minSessions || combined < t.minCombinedRate) return null;

  const inHerd = new Set(herd.map((s) => s.sessionId));
  const latencyAvgMs = mean(herd.flatMap((s) => (s.latencyAvg === null ? [] : [s.latencyAvg])));
  const latencyMaxMs = herd.reduce<number | null>((n, s) => (s.latencyMax === null ? n : Math.max(n ?? 0, s.latencyMax)), null);
  const others = input.sessions.filter((s) => !inHerd.has(s.sessionId) && s.latencyAvg !== null && s.connected !== false);
  const othersLatencyAvgMs = mean(others.map((s) => s.latencyAvg!));
  const queued = herd.reduce((n, s) => n + (s.queued ?? 0), 0);
  const outstanding = input.memberOutstanding.reduce<number | null>((n, o) => (o === null ? n : Math.max(n ?? 0, o)), null);

  const slowSessions = herd.filter((s) => s.latencyMax !== null && s.latencyMax >= t.slowRequestMs).length;
  const latencyClimbs =
    (latencyAvgMs !== null &&
      (latencyAvgMs >= t.latencyMs || (othersLatencyAvgMs !== null && othersLatencyAvgMs > 0 && latencyAvgMs >= t.latencyRatio * othersLatencyAvgMs))) ||
    slowSessions >= t.slowShare * herd.length;
  const outstandingClimbs = (outstanding ?? 0) >= t.outstanding || queued >= t.outstanding;
  if (!latencyClimbs && !outstandingClimbs) return null;

  const byHost = new Map<string, { sessions: number; rate: number }>();
  for (const s of herd) {
    const host = clientHost(s.client);
    const entry = byHost.get(host) ?? { sessions: 0, rate: 0 };
    byHost.set(host, { sessions: entry.sessions + 1, rate: entry.rate + rate(s) });
  }
  const hosts = [...byHost]
    .map(([host, e]) => ({ host, sessions: e.sessions, requestsPerSecond: Math.round(e.rate) }))
    .sort((a, b) => b.requestsPerSecond - a.requestsPerSecond || a.host.localeCompare(b.host));

  const operation = dominant(herd.map((s) => s.lastOperation ?? null));
  const target = isChildrenRead(operation) ? likelyTarget(input.knownLists ?? [], t.largeListChildren) : null;
  return {
    sessions: herd.length,
    requestsPerSecond: Math.round(combined),
    minRate: round1(Math.min(...herd.map(rate))),
    maxRate: round1(Math.max(...herd.map(rate))),
    hosts,
    operation,
    latencyAvgMs: latencyAvgMs === null ? null : round1(latencyAvgMs),
    latencyMaxMs,
    othersLatencyAvgMs: othersLatencyAvgMs === null ? null : round1(othersLatencyAvgMs),
    slowSessions,
    slowRequestMs: t.slowRequestMs,
    outstanding,
    queued,
    target,
  };
}

/** The operation more than half of them last sent, if any. */
function dominant(ops: readonly (string | null)[]): string | null {
  const counts = new Map<string, number>();
  for (const op of ops) if (op !== null && op !== 'PING') counts.set(op, (counts.get(op) ?? 0) + 1);
  const [best] = [...counts].sort((a, b) => b[1] - a[1]);
  return best && best[1] * 2 > ops.length ? best[0] : null;
}

/** The largest known child list past the size threshold; one whose pzxid keeps changing first. */
function likelyTarget(lists: readonly KnownList[], minChildren: number): RequestHerd['target'] {
  const large = lists
    .filter((l) => l.numChildren >= minChildren)
    .sort((a, b) => Number(b.pzxidChanging) - Number(a.pzxidChanging) || b.numChildren - a.numChildren);
  const best = large[0];
  return best ? { path: best.path, numChildren: best.numChildren, pzxidChanging: best.pzxidChanging } : null;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, word: string, many = `${word}s`) => `${fmt(n)} ${n === 1 ? word : many}`;

/** The one alert for a herd: who, how hard, what it does to latency, and seed 000's fix. */
export function herdAlert(herd: RequestHerd): Alert {
  const each = herd.minRate === herd.maxRate ? `${herd.minRate}` : `${herd.minRate}–${herd.maxRate}`;
  const hostList = herd.hosts
    .slice(0, 5)
    .map((h) => `${h.host} (${plural(h.sessions, 'session')}, ${fmt(h.requestsPerSecond)} req/s)`)
    .join(', ');
  const more = herd.hosts.length > 5 ? ` and ${plural(herd.hosts.length - 5, 'more host')}` : '';
  const op = herd.operation ? `, mostly ${operationName(herd.operation)}` : '';
  const latency = [
    herd.latencyAvgMs !== null ? `their average latency is ${herd.latencyAvgMs} ms` : null,
    herd.latencyMaxMs !== null ? `max ${fmt(herd.latencyMaxMs)} ms` : null,
    herd.othersLatencyAvgMs !== null ? `against ${herd.othersLatencyAvgMs} ms for the other sessions` : null,
    herd.slowSessions > 0 ? `${fmt(herd.slowSessions)} of them had a request wait ${herd.slowRequestMs} ms or more` : null,
  ]
    .filter(Boolean)
    .join(', ');
  const backlog = [
    herd.outstanding !== null && herd.outstanding > 0 ? `up to ${plural(herd.outstanding, 'request')} outstanding on a member` : null,
    herd.queued > 0 ? `${fmt(herd.queued)} queued for these sessions` : null,
  ]
    .filter(Boolean)
    .join(', ');
  const target = herd.target
    ? ` They most likely hammer ${herd.target.path} (${plural(herd.target.numChildren, 'child', 'children')}${herd.target.pzxidChanging ? ', its child list changing all the time' : ''}): every getChildren of it returns the whole list.`
    : '';
  return {
    id: 'request-herd',
    severity: 'warning',
    title: `Request herd: ${plural(herd.sessions, 'session')} from ${plural(herd.hosts.length, 'host')} send ${fmt(herd.requestsPerSecond)} req/s together${op}`,
    why:
      `${plural(herd.sessions, 'session')} send requests at similar high rates (${each} req/s each, ${fmt(herd.requestsPerSecond)} req/s combined) from ${hostList}${more}. ` +
      `Latency climbs: ${latency || 'not reported'}${backlog ? `; ${backlog}` : ''}.${target} ` +
      'This is a request herd, not a watch herd (wchp shows nothing): workers polling for work all at once, each request costing every other client latency.',
    action:
      'Back off with deadlines (kazoo: KazooRetry(max_tries=..., deadline=...); Curator: a RetryPolicy with a time limit) so a slow ensemble makes workers wait rather than ask harder. ' +
      'Take work through a queue or lock recipe, or one leader that hands out tasks, instead of every worker racing for it. ' +
      'Do not call getChildren on a huge list in a loop: watch it (one notification per change) or split it.',
    members: [],
  };
}
