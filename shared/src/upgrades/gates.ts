/**
 * The gates checked before an upgrade starts (preflight) and again before each member's restart
 * (stepGates), from the member poller's EnsembleHealth. Each check says what it saw with the
 * numbers, so the timeline shows why Keeper went on or waited. The rule behind them (the
 * admin guide, zookeeper.md "Ensemble sizing and rolling restarts"): never take a member down
 * unless every voter serves, the leader has all its followers in sync and no one is behind.
 */
import type { EnsembleHealth, MemberStatus } from '../ensemble/types.js';
import { isObserver, isServing } from '../ensemble/quorum.js';
import { zxidParts, type ZxidParts } from '../ensemble/zxid.js';
import type { Check } from './schemas.js';
import { leaderOf, listWords, memberName, notServingWords, plural, voters } from './members.js';

export interface GateContext {
  /** When the checks are made; defaults to the poll's time. */
  at?: number;
  /**
   * The leader's zxid at the previous poll. Members are polled one after another, so under a
   * write load a healthy follower polled before the leader looks a few transactions behind it;
   * it is fair to ask that it has what the leader had one poll ago.
   */
  referenceLeaderZxid?: string | null;
  /** The operator typed the outage confirmation: an ensemble tolerating no failure may go on. */
  outageConfirmed?: boolean;
}

const nameOf = (m: MemberStatus) => memberName({ memberId: m.id, address: m.address });

export function votersServingCheck(health: EnsembleHealth, at: number): Check {
  const all = voters(health);
  const missing = all.filter((m) => !isServing(m));
  const head = `${all.length - missing.length} of ${plural(all.length, 'voter')} serving`;
  if (all.length === 0) return { id: 'voters-serving', ok: false, saw: 'no voting member known yet', at };
  if (missing.length === 0) return { id: 'voters-serving', ok: true, saw: head, at };
  const why = missing.map((m) => `${nameOf(m)} (${m.address}) is ${notServingWords(m)}`);
  return { id: 'voters-serving', ok: false, saw: `${head}: ${listWords(why)}`, at };
}

/**
 * The voting followers in sync with the leader (metrics.ts: zk_synced_followers less the
 * non-voting ones; observers are counted apart, in zk_synced_observers), so full means voters - 1.
 */
export function syncedFollowersCheck(health: EnsembleHealth, at: number): Check {
  const expected = Math.max(0, voters(health).length - 1);
  const leader = leaderOf(health);
  if (leader?.state === 'standalone' || (leader && expected === 0))
    return { id: 'synced-followers', ok: true, saw: 'a single voter: no followers to sync', at };
  if (!leader)
    return { id: 'synced-followers', ok: false, saw: `no leader serving, so no synced-followers count (${plural(expected, 'follower')} expected)`, at };
  const synced = leader.metrics.syncedFollowers;
  const source = leader.source === 'admin' ? 'AdminServer monitor synced_followers' : 'mntr zk_synced_followers';
  if (synced === null) {
    return { id: 'synced-followers', ok: false, saw: `the leader (${nameOf(leader)}) did not report its synced followers (${source} missing)`, at };
  }
  const saw = `${synced} of ${plural(expected, 'follower')} synced (the leader ${nameOf(leader)}'s ${source})`;
  return { id: 'synced-followers', ok: synced >= expected, saw, at };
}

/** Transactions behind, null when an epoch behind, false when not behind (the rule of zxidLag.ts). */
function behind(member: ZxidParts, ref: ZxidParts): number | null | false {
  // A new leader's zxid is <epoch>00000000 until its first write: followers keep the old epoch's and miss nothing.
  if (member.epoch < ref.epoch) return ref.counter > 0 ? null : false;
  if (member.epoch > ref.epoch) return false;
  return member.counter < ref.counter ? ref.counter - member.counter : false;
}

/** The reference a member must have reached: the previous poll's leader zxid when still in this epoch, else the leader's now. */
export function referenceZxid(leaderNow: ZxidParts, previous: string | null | undefined): ZxidParts {
  const before = zxidParts(previous ?? null);
  return before && before.epoch === leaderNow.epoch && before.value <= leaderNow.value ? before : leaderNow;
}

const hex = (z: ZxidParts) => `0x${z.value.toString(16)}`;

/** Zxid of each serving member but the leader against the reference; `only` narrows it to one member. */
export function zxidCheck(health: EnsembleHealth, at: number, previous: string | null | undefined, only?: string): Check {
  const leader = leaderOf(health);
  const leaderZxid = zxidParts(leader?.metrics.zxid ?? null);
  if (!leader) return { id: 'zxid-caught-up', ok: false, saw: 'no leader serving to compare zxids with', at };
  if (!leaderZxid) return { id: 'zxid-caught-up', ok: false, saw: `the leader (${nameOf(leader)}) did not report its zxid`, at };
  const ref = referenceZxid(leaderZxid, previous);
  const others = health.members.filter((m) => m !== leader && isServing(m) && (only === undefined || m.address === only));
  const problems: string[] = [];
  for (const m of others) {
    const parts = zxidParts(m.metrics.zxid);
    if (!parts) {
      problems.push(`${nameOf(m)}'s zxid is unknown`);
      continue;
    }
    const gap = behind(parts, ref);
    if (gap === null) problems.push(`${nameOf(m)} is an epoch behind (${hex(parts)} against ${hex(ref)})`);
    else if (gap !== false) problems.push(`${nameOf(m)} is ${plural(gap, 'transaction')} behind (${hex(parts)} against ${hex(ref)})`);
  }
  if (problems.length > 0) return { id: 'zxid-caught-up', ok: false, saw: `${listWords(problems)} (the leader is at ${hex(leaderZxid)})`, at };
  if (only !== undefined && others.length === 0) return { id: 'zxid-caught-up', ok: false, saw: `${only} is not serving, so its zxid cannot be compared`, at };
  const who = only === undefined ? `all ${plural(others.length, 'other member')}` : nameOf(others[0]!);
  return { id: 'zxid-caught-up', ok: true, saw: `${who} at or past ${hex(ref)} (the leader is at ${hex(leaderZxid)})`, at };
}

const ANSWERED_STATES = new Set(['leader', 'follower', 'observer', 'standalone', 'not-serving']);

export function membersAnswerCheck(health: EnsembleHealth, at: number): Check {
  const silent = health.members.filter((m) => m.source === null || !ANSWERED_STATES.has(m.state));
  if (health.members.length === 0) return { id: 'members-answer', ok: false, saw: 'no member known yet', at };
  if (silent.length > 0) {
    const why = silent.map((m) => `${nameOf(m)} (${m.address}): ${notServingWords(m)}`);
    return {
      id: 'members-answer',
      ok: false,
      saw: `${silent.length} of ${plural(health.members.length, 'member')} did not answer 4lw or AdminServer: ${why.join('; ')}`,
      at,
    };
  }
  const admin = health.members.filter((m) => m.source === 'admin').length;
  const fourLetter = health.members.length - admin;
  const how = [admin > 0 ? `${admin} over AdminServer` : null, fourLetter > 0 ? `${fourLetter} over 4lw` : null].filter((x) => x !== null).join(', ');
  return { id: 'members-answer', ok: true, saw: `all ${plural(health.members.length, 'member')} answered (${how})`, at };
}

export function toleratesFailureCheck(health: EnsembleHealth, at: number, outageConfirmed: boolean): Check {
  const { voters: n, tolerates, canLoseNow } = health.quorum;
  if (tolerates < 1) {
    const saw = `${plural(n, 'voter')} tolerate no failure: restarting a voter loses the quorum`;
    return outageConfirmed
      ? { id: 'tolerates-failure', ok: true, saw: `${saw}; the outage was confirmed`, at }
      : { id: 'tolerates-failure', ok: false, saw: `${saw}, so it cannot roll without an outage`, at };
  }
  if (canLoseNow < 1)
    return { id: 'tolerates-failure', ok: false, saw: `${plural(n, 'voter')} tolerate ${plural(tolerates, 'failure')}, but none is left now`, at };
  return { id: 'tolerates-failure', ok: true, saw: `${plural(n, 'voter')} tolerate ${plural(tolerates, 'failure')}; ${canLoseNow} more now`, at };
}

/** The five gates, before anything runs. */
export function preflight(health: EnsembleHealth, context: GateContext = {}): Check[] {
  const at = context.at ?? health.polledAt;
  return [
    votersServingCheck(health, at),
    syncedFollowersCheck(health, at),
    zxidCheck(health, at, context.referenceLeaderZxid),
    membersAnswerCheck(health, at),
    toleratesFailureCheck(health, at, context.outageConfirmed ?? false),
  ];
}

/** The gates again, right before restarting `member`, plus: it is still in the ensemble. */
export function stepGates(health: EnsembleHealth, member: { address: string }, context: GateContext = {}): Check[] {
  const at = context.at ?? health.polledAt;
  const present = health.members.find((m) => m.address === member.address);
  const presence: Check = present
    ? {
        id: 'member-present',
        ok: true,
        saw: `${nameOf(present)} (${present.address}) is in the ensemble, ${isObserver(present) ? 'an observer' : 'a voter'}, now ${present.state}`,
        at,
      }
    : { id: 'member-present', ok: false, saw: `${member.address} is no longer in the ensemble's configuration`, at };
  return [presence, ...preflight(health, { ...context, at })];
}

export const gatesPass = (checks: readonly Check[]): boolean => checks.every((c) => c.ok);

/** "synced-followers: 1 of 2 followers synced (...); zxid-caught-up: ..." for an alert. */
export function failedGatesSentence(checks: readonly Check[]): string {
  return checks
    .filter((c) => !c.ok)
    .map((c) => `${c.id}: ${c.saw}`)
    .join('; ');
}
