/**
 * How the Locks view writes the API's words: the status word keeps its exact spelling (scripts and
 * operators match on it) and gets a tone, never color alone; flags read as short labels whose
 * sentence is one hover or one keypress away.
 */
import type { Contender, ContenderFlag, ContenderFlagKind, ContenderOwner, ContenderStatus, LockReport } from '@keeper/shared';
import { formatClock } from '../../lib/time';
import type { Tone } from '../../ui/tone';
import { duration, NONE } from '../../ui/format';

/** leaked blocks a lock for good, persistent until someone acts; a waiter is normal; a holder is the lock working. */
export const STATUS_TONE: Record<ContenderStatus, Tone> = { leaked: 'lost', persistent: 'degraded', waiting: 'stale', holder: 'live' };

export const STATUS_HINT: Record<ContenderStatus, string> = {
  holder: 'holds the lock (by the recipe’s rule)',
  waiting: 'waits its turn',
  leaked: 'its owner is alive but watched nothing in this lock in every gathering across at least its session timeout: it will never act on its turn',
  persistent: 'ephemeralOwner is 0: no session’s end removes it',
};

export const FLAG_LABEL: Record<ContenderFlagKind, string> = {
  'leaked-holder': 'leaked, holds',
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

/** Whole seconds: a figure that ticks once a second. */
function whole(ms: number): string {
  return duration(Math.max(0, Math.floor(ms / 1000) * 1000));
}

/**
 * "held 4 min" / "held at least 22 s" / "waiting 78 s" at `now`, with where the start comes
 * from in `title`: a hold Keeper only saw under way never reads like a whole one (issue 22, item 7).
 */
export function timeInPlace(c: Contender, now: number): { text: string; title: string } {
  const since = c.heldSince;
  if (since) {
    const d = whole(now - since.at);
    switch (since.kind) {
      case 'created':
        return { text: `held ${d}`, title: `Held since it was created at ${formatClock(since.at)}: nothing before it was deleted since.` };
      case 'seen':
        return { text: `held ${d}`, title: `Held since ${formatClock(since.at)}, when Keeper saw the node before it go.` };
      case 'atLeast':
        return {
          text: `held at least ${d}`,
          title:
            `It already held when Keeper began watching at ${formatClock(since.at)}` +
            `${c.createdAt !== null ? ` (it was created at ${formatClock(c.createdAt)})` : ''}: its hold began before then, so it has held at least since ${formatClock(since.at)}.`,
        };
    }
  }
  if (c.waitingSince !== null)
    return { text: `waiting ${whole(now - c.waitingSince)}`, title: `Waiting since it was created at ${formatClock(c.waitingSince)} (its ctime).` };
  return { text: NONE, title: '' };
}

/**
 * The owner's last response as the sessions gathering read it (cons `lresp`): "1.2 s before
 * 12:00:03" (the gathering's time), never an age that grows with the gathering's own age
 * (issue 22, item 9).
 */
export function lastResponseWords(owner: ContenderOwner | null): { text: string; title: string } {
  if (!owner || owner.lastResponseAt === null) return { text: NONE, title: '' };
  const asOf = owner.lastResponseAsOf;
  if (asOf === null) return { text: NONE, title: '' };
  const before = Math.max(0, asOf - owner.lastResponseAt);
  return {
    text: `${before < 1000 ? '< 1 s' : duration(Math.round(before / 100) * 100)} before ${formatClock(asOf)}`,
    title: `From its member's cons (lresp) at the sessions gathering at ${formatClock(asOf)}: how long it had been silent then. Sessions are gathered again about once a minute while someone looks.`,
  };
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
