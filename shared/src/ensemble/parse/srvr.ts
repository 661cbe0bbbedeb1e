/**
 * `srvr` (and the summary lines of `stat`): "Key: value" lines. Lenient: unknown lines are
 * ignored, missing ones are null, so 3.4 through 3.9 all read.
 *
 *   Zookeeper version: 3.8.0-..., built on ...
 *   Latency min/avg/max: 0/0.0/0
 *   Received: 4   Sent: 3   Connections: 1   Outstanding: 0
 *   Zxid: 0x100000000
 *   Mode: leader
 *   Node count: 5
 */
import { toNumber } from './numbers.js';
import { normalizeZxid } from '../zxid.js';

export interface SrvrInfo {
  version: string | null;
  latencyMin: number | null;
  latencyAvg: number | null;
  latencyMax: number | null;
  received: number | null;
  sent: number | null;
  connections: number | null;
  outstanding: number | null;
  /** Normalised hex ("0x100000000"). */
  zxid: string | null;
  /** As printed: leader, follower, observer, standalone, read-only. */
  mode: string | null;
  nodeCount: number | null;
}

/** The fields of a srvr answer, or null when the text has neither a Mode nor a version line. */
export function parseSrvr(text: string): SrvrInfo | null {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const version = fields.get('zookeeper version') ?? null;
  const mode = fields.get('mode')?.toLowerCase() ?? null;
  if (version === null && mode === null) return null;
  const [min, avg, max] = (fields.get('latency min/avg/max') ?? '').split('/');
  return {
    version,
    latencyMin: toNumber(min),
    latencyAvg: toNumber(avg),
    latencyMax: toNumber(max),
    received: toNumber(fields.get('received')),
    sent: toNumber(fields.get('sent')),
    connections: toNumber(fields.get('connections')),
    outstanding: toNumber(fields.get('outstanding')),
    zxid: normalizeZxid(fields.get('zxid')),
    mode: mode === '' ? null : mode,
    nodeCount: toNumber(fields.get('node count')),
  };
}
