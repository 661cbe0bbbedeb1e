/** Builders for lock tests: node names as the real recipes write them, sessions, facts and watch gatherings. */
import type { ContenderFacts, OwnerSession, WatchGathering } from '../../src/locks/index.js';

export const seq = (n: number) => String(n).padStart(10, '0');
/** A uuid4().hex-like prefix, distinct per i and NOT in sequence order (so name order is wrong on purpose). */
export const hex32 = (i: number) => ((i * 2654435761) >>> 0).toString(16).padStart(8, '0').repeat(4);
export const uuid36 = (i: number) => {
  const h = hex32(i);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export const kazooLock = (i: number, n: number) => `${hex32(i)}__lock__${seq(n)}`;
export const kazooRead = (i: number, n: number) => `${hex32(i)}__rlock__${seq(n)}`;
export const curator = (i: number, lockName: string, n: number) => `_c_${uuid36(i)}-${lockName}${seq(n)}`;

export const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);

export function session(id: string, over: Partial<OwnerSession> = {}): OwnerSession {
  return {
    sessionId: id,
    client: '127.0.0.1:50000',
    member: '127.0.0.1:2191',
    timeoutMs: 30_000,
    lastResponseAt: T0,
    connected: true,
    expiresAt: null,
    flags: [],
    ...over,
  };
}

export function sessions(...list: OwnerSession[]): Map<string, OwnerSession> {
  return new Map(list.map((s) => [s.sessionId, s]));
}

export function facts(owner: string, over: Partial<ContenderFacts> = {}): ContenderFacts {
  return { ephemeralOwner: owner, ctime: T0 - 60_000, data: null, firstSeenAt: T0 - 60_000, ...over };
}

export interface GatheringOptions {
  /** Answers took this long (default 200 ms). */
  tookMs?: number;
  complete?: boolean;
  /** Sessions connected (default: every owner of the test, see CONNECTED). */
  connected?: readonly string[] | null;
}

export const CONNECTED = ['0xa', '0xb', '0xc', '0xd', '0xe'];

/** A wchp gathering asked at `at`; `watches` path -> session ids. */
export function gathering(at: number, watches: Record<string, string[]>, opts: GatheringOptions = {}): WatchGathering {
  const connected = opts.connected === undefined ? CONNECTED : opts.connected;
  return {
    askedAt: at,
    answeredAt: at + (opts.tookMs ?? 200),
    complete: opts.complete ?? true,
    watches: new Map(Object.entries(watches)),
    connectedSessions: connected === null ? null : new Set(connected),
  };
}

export const utf8 = (text: string) => new TextEncoder().encode(text);
