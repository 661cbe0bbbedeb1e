/** How the Upgrades view names members and judges their role, in one place so every sentence agrees. */
import type { EnsembleHealth, MemberState, MemberStatus } from '../ensemble/types.js';
import { isObserver, isServing } from '../ensemble/quorum.js';
import type { PlannedRole } from './schemas.js';

interface Named {
  memberId: number | null;
  address: string;
  role?: PlannedRole;
}

/** "member 2" (or its address when the configuration gives no id). */
export function memberName(m: Pick<Named, 'memberId' | 'address'>): string {
  return m.memberId === null ? m.address : `member ${m.memberId}`;
}

/** "member 2", "observer 4", "the leader, member 1". */
export function memberLabel(m: Named): string {
  const id = m.memberId === null ? m.address : String(m.memberId);
  if (m.role === 'observer') return `observer ${id}`;
  if (m.role === 'leader') return `the leader, ${memberName(m)}`;
  return memberName(m);
}

/** "2", "observer 4", "the leader, 1": the short form of the "next:" list. */
export function memberShortLabel(m: Named): string {
  const id = m.memberId === null ? m.address : String(m.memberId);
  if (m.role === 'observer') return `observer ${id}`;
  if (m.role === 'leader') return `the leader, ${id}`;
  return id;
}

export function plannedRoleOf(m: MemberStatus): PlannedRole {
  if (isObserver(m)) return 'observer';
  if (m.state === 'leader') return 'leader';
  if (m.state === 'standalone') return 'standalone';
  return 'follower';
}

/**
 * Serving in the right role after its restart: an observer observes; a voter leads or follows
 * (the leader, restarted last, comes back a follower once another is elected); a standalone
 * server is standalone again.
 */
export function servesInRightRole(role: PlannedRole, state: MemberState): boolean {
  switch (role) {
    case 'observer':
      return state === 'observer';
    case 'follower':
    case 'leader':
      return state === 'follower' || state === 'leader';
    case 'standalone':
      return state === 'standalone';
    default: {
      const never: never = role;
      throw new Error(`unhandled role ${String(never)}`);
    }
  }
}

export function memberIn(health: EnsembleHealth, address: string): MemberStatus | null {
  return health.members.find((m) => m.address === address) ?? null;
}

export const voters = (health: EnsembleHealth): MemberStatus[] => health.members.filter((m) => !isObserver(m));

export function leaderOf(health: EnsembleHealth): MemberStatus | null {
  return health.members.find((m) => m.state === 'leader' || m.state === 'standalone') ?? null;
}

/** Why a member is not serving, in a few words: "down (connection refused)". */
export function notServingWords(m: MemberStatus): string {
  if (isServing(m)) return m.state;
  return m.detail ? `${m.state} (${m.detail})` : m.state;
}

export const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** "a", "a and b", "a, b and c". */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
