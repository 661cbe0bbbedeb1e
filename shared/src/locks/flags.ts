/**
 * Flags on a contender, each with the sentence an operator needs. The owner's facts come from
 * the sessions view's data (joinSessions), so both views say the same about a session:
 *  - `long-timeout`: the owner's timeout is 60 s or more; if it died, its nodes stay that long
 *    (seed 000: 15-minute sessions held dead workers' tasks for 15 minutes);
 *  - `silent`: the sessions view's silence rule (sessions/flags.ts: a missed ping, at about a
 *    third of the timeout plus an allowance, never later than two thirds); a lower bound of
 *    the silence, so a live owner is never flagged;
 *  - `no-connection`: on no member's connection list (not flagged when a member could not be asked);
 *  - `held-long`: held past a threshold (config `locks.heldLongMs`);
 *  - `leaked-holder`: it holds, and was proven leaked while it waited: its status stays `holder`
 *    (it holds by the recipe's rule), so the flag is what says on its row that nobody uses the hold.
 */
import { formatDuration } from '../ensemble/sessions/flags.js';
import type { EnsembleSession } from '../ensemble/types.js';
import type { ContenderFlag, RecipeKind } from './schemas.js';

export const LOCK_LONG_TIMEOUT_MS = 60_000;

/** The parts of a sessions-view session that the Locks view reads. */
export type OwnerSession = Pick<EnsembleSession, 'sessionId' | 'client' | 'member' | 'timeoutMs' | 'lastResponseAt' | 'flags'> &
  Partial<Pick<EnsembleSession, 'connected' | 'expiresAt'>>;

export interface ContenderFlagInput {
  /** null for a persistent node or an owner the sessions data does not list. */
  owner: OwnerSession | null;
  holding: boolean;
  kind: RecipeKind;
  heldForMs: number | null;
  heldLongMs: number;
  now: number;
  /** It holds, and Keeper proved it leaked while it waited (its owner watched nothing it waited for). */
  provenLeaked?: boolean;
}

/** "this hold" / "this leadership" / "this node": what stays if the owner is gone. */
function what(input: ContenderFlagInput): string {
  if (!input.holding) return 'this node';
  return input.kind === 'election' ? 'this leadership' : input.kind === 'semaphore' ? 'this lease' : 'this hold';
}

export function contenderFlags(input: ContenderFlagInput): ContenderFlag[] {
  const flags: ContenderFlag[] = [];
  const { owner } = input;
  if (input.holding && input.provenLeaked) {
    const nobody = input.kind === 'election' ? 'nobody leads' : input.kind === 'semaphore' ? 'the lease is used by nobody' : 'every waiter behind it waits';
    flags.push({
      kind: 'leaked-holder',
      message:
        `Proven leaked while it waited (its owner watched nothing it waited for): its owner does not know it holds, so ${nobody} ` +
        `until its session ends or someone deletes it (Delete on its row, with typed confirmation; Clean never deletes a holder).`,
    });
  }
  const timeout = owner?.timeoutMs ?? null;
  if (timeout !== null && timeout >= LOCK_LONG_TIMEOUT_MS) {
    flags.push({
      kind: 'long-timeout',
      message: `Its owner's session timeout is ${formatDuration(timeout)}: if its owner died, ${what(input)} lasts up to ${formatDuration(timeout)} more.`,
    });
  }
  if (owner?.flags.some((f) => f.kind === 'silent-near-timeout')) {
    const left = typeof owner.expiresAt === 'number' ? owner.expiresAt - input.now : null;
    const until = left !== null && left >= 1_000 ? `, in about ${formatDuration(left)}` : '';
    flags.push({
      kind: 'silent',
      message:
        `Its owner has sent nothing for a large part of its ${timeout !== null ? `${formatDuration(timeout)} ` : ''}timeout: it is stuck, paused or cut off. ` +
        `If it does not come back, ${what(input)} ends only when its session expires${until}.`,
    });
  }
  if (owner?.connected === false) {
    flags.push({
      kind: 'no-connection',
      message: `Its owner is connected to no member: if its client is gone, ${what(input)} stays until the session expires${timeout !== null ? ` (timeout ${formatDuration(timeout)})` : ''}.`,
    });
  }
  if (input.holding && input.heldForMs !== null && input.heldForMs >= input.heldLongMs) {
    flags.push({
      kind: 'held-long',
      message: `${input.kind === 'election' ? 'Leader' : 'Held'} for at least ${formatDuration(input.heldForMs)}, past the ${formatDuration(input.heldLongMs)} threshold.`,
    });
  }
  return flags;
}
