/**
 * A request-rate herd (seed 000: a thousand workers looping getChildren('available') on a list
 * of 10^5 tasks, then racing to create pending/<id>). It shows as many sessions of one client
 * group sending requests at similar rates while latency or outstanding requests climb.
 *
 * The rule is relative, because a herd slows the ensemble and so each of its sessions: 75 workers
 * named at 5 req/s each fell to 4 req/s apiece four gatherings later while still sending 312-369
 * req/s together, and a fixed per-session floor let go of them just as the ensemble suffered most.
 * So a group is a herd when its sessions' summed rate is high, or when their share of all the
 * requests the ensemble receives is high; any session sending more than an idle client's pings
 * counts. Once a group is a herd, every session of it sending the same request is counted, however
 * slowly it goes: 200 workers looping getChildren were called "103 sessions" when only the fastest
 * counted (issue 34 item 7), and the rest were "the other sessions". Pure: one gathering in, the
 * herd of that gathering out (track.ts remembers across them).
 */
import { normalizeSessionId } from '../parse/sessionIds.js';
import type { EnsembleSession } from '../types.js';
import type { RequestHerd } from './schema.js';

export interface RequestHerdThresholds {
  /** Sessions of one group at similar rates before it is a herd. */
  minSessions: number;
  /** A session sending at least this (requests per second) is active; an idle client pings about 0.1/s. */
  activeRate: number;
  /** The group's requests per second together: a herd on this alone... */
  minCombinedRate: number;
  /** ...or this share of all the requests the sessions send (0-1)... */
  minShare: number;
  /** ...when they send at least this much together (a few clients on an idle ensemble are no herd). */
  minShareRate: number;
  /** Similar rates: within this factor of the group's median, either way. */
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
  /** A path at least this share of the herd's sessions watch (wchp) is named as theirs. */
  watchedShare: number;
  /** wchp older than this says nothing about the gathering. */
  watchesMaxAgeMs: number;
  /**
   * A named herd stays named, whatever its latency, while its sessions still send at least this
   * many requests per second of the same request together, and `minShare` of all requests
   * (track.ts): 200 workers at 0.2 req/s each are 40 req/s of identical getChildren.
   */
  holdRate: number;
}

export const DEFAULT_REQUEST_HERD_THRESHOLDS: RequestHerdThresholds = {
  minSessions: 10,
  activeRate: 1,
  minCombinedRate: 100,
  minShare: 0.5,
  minShareRate: 50,
  similarity: 4,
  latencyMs: 2,
  latencyRatio: 3,
  slowShare: 0.25,
  slowRequestMs: 50,
  outstanding: 10,
  largeListChildren: 1_000,
  watchedShare: 0.5,
  watchesMaxAgeMs: 5 * 60_000,
  holdRate: 20,
};

/** A znode Keeper holds already (a browser has it open), so naming it costs ZooKeeper nothing. */
export interface KnownList {
  path: string;
  numChildren: number;
  /** Its pzxid moved since the previous gathering: its child list keeps changing. */
  pzxidChanging: boolean;
}

/** The latest wchp Keeper already has (the Watches view's or the Locks view's), never one asked for this. */
export interface WatchSighting {
  gatheredAt: number;
  /** Every serving member answered. */
  complete: boolean;
  /** Where it came from, for the sentence: the Watches view's wchp or the Locks view's gathering. */
  source: 'watches' | 'locks';
  paths: readonly { path: string; sessions: readonly string[] }[];
}

export interface RequestHerdInput {
  sessions: readonly EnsembleSession[];
  /** Requests outstanding on each serving member (mntr zk_outstanding_requests). */
  memberOutstanding: readonly (number | null)[];
  knownLists?: readonly KnownList[];
  watches?: WatchSighting | null;
  /** The gathering's time, to judge the age of `watches`. */
  now?: number;
  thresholds?: Partial<RequestHerdThresholds>;
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
const rate = (s: EnsembleSession) => s.requestsPerSecond ?? 0;
const sum = (ss: readonly EnsembleSession[]) => ss.reduce((n, s) => n + rate(s), 0);

interface Group {
  kind: 'host' | 'operation' | 'all';
  key: string | null;
  sessions: EnsembleSession[];
}

/** The group's sessions within `similarity` of its median rate: the ones running the same loop. */
function similar(group: Group, similarity: number): Group {
  const m = median(group.sessions.map(rate).sort((a, b) => a - b));
  return { ...group, sessions: group.sessions.filter((s) => rate(s) >= m / similarity && rate(s) <= m * similarity) };
}

/** One client host; one operation across hosts (a fleet spread over data centres); or every active session. */
function candidateGroups(active: readonly EnsembleSession[]): Group[] {
  const byHost = new Map<string, EnsembleSession[]>();
  const byOperation = new Map<string, EnsembleSession[]>();
  for (const s of active) {
    const host = clientHost(s.client);
    byHost.set(host, [...(byHost.get(host) ?? []), s]);
    const op = s.lastOperation ?? null;
    if (op !== null && op !== 'PING') byOperation.set(op, [...(byOperation.get(op) ?? []), s]);
  }
  return [
    ...[...byHost].map(([key, sessions]) => ({ kind: 'host' as const, key, sessions })),
    ...[...byOperation].map(([key, sessions]) => ({ kind: 'operation' as const, key, sessions })),
    { kind: 'all', key: null, sessions: [...active] },
  ];
}

/** The busiest group that is a herd by rate or by share, or null. */
function herdGroup(input: RequestHerdInput, t: RequestHerdThresholds): { group: Group; rule: 'rate' | 'share'; combined: number; total: number } | null {
  const clients = input.sessions.filter((s) => !s.isConsole);
  const total = sum(clients);
  const active = clients.filter((s) => rate(s) >= t.activeRate);
  let best: { group: Group; rule: 'rate' | 'share'; combined: number; total: number } | null = null;
  for (const candidate of candidateGroups(active)) {
    if (candidate.sessions.length < t.minSessions) continue;
    const group = similar(candidate, t.similarity);
    if (group.sessions.length < t.minSessions) continue;
    const combined = sum(group.sessions);
    const rule = combined >= t.minCombinedRate ? 'rate' : total > 0 && combined / total >= t.minShare && combined >= t.minShareRate ? 'share' : null;
    if (rule === null) continue;
    if (!best || combined > best.combined || (combined === best.combined && group.sessions.length > best.group.sessions.length))
      best = { group, rule, combined, total };
  }
  return best;
}

/** The operation more than half of them last sent (pings left out), or null. */
function dominantOperation(sessions: readonly EnsembleSession[]): string | null {
  const top = operationCounts(sessions)[0];
  return top && top.sessions * 2 > sessions.length ? top.operation : null;
}

/**
 * The herd and every other session of its group sending the same request (its last operation the
 * herd's), at whatever rate it was measured: the slow ones are the same loop, slowed. Without one
 * operation they share, the herd is what the rule found.
 */
function sameRequest(
  input: RequestHerdInput,
  group: Pick<Group, 'kind' | 'key'>,
  found: readonly EnsembleSession[],
  operation: string | null,
): EnsembleSession[] {
  if (operation === null) return [...found];
  const ids = new Set(found.map((s) => s.sessionId));
  const more = input.sessions.filter(
    (s) =>
      !ids.has(s.sessionId) &&
      !s.isConsole &&
      s.connected !== false &&
      rate(s) > 0 &&
      s.lastOperation === operation &&
      (group.kind !== 'host' || clientHost(s.client) === group.key),
  );
  return [...found, ...more];
}

/** The herd in this gathering, or null. */
export function detectRequestHerd(input: RequestHerdInput): RequestHerd | null {
  const t = { ...DEFAULT_REQUEST_HERD_THRESHOLDS, ...input.thresholds };
  const found = herdGroup(input, t);
  if (!found) return null;
  const gate = herdEffect(input, found.group.sessions, t);
  if (!gate.latencyClimbs && !gate.outstandingClimbs) return null;
  const herd = sameRequest(input, found.group, found.group.sessions, dominantOperation(found.group.sessions));
  return describeRequestHerd(input, herd, t, { rule: found.rule, group: found.group, total: found.total, effect: herdEffect(input, herd, t) });
}

/**
 * The same sessions measured again in a later gathering (track.ts: a herd named before stays
 * named while it is below the threshold for a few gatherings); null when none of them has a rate.
 */
export function remeasureRequestHerd(input: RequestHerdInput, previous: RequestHerd): RequestHerd | null {
  const t = { ...DEFAULT_REQUEST_HERD_THRESHOLDS, ...input.thresholds };
  const ids = new Set(previous.sessionIds ?? []);
  const named = input.sessions.filter((s) => ids.has(s.sessionId) && s.requestsPerSecond !== null && s.requestsPerSecond !== undefined);
  if (named.length === 0) return null;
  const total = sum(input.sessions.filter((s) => !s.isConsole));
  const scope = { kind: previous.group?.kind ?? 'all', key: previous.group?.key ?? null };
  // Workers that joined the loop since it was named send the same request: they count too.
  const herd = sameRequest(input, scope, named, previous.operation);
  const described = describeRequestHerd(input, herd, t, {
    rule: previous.rule ?? 'rate',
    group: { ...scope, sessions: herd },
    total,
    effect: herdEffect(input, herd, t),
  });
  const combined = sum(herd);
  const standsOut = combined >= t.holdRate && total > 0 && combined / total >= t.minShare;
  return { ...described, heldByAggregate: standsOut };
}

interface Effect {
  latencyAvgMs: number | null;
  latencyMaxMs: number | null;
  othersLatencyAvgMs: number | null;
  slowSessions: number;
  outstanding: number | null;
  queued: number;
  latencyClimbs: boolean;
  outstandingClimbs: boolean;
}

/** What the herd does to latency and backlog. */
function herdEffect(input: RequestHerdInput, herd: readonly EnsembleSession[], t: RequestHerdThresholds): Effect {
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
  return { latencyAvgMs, latencyMaxMs, othersLatencyAvgMs, slowSessions, outstanding, queued, latencyClimbs, outstandingClimbs };
}

function describeRequestHerd(
  input: RequestHerdInput,
  herd: readonly EnsembleSession[],
  t: RequestHerdThresholds,
  { rule, group, total, effect }: { rule: 'rate' | 'share'; group: Group; total: number; effect: Effect },
): RequestHerd {
  const combined = sum(herd);
  const byHost = new Map<string, { sessions: number; rate: number }>();
  for (const s of herd) {
    const host = clientHost(s.client);
    const entry = byHost.get(host) ?? { sessions: 0, rate: 0 };
    byHost.set(host, { sessions: entry.sessions + 1, rate: entry.rate + rate(s) });
  }
  const hosts = [...byHost]
    .map(([host, e]) => ({ host, sessions: e.sessions, requestsPerSecond: Math.round(e.rate) }))
    .sort((a, b) => b.requestsPerSecond - a.requestsPerSecond || a.host.localeCompare(b.host));
  const operations = operationCounts(herd);
  const operation = dominantOperation(herd);
  const target = isChildrenRead(operation) ? likelyTarget(input.knownLists ?? [], t.largeListChildren) : null;
  return {
    sessions: herd.length,
    requestsPerSecond: Math.round(combined),
    minRate: round1(Math.min(...herd.map(rate))),
    maxRate: round1(Math.max(...herd.map(rate))),
    hosts,
    operation,
    operations,
    latencyAvgMs: effect.latencyAvgMs === null ? null : round1(effect.latencyAvgMs),
    latencyMaxMs: effect.latencyMaxMs,
    othersLatencyAvgMs: effect.othersLatencyAvgMs === null ? null : round1(effect.othersLatencyAvgMs),
    slowSessions: effect.slowSessions,
    slowRequestMs: t.slowRequestMs,
    outstanding: effect.outstanding,
    queued: effect.queued,
    target,
    rule,
    group: { kind: group.kind, key: group.key },
    shareOfRequests: total > 0 ? Math.round((combined / total) * 100) / 100 : null,
    allRequestsPerSecond: Math.round(total),
    sessionIds: herd.map((s) => s.sessionId).sort(),
    watched: watchedByHerd(input, herd, t),
  };
}

/** The operations they last sent (cons `lop`), most common first; pings left out. */
function operationCounts(herd: readonly EnsembleSession[]): { operation: string; sessions: number }[] {
  const counts = new Map<string, number>();
  for (const s of herd) {
    const op = s.lastOperation ?? null;
    if (op !== null && op !== 'PING') counts.set(op, (counts.get(op) ?? 0) + 1);
  }
  return [...counts]
    .map(([operation, sessions]) => ({ operation, sessions }))
    .sort((a, b) => b.sessions - a.sessions || a.operation.localeCompare(b.operation))
    .slice(0, 3);
}

/** What the latest wchp Keeper already holds says of their watches: the paths most of them watch, or that they watch none. */
function watchedByHerd(input: RequestHerdInput, herd: readonly EnsembleSession[], t: RequestHerdThresholds): RequestHerd['watched'] {
  const w = input.watches;
  const now = input.now ?? Date.now();
  if (!w || now - w.gatheredAt > t.watchesMaxAgeMs) return null;
  const ids = new Set(herd.flatMap((s) => normalizeSessionId(s.sessionId) ?? []));
  const paths = w.paths
    .map((p) => ({ path: p.path, herdWatchers: p.sessions.filter((id) => ids.has(normalizeSessionId(id) ?? id)).length, watchers: p.sessions.length }))
    .filter((p) => p.herdWatchers >= Math.max(1, t.watchedShare * herd.length))
    .sort((a, b) => b.herdWatchers - a.herdWatchers || a.path.localeCompare(b.path))
    .slice(0, 3);
  return { gatheredAt: w.gatheredAt, complete: w.complete, source: w.source, paths };
}

/** The largest known child list past the size threshold; one whose pzxid keeps changing first. */
function likelyTarget(lists: readonly KnownList[], minChildren: number): RequestHerd['target'] {
  const large = lists
    .filter((l) => l.numChildren >= minChildren)
    .sort((a, b) => Number(b.pzxidChanging) - Number(a.pzxidChanging) || b.numChildren - a.numChildren);
  const best = large[0];
  return best ? { path: best.path, numChildren: best.numChildren, pzxidChanging: best.pzxidChanging } : null;
}
