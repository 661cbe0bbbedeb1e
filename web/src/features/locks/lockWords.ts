/**
 * How the Locks view writes the API's words: the status word keeps its exact spelling (scripts and
 * operators match on it) and gets a tone, never color alone; flags read as short labels whose
 * sentence is one hover or one keypress away.
 */
import type { Contender, ContenderFlag, ContenderFlagKind, ContenderStatus, LockReport } from '@keeper/shared';
import type { Tone } from '../../ui/tone';
import { duration, NONE } from '../ensemble/format';

/** leaked blocks a lock for good, persistent until someone acts; a waiter is normal; a holder is the lock working. */
export const STATUS_TONE: Record<ContenderStatus, Tone> = { leaked: 'lost', persistent: 'degraded', waiting: 'stale', holder: 'live' };

export const STATUS_HINT: Record<ContenderStatus, string> = {
  holder: 'holds the lock (by the recipe’s rule)',
  waiting: 'waits its turn',
  leaked: 'its owner is alive but watches nothing in this lock, in two gatherings at least 10 s apart: it will never act on its turn',
  persistent: 'ephemeralOwner is 0: no session’s end removes it',
};

export const FLAG_LABEL: Record<ContenderFlagKind, string> = {
  'long-timeout': 'long timeout',
  silent: 'silent',
  'no-connection': 'no connection',
  'held-long': 'held long',
};

/** The distinct flags of a lock's listed contenders, most common first: the list shows the first few. */
export function lockFlags(lock: LockReport): ContenderFlag[] {
  const byKind = new Map<ContenderFlagKind, { flag: ContenderFlag; n: number }>();
  for (const c of lock.contenders) {
    for (const f of c.flags) {
      const seen = byKind.get(f.kind);
      if (seen) seen.n += 1;
      else byKind.set(f.kind, { flag: f, n: 1 });
    }
  }
  return [...byKind.values()].sort((a, b) => b.n - a.n).map((e) => e.flag);
}

/** "held 4 min" / "waiting 12 s" / em dash. */
export function timeInPlace(c: Contender): string {
  if (c.heldForMs !== null) return `held ${duration(c.heldForMs)}`;
  if (c.waitingForMs !== null) return `waiting ${duration(c.waitingForMs)}`;
  return NONE;
}

/** The decoded data as one line, with what kind it is ("worker-1", "participant id"). */
export function dataText(c: Contender): { text: string; kind: string } {
  const kind = { identifier: 'identifier', 'participant-id': 'participant id', 'client-ip': 'client IP', text: 'text', binary: 'binary', empty: 'empty' }[
    c.data.kind
  ];
  return { text: c.data.text ?? NONE, kind };
}

/** Whether an admin may be offered Delete for this row, and whether it needs the typed name (a node in a holding position). */
export function deleteMode(c: Contender): 'none' | 'confirm' | 'typed' {
  if (c.version === null) return 'none';
  if (c.holding || c.status === 'holder') return 'typed';
  if (c.status === 'leaked' || c.status === 'persistent') return 'confirm';
  return 'none';
}

/** The chain to draw for the lock as a whole: the longest one among the listed contenders. */
export function longestChain(lock: LockReport): string | null {
  let best: Contender | null = null;
  for (const c of lock.contenders) if (c.waitsFor && (!best?.waitsFor || c.waitsFor.links > best.waitsFor.links)) best = c;
  return best?.waitsFor?.text ?? null;
}
