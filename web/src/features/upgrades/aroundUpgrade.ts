/**
 * What the upgrade does to the ensemble's clients, from what Keeper already watches: its own
 * ZooKeeper session (which member it is on, each move, any expiry) and each member's connection
 * count from the poller. Pure, so the sentences are tested without a socket.
 */
import type { ConsoleSessionSnapshot, EnsembleHealth } from '@keeper/shared';

export interface ConsoleMoves {
  /** The member the console is on now, or null while it is not connected. */
  now: string | null;
  /** Each move to another member since `since`, in order. */
  moves: { at: number; from: string | null; to: string }[];
  /** Expiries of the console's session seen since `since`: an upgrade should cause none. */
  expiries: number;
}

export function consoleMoves(session: ConsoleSessionSnapshot, since: number, until: number | null): ConsoleMoves {
  const within = (at: number) => at >= since && (until === null || at <= until);
  let last: string | null = null;
  const moves: ConsoleMoves['moves'] = [];
  let expiries = 0;
  for (const entry of session.timeline) {
    if (entry.state === 'expired' && within(entry.at)) expiries += 1;
    if (entry.member === null) continue;
    if (last !== null && entry.member !== last && within(entry.at)) moves.push({ at: entry.at, from: last, to: entry.member });
    last = entry.member;
  }
  return { now: session.member, moves, expiries };
}

/** The member's client connections at the last poll, or null when unknown (down, or not reported). */
export function connectionsOn(health: EnsembleHealth | undefined, address: string): number | null {
  return health?.members.find((m) => m.address === address)?.metrics.connections ?? null;
}
