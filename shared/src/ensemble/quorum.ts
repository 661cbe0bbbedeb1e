/**
 * Majority-quorum arithmetic (ZooKeeper admin guide, the FAQ): N voters need floor(N/2)+1
 * of them to serve, so they tolerate floor((N-1)/2) failures; an even N adds none.
 * Observers never count: they neither vote nor make up a quorum.
 */
import type { MemberStatus, QuorumSummary } from './types.js';
import { SERVING_STATES } from './types.js';

export function quorumSize(voters: number): number {
  return voters <= 0 ? 1 : Math.floor(voters / 2) + 1;
}

export function tolerance(voters: number): number {
  return voters <= 0 ? 0 : Math.floor((voters - 1) / 2);
}

/** Further voter failures the ensemble survives with `serving` voters up (0 = at the edge, or no quorum). */
export function canLose(voters: number, serving: number): number {
  return Math.max(0, Math.min(voters, serving) - quorumSize(voters));
}

export function hasQuorumWith(voters: number, serving: number): boolean {
  return voters > 0 && serving >= quorumSize(voters);
}

/** Observer by configuration, else by what it says it is. */
export function isObserver(m: Pick<MemberStatus, 'configuredRole' | 'state'>): boolean {
  return m.configuredRole === 'observer' || (m.configuredRole === null && m.state === 'observer');
}

export function isServing(m: Pick<MemberStatus, 'state'>): boolean {
  return SERVING_STATES.includes(m.state);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function summarizeQuorum(members: readonly Pick<MemberStatus, 'configuredRole' | 'state'>[]): QuorumSummary {
  const voters = members.filter((m) => !isObserver(m));
  const observers = members.filter(isObserver);
  const votersServing = voters.filter(isServing).length;
  const observersServing = observers.filter(isServing).length;
  const size = quorumSize(voters.length);
  // A serving leader (or standalone) proves a quorum even if Keeper cannot see every voter.
  const leaderSeen = voters.some((m) => m.state === 'leader' || m.state === 'standalone');
  const hasQuorum = hasQuorumWith(voters.length, votersServing) || leaderSeen;
  const canLoseNow = hasQuorum ? canLose(voters.length, votersServing) : 0;
  const tolerates = tolerance(voters.length);

  let sentence: string;
  if (voters.length === 0) sentence = 'No voting members known yet';
  else if (!hasQuorum) sentence = `No quorum: ${votersServing} of ${voters.length} voters serving, ${size} needed`;
  else if (votersServing < size)
    sentence = `A leader is serving, but Keeper sees only ${votersServing} of ${voters.length} voters; it cannot tell how many more failures it takes`;
  else {
    sentence = `${votersServing} of ${voters.length} voters serving; tolerates ${plural(tolerates, 'failure')}`;
    if (votersServing < voters.length) sentence += canLoseNow === 0 ? ', none left now' : `, ${canLoseNow} more now`;
  }
  if (observers.length > 0) sentence += `; ${observersServing} of ${plural(observers.length, 'observer')} serving`;
  return { voters: voters.length, votersServing, observers: observers.length, observersServing, quorumSize: size, hasQuorum, tolerates, canLoseNow, sentence };
}
