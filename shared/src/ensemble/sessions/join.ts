/**
 * The ensemble's sessions: `cons` from every member (each lists only its own connections)
 * joined by session id with one member's `dump` (every session, its ephemerals, and on the
 * leader its expiry). Pure: the collector passes the answers and the previous sightings.
 */
import type { EnsembleSession } from '../types.js';
import type { ConsConnection } from '../parse/cons.js';
import type { DumpInfo } from '../parse/dump.js';
import { normalizeSessionId } from '../parse/sessionIds.js';
import { estimateSilence, silenceFromDump, type SilenceSighting } from './silence.js';
import { sessionFlags } from './flags.js';
import { ratesBetween, readingTime, roundRate, type CounterReading } from './rates.js';

export interface MemberConnections {
  /** host:clientPort of the member. */
  member: string;
  connections: readonly ConsConnection[];
  /** Keeper's clock when cons was asked and when its answer had arrived (default: the join's `now`). */
  askedAt?: number;
  answeredAt?: number;
}

export interface JoinInput {
  now: number;
  cons: readonly MemberConnections[];
  dump: DumpInfo | null;
  /** true when some member could not be asked for cons: absence proves nothing then. */
  consIncomplete: boolean;
  consoleSessionId: string | null;
  /** Sightings from the previous gathering, by `${member} ${sessionId}`. */
  sightings: ReadonlyMap<string, SilenceSighting>;
  /** Each session's recved/sent at the previous gathering, by session id (for its rates). */
  readings?: ReadonlyMap<string, CounterReading>;
}

export interface JoinResult {
  sessions: EnsembleSession[];
  sightings: Map<string, SilenceSighting>;
  readings: Map<string, CounterReading>;
}

export function joinSessions(input: JoinInput): JoinResult {
  const consoleId = input.consoleSessionId ? normalizeSessionId(input.consoleSessionId) : null;
  const sightings = new Map<string, SilenceSighting>();
  const readings = new Map<string, CounterReading>();
  const sessions: EnsembleSession[] = [];
  const seen = new Set<string>();
  const dumpEntry = (id: string) => input.dump?.sessions.get(id) ?? null;
  const ephemeralsOf = (id: string) => input.dump?.ephemerals.get(id) ?? [];

  for (const { member, connections, askedAt = input.now, answeredAt = input.now } of input.cons) {
    const freshest = Math.max(-Infinity, ...connections.map((c) => c.lastResponseMono ?? -Infinity));
    for (const c of connections) {
      if (c.sessionId === null || seen.has(c.sessionId)) continue;
      seen.add(c.sessionId);
      const fromDump = dumpEntry(c.sessionId);
      const timeoutMs = c.timeoutMs ?? fromDump?.timeoutMs ?? null;
      const expiresAt = fromDump?.expiresAt ?? null;
      const key = `${member} ${c.sessionId}`;
      const { silentMs, sighting } = estimateSilence({
        askedAt,
        answeredAt,
        lastResponseMono: c.lastResponseMono,
        memberFreshestMono: Number.isFinite(freshest) ? freshest : null,
        previous: input.sightings.get(key),
      });
      if (sighting) sightings.set(key, sighting);
      const ephemerals = ephemeralsOf(c.sessionId);
      const reading: CounterReading = { member, received: c.received, sent: c.sent, at: readingTime(askedAt, answeredAt) };
      readings.set(c.sessionId, reading);
      const rates = ratesBetween(input.readings?.get(c.sessionId), reading);
      sessions.push({
        sessionId: c.sessionId,
        client: c.client,
        member,
        timeoutMs,
        establishedAt: c.establishedAt,
        // At the latest: the silence is a lower bound, counted at the member's reading.
        lastResponseAt: silentMs === null ? null : answeredAt - silentMs,
        latencyMin: c.latencyMin,
        latencyAvg: c.latencyAvg,
        latencyMax: c.latencyMax,
        queued: c.queued,
        received: c.received,
        sent: c.sent,
        requestsPerSecond: roundRate(rates.receivedPerSecond),
        sentPerSecond: roundRate(rates.sentPerSecond),
        lastOperation: c.lastOperation,
        ephemeralCount: ephemerals.length,
        ephemerals,
        isConsole: c.sessionId === consoleId,
        connected: true,
        expiresAt,
        flags: sessionFlags({ timeoutMs, silentMs, ephemeralCount: ephemerals.length, connected: true }),
      });
    }
  }

  // Sessions the ensemble still holds but nobody we asked is connected for.
  for (const [id, entry] of input.dump?.sessions ?? []) {
    if (seen.has(id)) continue;
    seen.add(id);
    const ephemerals = ephemeralsOf(id);
    const connected = input.consIncomplete ? null : false;
    const silentMs = silenceFromDump({ now: input.now, expiresAt: entry.expiresAt, timeoutMs: entry.timeoutMs });
    sessions.push({
      sessionId: id,
      client: '',
      member: '',
      timeoutMs: entry.timeoutMs,
      establishedAt: null,
      lastResponseAt: silentMs === null ? null : input.now - silentMs,
      latencyMin: null,
      latencyAvg: null,
      latencyMax: null,
      queued: null,
      received: null,
      sent: null,
      requestsPerSecond: null,
      sentPerSecond: null,
      lastOperation: null,
      ephemeralCount: ephemerals.length,
      ephemerals,
      isConsole: id === consoleId,
      ...(connected === null ? {} : { connected }),
      expiresAt: entry.expiresAt,
      flags: sessionFlags({ timeoutMs: entry.timeoutMs, silentMs, ephemeralCount: ephemerals.length, connected }),
    });
  }

  sessions.sort((a, b) => b.flags.length - a.flags.length || a.member.localeCompare(b.member) || a.sessionId.localeCompare(b.sessionId));
  return { sessions, sightings, readings };
}
