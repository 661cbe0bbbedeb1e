/**
 * What a contender's state means for the lock, in one sentence: the part an operator needs
 * before deleting anything ("when the holder releases, this leaked node becomes the holder
 * and the lock deadlocks").
 */
import { formatDuration } from '../ensemble/sessions/flags.js';
import { shortName } from './chain.js';
import type { ContenderRole, ContenderStatus, HoldingRule, RecipeKind } from './schemas.js';

export interface ConsequenceInput {
  status: ContenderStatus;
  holding: boolean;
  kind: RecipeKind;
  rule: HoldingRule;
  role: ContenderRole;
  ownerId: string | null;
  ownerTimeoutMs: number | null;
  /** Links to the holder (0 for a holder). */
  depth: number;
  /** The nearest leaked or persistent node on its chain, with that node's owner. */
  stuck: { name: string; status: 'leaked' | 'persistent'; ownerId: string | null } | null;
  /** A holder that Keeper proved leaked while it waited: it reached the front with nobody who knows it (seed 002). */
  provenLeaked?: boolean;
}

function leakedHolder(c: ConsequenceInput): string {
  const end = sessionEnd(c.ownerId, c.ownerTimeoutMs);
  if (c.kind === 'semaphore') return `It was proven leaked before it got its lease: it holds a lease nobody uses until ${end} or someone deletes it.`;
  if (c.kind === 'election') return `It was proven leaked before it became the leader: nobody leads until ${end} or someone deletes it.`;
  return `It was proven leaked before it reached the front: it holds the lock for nobody who knows it, and the lock is deadlocked until ${end} or someone deletes it.`;
}

function sessionEnd(ownerId: string | null, timeoutMs: number | null): string {
  const session = ownerId ? `session ${ownerId}` : 'its session';
  return `${session} ends${timeoutMs !== null ? ` (timeout ${formatDuration(timeoutMs)})` : ''}`;
}

/** "When the holder releases" for the next in line, "When the 3 nodes it waits behind are gone" further back. */
function when(depth: number, nextEvent: string): string {
  return depth <= 1 ? `When ${nextEvent}` : `When the ${depth} nodes it waits behind are gone`;
}

function leaked(c: ConsequenceInput): string {
  const end = sessionEnd(c.ownerId, c.ownerTimeoutMs);
  if (c.kind === 'semaphore') return `When a lease frees up for it, this leaked node takes a lease nobody uses, until ${end}.`;
  if (c.role === 'reader')
    return `${when(c.depth, 'the writer ahead of it releases')}, this leaked read node holds the lock with nobody using it: writers wait until ${end}.`;
  if (c.kind === 'election') return `${when(c.depth, 'the leader steps down')}, this leaked node becomes the leader and nobody leads until ${end}.`;
  return `${when(c.depth, 'the holder releases')}, this leaked node becomes the holder and the lock deadlocks: its owner does not know it holds it, and the node stays until ${end}.`;
}

function persistent(c: ConsequenceInput): string {
  if (c.rule === 'all') return `No session's end removes it: ${c.kind === 'semaphore' ? 'it takes a lease for good' : 'it stays'} until someone deletes it.`;
  const election = c.kind === 'election';
  if (c.holding) {
    return election
      ? "It is the leader and no session's end removes it: nobody else leads until someone deletes it."
      : "It holds the lock and no session's end removes it: every waiter waits until someone deletes it.";
  }
  const next = election ? 'the leader steps down' : 'the holder releases';
  return `${when(c.depth, next)}, it becomes the ${election ? 'leader' : 'holder'} and, as no session's end removes it, the lock deadlocks until someone deletes it.`;
}

function behind(c: ConsequenceInput, stuck: NonNullable<ConsequenceInput['stuck']>): string {
  const until = stuck.status === 'leaked' ? `${sessionEnd(stuck.ownerId, null)} or someone deletes that node` : 'someone deletes that node';
  return `It waits behind ${stuck.status} node ${shortName(stuck.name)}: it gets the ${c.kind === 'election' ? 'leadership' : 'lock'} only after ${until}.`;
}

export function contenderConsequence(c: ConsequenceInput): string | null {
  switch (c.status) {
    case 'leaked':
      return leaked(c);
    case 'persistent':
      return persistent(c);
    case 'waiting':
      return c.stuck && c.rule !== 'none' ? behind(c, c.stuck) : null;
    case 'holder':
      return c.provenLeaked ? leakedHolder(c) : null;
    default: {
      const unreachable: never = c.status;
      throw new Error(`unknown status ${String(unreachable)}`);
    }
  }
}
