/**
 * What one poll of one member found, and the member state it means. The server's prober
 * fills a ProbeResult from the network; classifying it is pure so every case is tested.
 */
import type { MemberState } from './types.js';
import type { SrvrInfo } from './parse/srvr.js';

export type ProbeResult =
  /** ECONNREFUSED: nothing listens (the FAQ's dead daemon). */
  | { kind: 'refused'; message: string }
  /** No (complete) answer within the deadline: hung, overloaded or partitioned. */
  | { kind: 'timeout'; afterMs: number }
  /**
   * Accepted, then closed or reset before a byte of answer: what a member does to a client
   * address at its maxClientCnxns (see connectionLimit.ts), or something that is not ZooKeeper.
   */
  | { kind: 'closed'; message: string }
  /** Anything else: reset mid-answer, unknown host, unreachable network, garbage. */
  | { kind: 'failed'; message: string }
  | {
      kind: 'answered';
      source: 'admin' | '4lw';
      /** "This ZooKeeper instance is not currently serving requests". */
      notServing: boolean;
      srvr: SrvrInfo | null;
      mntr: ReadonlyMap<string, string> | null;
      /** Four-letter words the member refused because of 4lw.commands.whitelist. */
      blocked: string[];
    };

export interface Classified {
  state: MemberState;
  detail: string | null;
}

/** The settings that let Keeper see everything; named in every whitelist message. */
export const WHITELIST_SETTING = '4lw.commands.whitelist';
export const RECOMMENDED_WORDS = ['srvr', 'mntr', 'conf', 'cons', 'dump', 'wchs', 'wchp'] as const;

export function whitelistAdvice(blocked: readonly string[]): string {
  const words = blocked.length > 0 ? blocked.join(', ') : 'the words Keeper needs';
  return (
    `${words} ${blocked.length === 1 ? 'is' : 'are'} not in ${WHITELIST_SETTING} and the AdminServer did not answer: ` +
    `add ${blocked.length === 1 ? 'it' : 'them'} (e.g. ${WHITELIST_SETTING}=${RECOMMENDED_WORDS.join(',')}) or enable the AdminServer (admin.enableServer=true)`
  );
}

/** The detail of a member in read-only mode (readonlymode.enabled): it lost its quorum and serves reads only. */
export const READ_ONLY_MODE_DETAIL = 'read-only mode: it has no quorum and serves reads only, possibly stale';

export function isReadOnlyMode(member: { state: string; detail: string | null }): boolean {
  return member.state === 'not-serving' && member.detail === READ_ONLY_MODE_DETAIL;
}

function modeState(mode: string | null): Classified | null {
  switch (mode) {
    case 'leader':
    case 'follower':
    case 'observer':
    case 'standalone':
      return { state: mode, detail: null };
    case 'read-only':
      // A read-only member lost its quorum and serves stale reads only (readonlymode.enabled).
      return { state: 'not-serving', detail: READ_ONLY_MODE_DETAIL };
    default:
      return null;
  }
}

export function classifyProbe(probe: ProbeResult, deadlineMs: number): Classified {
  switch (probe.kind) {
    case 'refused':
      return { state: 'down', detail: `connection refused: the ZooKeeper process is not running or not listening (${probe.message})` };
    case 'timeout':
      return {
        state: 'unreachable',
        detail: `no answer within ${(deadlineMs / 1000).toFixed(deadlineMs % 1000 === 0 ? 0 : 1)} s: a hung process (GC, disk), an overloaded member, or a network partition`,
      };
    case 'closed':
      return {
        state: 'unreachable',
        detail: `closed Keeper's connection at once, without an answer (${probe.message}): nothing else says it serves, so a connection limit (maxClientCnxns) cannot be told from a broken member`,
      };
    case 'failed':
      return { state: 'unreachable', detail: probe.message };
    case 'answered': {
      if (probe.notServing) {
        return {
          state: 'not-serving',
          detail: 'answers, but is not currently serving requests: it is not part of a quorum (electing, or cut off from the others)',
        };
      }
      const byMode = modeState(probe.srvr?.mode ?? null);
      const gap = probe.blocked.length > 0 ? whitelistAdvice(probe.blocked) : null;
      if (byMode) return { state: byMode.state, detail: [byMode.detail, gap].filter((x) => x !== null).join('; ') || null };
      if (probe.blocked.includes('srvr')) return { state: 'not-whitelisted', detail: gap };
      return { state: 'unknown', detail: probe.srvr?.mode ? `unrecognised mode "${probe.srvr.mode}"` : 'answered without a Mode' };
    }
    default: {
      const never: never = probe;
      throw new Error(`unhandled probe ${JSON.stringify(never)}`);
    }
  }
}
