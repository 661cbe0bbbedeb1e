/**
 * The AdminServer's JSON (`GET http://host:adminPort/commands/<name>`), read into the same
 * shapes as the four-letter words: `monitor` is mntr's keys without the zk_ prefix,
 * `server_stats` carries what srvr prints (Mode, zxid, latency, node count). Validated with
 * zod, leniently: unknown keys are kept, missing ones are null.
 */
import { z } from 'zod/mini';
import { normalizeZxid } from '../zxid.js';
import { parseJsonLossless } from './losslessJson.js';
import { toNumber } from './numbers.js';
import { normalizeSessionId } from './sessionIds.js';
import type { SrvrInfo } from './srvr.js';
import type { ConsConnection } from './cons.js';
import type { DumpInfo } from './dump.js';
import type { WatchSummary } from './watches.js';

/** Every command answers {command, error, ...}; error is a string when the member refused. */
const commandEnvelope = z.looseObject({ command: z.optional(z.string()), error: z.optional(z.nullable(z.string())) });

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const num = z.optional(z.nullable(z.union([z.number(), z.string()])));

const serverStatsSchema = z.looseObject({
  version: z.optional(z.nullable(z.string())),
  server_stats: z.optional(
    z.nullable(
      z.looseObject({
        packets_sent: num,
        packets_received: num,
        server_state: z.optional(z.nullable(z.string())),
        outstanding_requests: num,
        min_latency: num,
        avg_latency: num,
        max_latency: num,
        last_processed_zxid: num,
        num_alive_client_connections: num,
        uptime: num,
      }),
    ),
  ),
  node_count: num,
});

export type AdminAnswer<T> = { kind: 'ok'; value: T } | { kind: 'refused'; error: string } | { kind: 'invalid'; reason: string };

/** Parses an AdminServer body; `refused` when it answered {error: "..."} (e.g. not serving). */
export function readAdminBody(text: string): AdminAnswer<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = parseJsonLossless(text);
  } catch {
    return { kind: 'invalid', reason: 'not JSON' };
  }
  const envelope = commandEnvelope.safeParse(parsed);
  if (!envelope.success) return { kind: 'invalid', reason: 'not a command result' };
  if (typeof envelope.data.error === 'string' && envelope.data.error !== '') return { kind: 'refused', error: envelope.data.error };
  return { kind: 'ok', value: envelope.data as Record<string, unknown> };
}

/** `server_stats` as a srvr answer. */
export function srvrFromServerStats(body: Record<string, unknown>): SrvrInfo | null {
  const parsed = serverStatsSchema.safeParse(body);
  if (!parsed.success || !parsed.data.server_stats) return null;
  const stats = parsed.data.server_stats;
  return {
    version: parsed.data.version ?? null,
    latencyMin: toNumber(stats.min_latency),
    latencyAvg: toNumber(stats.avg_latency),
    latencyMax: toNumber(stats.max_latency),
    received: toNumber(stats.packets_received),
    sent: toNumber(stats.packets_sent),
    connections: toNumber(stats.num_alive_client_connections),
    outstanding: toNumber(stats.outstanding_requests),
    zxid: normalizeZxid(stats.last_processed_zxid ?? null),
    mode: stats.server_state?.toLowerCase() ?? null,
    nodeCount: toNumber(parsed.data.node_count),
  };
}

/** `monitor` as mntr's map (values as text, like mntr's). */
export function mntrFromMonitor(body: Record<string, unknown>): Map<string, string> {
  const values = new Map<string, string>();
  for (const [key, value] of Object.entries(body)) {
    if (key === 'command' || key === 'error') continue;
    const parsed = scalar.safeParse(value);
    if (parsed.success && parsed.data !== null) values.set(key.toLowerCase(), String(parsed.data));
  }
  return values;
}

const connectionSchema = z.looseObject({
  remote_socket_address: z.optional(z.string()),
  outstanding_requests: num,
  packets_received: num,
  packets_sent: num,
  session_id: z.optional(z.union([z.number(), z.string()])),
  last_operation: z.optional(z.nullable(z.string())),
  established: z.optional(z.nullable(z.union([z.number(), z.string()]))),
  session_timeout: num,
  last_zxid: num,
  last_response_time: num,
  last_latency: num,
  min_latency: num,
  avg_latency: num,
  max_latency: num,
});
const connectionsSchema = z.looseObject({ connections: z._default(z.array(connectionSchema), []) });

/** `connections` as cons lines (the fallback when cons is not whitelisted). */
export function consFromConnections(body: Record<string, unknown>): ConsConnection[] {
  const parsed = connectionsSchema.safeParse(body);
  if (!parsed.success) return [];
  return parsed.data.connections.map((c) => {
    const sessionId = c.session_id === undefined ? null : normalizeSessionId(c.session_id);
    const zxid = c.last_zxid === null || c.last_zxid === undefined ? null : normalizeZxid(c.last_zxid);
    return {
      client: c.remote_socket_address ?? '',
      queued: toNumber(c.outstanding_requests),
      received: toNumber(c.packets_received),
      sent: toNumber(c.packets_sent),
      sessionId: sessionId === '0x0' ? null : sessionId,
      lastOperation: c.last_operation ?? null,
      establishedAt: typeof c.established === 'number' ? c.established : toNumber(c.established ?? null),
      timeoutMs: toNumber(c.session_timeout),
      lastZxid: zxid,
      lastResponseMono: toNumber(c.last_response_time),
      latencyLast: toNumber(c.last_latency),
      latencyMin: toNumber(c.min_latency),
      latencyAvg: toNumber(c.avg_latency),
      latencyMax: toNumber(c.max_latency),
    };
  });
}

const dumpSchema = z.looseObject({
  session_id_to_ephemeral_paths: z._default(z.record(z.string(), z.array(z.string())), {}),
  expiry_time_to_session_ids: z._default(z.record(z.string(), z.array(z.union([z.string(), z.number()]))), {}),
});

/**
 * `dump` as DumpInfo (the fallback when the dump word is not whitelisted). Its expiry keys
 * are on the member's monotonic clock, not wall time, so only the session ids are kept.
 */
export function dumpFromAdmin(body: Record<string, unknown>): DumpInfo {
  const info: DumpInfo = { tracker: null, sessions: new Map(), ephemerals: new Map() };
  const parsed = dumpSchema.safeParse(body);
  if (!parsed.success) return info;
  for (const ids of Object.values(parsed.data.expiry_time_to_session_ids)) {
    for (const raw of ids) {
      const id = normalizeSessionId(raw);
      if (id) info.sessions.set(id, { timeoutMs: null, expiresAt: null });
    }
  }
  for (const [raw, paths] of Object.entries(parsed.data.session_id_to_ephemeral_paths)) {
    const id = normalizeSessionId(raw);
    if (!id) continue;
    info.ephemerals.set(id, [...paths].sort());
    if (!info.sessions.has(id)) info.sessions.set(id, { timeoutMs: null, expiresAt: null });
  }
  return info;
}

const watchSummarySchema = z.looseObject({ num_connections: num, num_paths: num, num_total_watches: num });

/** `watch_summary` as wchs. */
export function wchsFromAdmin(body: Record<string, unknown>): WatchSummary | null {
  const parsed = watchSummarySchema.safeParse(body);
  if (!parsed.success) return null;
  const connections = toNumber(parsed.data.num_connections);
  const paths = toNumber(parsed.data.num_paths);
  const watches = toNumber(parsed.data.num_total_watches);
  return connections === null || paths === null || watches === null ? null : { connections, paths, watches };
}

const watchesByPathSchema = z.looseObject({ path_to_session_ids: z._default(z.record(z.string(), z.array(z.union([z.string(), z.number()]))), {}) });

/** `watches_by_path` as wchp (session ids read losslessly: they are JSON numbers there). */
export function wchpFromAdmin(body: Record<string, unknown>): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  const parsed = watchesByPathSchema.safeParse(body);
  if (!parsed.success) return byPath;
  for (const [path, ids] of Object.entries(parsed.data.path_to_session_ids)) {
    byPath.set(
      path,
      ids.map((raw) => normalizeSessionId(raw)).filter((id): id is string => id !== null),
    );
  }
  return byPath;
}
