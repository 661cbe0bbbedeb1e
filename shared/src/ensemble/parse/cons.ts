/**
 * `cons`: one line per connection on THAT member (sessions are spread over members):
 *
 *   /127.0.0.1:45396[1](queued=0,recved=7,sent=7,sid=0x100002f75570004,lop=GETD,
 *     est=1795322333613,to=900000,lcxid=0x6,lzxid=0x10000003a,lresp=3239377,llat=1,
 *     minlat=0,avglat=3,maxlat=8)
 *
 * A connection without a session (our own probe) has only queued/recved/sent.
 * `est` is wall-clock ms; `lresp` is NOT: it is the member's monotonic clock (ms since its
 * host booted, Time.currentElapsedTime), so it can only be compared with other lresp values
 * from the same member.
 */
import { toInteger, toNumber } from './numbers.js';
import { normalizeSessionId } from './sessionIds.js';
import { normalizeZxid } from '../zxid.js';

export interface ConsConnection {
  /** ip:port of the client, without Java's leading "/" or "hostname/". */
  client: string;
  queued: number | null;
  received: number | null;
  sent: number | null;
  /** Normalised "0x..." or null for a connection without a session. */
  sessionId: string | null;
  lastOperation: string | null;
  establishedAt: number | null;
  timeoutMs: number | null;
  lastZxid: string | null;
  /** The member's monotonic clock at the last response (see above). */
  lastResponseMono: number | null;
  latencyLast: number | null;
  latencyMin: number | null;
  latencyAvg: number | null;
  latencyMax: number | null;
}

const LINE = /^\s*(\S+?)\[[0-9a-fA-F]*\]\((.*)\)\s*$/;

function clientAddress(raw: string): string {
  const slash = raw.lastIndexOf('/');
  const address = slash === -1 ? raw : raw.slice(slash + 1);
  // Java 14+ prints IPv6 as [addr]:port; older ones as addr:port with the colons.
  return address;
}

export function parseConsLine(line: string): ConsConnection | null {
  const match = LINE.exec(line);
  if (!match) return null;
  const fields = new Map<string, string>();
  for (const pair of match[2]!.split(',')) {
    const eq = pair.indexOf('=');
    if (eq > 0) fields.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  const sid = fields.get('sid');
  return {
    client: clientAddress(match[1]!),
    queued: toNumber(fields.get('queued')),
    received: toNumber(fields.get('recved')),
    sent: toNumber(fields.get('sent')),
    sessionId: sid === undefined ? null : normalizeSessionId(sid),
    lastOperation: fields.get('lop') ?? null,
    establishedAt: toNumber(fields.get('est')),
    timeoutMs: toNumber(fields.get('to')),
    lastZxid: normalizeZxid(fields.get('lzxid')),
    lastResponseMono: toInteger(fields.get('lresp')),
    latencyLast: toNumber(fields.get('llat')),
    latencyMin: toNumber(fields.get('minlat')),
    latencyAvg: toNumber(fields.get('avglat')),
    latencyMax: toNumber(fields.get('maxlat')),
  };
}

export function parseCons(text: string): ConsConnection[] {
  const connections: ConsConnection[] = [];
  for (const line of text.split(/\r?\n/)) {
    const connection = parseConsLine(line);
    if (connection) connections.push(connection);
  }
  return connections;
}
