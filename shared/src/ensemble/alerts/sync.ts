/**
 * The leader's synced followers (mntr zk_synced_followers) against the voters that should be
 * following it. A follower that is down, unreachable or outside the quorum is missing from that
 * count for the reason its own alert already gives, so it is not a sync problem and is not said
 * twice: its alert carries the leader's count instead. Only followers that answer as followers
 * (or cannot be told) while the leader does not count them are "not synced", and the alert
 * names them with what Keeper saw of them.
 */
import type { Alert, MemberStatus, QuorumSummary } from '../types.js';
import { isObserver, isServing } from '../quorum.js';

/** States that explain a follower missing from the leader's count by themselves. */
const ABSENT: ReadonlySet<MemberStatus['state']> = new Set(['down', 'unreachable', 'not-serving']);

/** A member that started this recently may still be loading its snapshot or taking the leader's diff. */
const RECENT_START_S = 10 * 60;

export interface SyncFinding {
  leader: MemberStatus;
  /** The leader's count and the voting followers it should have. */
  synced: number;
  expected: number;
  /** Voting followers whose own state explains their absence (down, unreachable, not serving). */
  absent: MemberStatus[];
  /** Followers the leader does not count although nothing Keeper saw explains it. */
  unexplained: number;
  /** Who they may be: the voting followers that answer (or cannot be told), most recently started first. */
  candidates: MemberStatus[];
}

const name = (m: MemberStatus) => (m.id === null ? m.address : `member ${m.id} (${m.address})`);
const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

export function assessSync(members: readonly MemberStatus[], quorum: QuorumSummary): SyncFinding | null {
  const leader = members.find((m) => m.state === 'leader');
  const synced = leader?.metrics.syncedFollowers ?? null;
  const expected = quorum.voters - 1;
  if (!leader || synced === null || expected <= 0 || synced >= expected) return null;
  const followers = members.filter((m) => m !== leader && !isObserver(m));
  const absent = followers.filter((m) => ABSENT.has(m.state));
  const candidates = followers
    .filter((m) => !ABSENT.has(m.state))
    .sort((a, b) => (a.metrics.uptimeSeconds ?? Infinity) - (b.metrics.uptimeSeconds ?? Infinity));
  return { leader, synced, expected, absent, unexplained: Math.max(0, expected - absent.length - synced), candidates };
}

/** What Keeper saw of a follower the leader may not count: its state, its uptime, its zxid against the leader's. */
function candidateText(m: MemberStatus, leader: MemberStatus): string {
  const facts: string[] = [isServing(m) ? `answers as ${m.state}` : `its role cannot be read (${m.state})`];
  const up = m.metrics.uptimeSeconds;
  if (up !== null && up < RECENT_START_S) facts.push(`started ${up} s ago`);
  if (m.metrics.zxid && leader.metrics.zxid && m.metrics.zxid !== leader.metrics.zxid)
    facts.push(`zxid ${m.metrics.zxid} against the leader's ${leader.metrics.zxid}`);
  return `${name(m)} ${facts.join(', ')}`;
}

export function syncAlert(finding: SyncFinding | null): Alert | null {
  if (!finding || finding.unexplained <= 0) return null;
  const { leader, synced, expected, absent, unexplained, candidates } = finding;
  const recent = candidates.some((m) => m.metrics.uptimeSeconds !== null && m.metrics.uptimeSeconds < RECENT_START_S);
  const absentText = absent.length > 0 ? ` (${absent.map((m) => `${name(m)} is ${m.state}`).join('; ')}: see its alert)` : '';
  const who = candidates.length > 0 ? ` Followers it may not count: ${candidates.map((m) => candidateText(m, leader)).join('; ')}.` : '';
  const cause = recent
    ? 'A follower that started minutes ago is still loading its snapshot or taking the leader’s diff.'
    : 'A follower that answers but is not in sync is still catching up with the leader, or has lost its connection to the leader on the quorum port.';
  return {
    id: 'followers-not-synced',
    severity: 'warning',
    title: `Followers not synced: ${synced} of ${expected}${absent.length > 0 ? `, ${plural(unexplained, 'serving follower')} among the missing` : ''}`,
    why:
      `The leader (${leader.address}) counts ${synced} of ${expected} voting followers in sync${absentText}, so ${plural(unexplained, 'follower')} that Keeper sees running ${unexplained === 1 ? 'is' : 'are'} not in sync with it.${who} ` +
      `${cause} The ensemble is closer to losing its quorum than the member list shows.`,
    action: "Wait before restarting another member; if it does not recover within a minute or two, check that follower's log and its connection to the leader.",
    members: [leader.address, ...candidates.map((m) => m.address)],
  };
}

/** For a follower whose own state explains its absence: the leader's count, said in its alert instead of a second one. */
export function absentFromSyncNote(m: MemberStatus, finding: SyncFinding | null): string {
  if (!finding || !finding.absent.includes(m)) return '';
  return ` The leader counts ${finding.synced} of ${finding.expected} voting followers in sync: this member is one of those missing.`;
}
