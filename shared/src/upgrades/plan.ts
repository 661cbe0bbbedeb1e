/**
 * The plan: who is restarted in which order, and what it costs. Observers first (they do not
 * vote), then followers, the leader last, so the ensemble holds exactly one election. A full
 * restart (the FAQ's other way) and any ensemble that tolerates no failure mean an outage:
 * the plan says so and asks for a typed confirmation.
 */
import type { EnsembleHealth, MemberStatus } from '../ensemble/types.js';
import { isServing } from '../ensemble/quorum.js';
import type { Confirmation, PlannedMember, PlannedRole, UpgradeMode, UpgradePlan } from './schemas.js';
import { memberLabel, memberName, notServingWords, plannedRoleOf, plural } from './members.js';

export interface PlanInput {
  health: EnsembleHealth;
  mode?: UpgradeMode;
  targetVersion?: string | null;
  note?: string | null;
  /** The shortest session timeout among the ensemble's clients (from the sessions view), when known. */
  shortestSessionTimeoutMs?: number | null;
}

const ROLE_ORDER: Record<PlannedRole, number> = { observer: 0, follower: 1, standalone: 2, leader: 2 };

/** Lower ids first within a role; members without an id after, by address. */
function byId(a: MemberStatus, b: MemberStatus): number {
  if (a.id !== null && b.id !== null) return a.id - b.id;
  if (a.id !== null) return -1;
  if (b.id !== null) return 1;
  return a.address.localeCompare(b.address);
}

export function orderMembers(health: EnsembleHealth): PlannedMember[] {
  return [...health.members]
    .sort((a, b) => ROLE_ORDER[plannedRoleOf(a)] - ROLE_ORDER[plannedRoleOf(b)] || byId(a, b))
    .map((m) => {
      const role = plannedRoleOf(m);
      return {
        memberId: m.id,
        address: m.address,
        host: m.host,
        clientPort: m.clientPort,
        adminPort: m.adminPort,
        role,
        label: memberLabel({ memberId: m.id, address: m.address, role }),
      };
    });
}

/** What to type to accept an outage of this ensemble. */
export const outagePhrase = (ensemble: string): string => `restart ${ensemble} with an outage`;

export function fullRestartRisk(shortestSessionTimeoutMs: number | null | undefined): string {
  const shortest =
    shortestSessionTimeoutMs !== null && shortestSessionTimeoutMs !== undefined ? ` (shortest here: ${formatSeconds(shortestSessionTimeoutMs)})` : '';
  return `A full restart is an outage: every client disconnects; sessions survive only if it is shorter than their timeouts${shortest}.`;
}

const formatSeconds = (ms: number) => `${Number.isInteger(ms / 1000) ? ms / 1000 : (ms / 1000).toFixed(1)} s`;

function orderSentence(order: readonly PlannedMember[]): string {
  if (order.length === 0) return 'No members to restart.';
  if (order.length === 1) return `Order: ${order[0]!.label}.`;
  return `Order: ${order
    .slice(0, -1)
    .map((m) => m.label)
    .join(', ')}, then ${order[order.length - 1]!.label}.`;
}

export function planUpgrade(input: PlanInput): UpgradePlan {
  const { health } = input;
  const mode = input.mode ?? 'rolling';
  const order = orderMembers(health);
  const warnings: string[] = [];
  const { voters, tolerates } = health.quorum;

  if (!order.some((m) => m.role === 'leader' || m.role === 'standalone')) {
    warnings.push('No leader is serving now: the order of the voters is by id, and the preflight will not pass until a leader serves.');
  }
  for (const m of health.members.filter((x) => !isServing(x))) {
    warnings.push(`${memberName({ memberId: m.id, address: m.address })} (${m.address}) is ${notServingWords(m)}: the preflight needs every voter serving.`);
  }
  const unnamed = health.members.filter((m) => m.id === null);
  if (unnamed.length > 0) {
    warnings.push(`${plural(unnamed.length, 'member has', 'members have')} no id in the configuration: a restartCommand using {id} cannot be filled for them.`);
  }

  let confirmation: Confirmation | null = null;
  const risk = mode === 'full' ? fullRestartRisk(input.shortestSessionTimeoutMs) : null;
  if (mode === 'full') {
    confirmation = { why: risk!, phrase: outagePhrase(health.ensemble) };
  } else if (tolerates < 1) {
    const why =
      voters <= 1
        ? 'A single voter tolerates no failure: restarting it is an outage, so it cannot roll without one.'
        : `${plural(voters, 'voter')} tolerate no failure: restarting any of them loses the quorum, so it cannot roll without an outage.`;
    confirmation = { why, phrase: outagePhrase(health.ensemble) };
    warnings.unshift(`${why} Type "${confirmation.phrase}" to go on.`);
  }

  return {
    ensemble: health.ensemble,
    mode,
    targetVersion: input.targetVersion?.trim() || null,
    note: input.note?.trim() || null,
    order,
    sentence: orderSentence(order),
    risk,
    warnings,
    confirmation,
  };
}

/** True when no confirmation is needed or `typed` is exactly the phrase (surrounding spaces aside). */
export function confirmationMatches(confirmation: Confirmation | null, typed: string | null | undefined): boolean {
  return confirmation === null || (typed ?? '').trim() === confirmation.phrase;
}
