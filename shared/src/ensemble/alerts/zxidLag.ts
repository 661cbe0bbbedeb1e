/**
 * Is a member behind the leader? Polls of different members are not simultaneous, so while
 * writes are in flight a healthy follower polled a few ms before the leader looks behind.
 * What is fair: compare each member NOW with the leader's zxid at the PREVIOUS poll (a
 * healthy member applied those transactions long ago), and only flag a member that is
 * behind in two consecutive polls.
 *
 * Behind means: a lower epoch while the leader has committed something in its epoch (a new
 * leader's zxid is <epoch>00000000 until the first write; followers keep the old epoch's
 * zxid and miss nothing), or the same epoch with a counter more than `threshold` behind.
 */
import type { MemberStatus } from '../types.js';
import { zxidParts, type ZxidParts } from '../zxid.js';

export interface LagMemory {
  /** The leader's zxid at that poll. */
  leaderZxid: string | null;
  /** Addresses behind at that poll. */
  behind: ReadonlySet<string>;
}

export interface LagFinding {
  address: string;
  zxid: string;
  leaderZxid: string;
  /** Transactions behind within the same epoch; null when it is an epoch behind. */
  transactions: number | null;
}

type Member = Pick<MemberStatus, 'address' | 'state' | 'metrics'>;

export const EMPTY_LAG_MEMORY: LagMemory = { leaderZxid: null, behind: new Set() };

function behindReference(member: ZxidParts, ref: ZxidParts, threshold: number): number | null | false {
  if (member.epoch < ref.epoch) return ref.counter > 0 ? null : false;
  if (member.epoch > ref.epoch) return false;
  const gap = ref.counter - member.counter;
  return gap > threshold ? gap : false;
}

export function assessLag(members: readonly Member[], previous: LagMemory, threshold = 0): { findings: LagFinding[]; memory: LagMemory } {
  const leader = members.find((m) => m.state === 'leader');
  const leaderNow = zxidParts(leader?.metrics.zxid ?? null);
  if (!leader || !leaderNow) return { findings: [], memory: EMPTY_LAG_MEMORY };
  const leaderBefore = zxidParts(previous.leaderZxid);
  // The previous leader zxid is only a fair reference within the same epoch (no election since).
  const ref = leaderBefore && leaderBefore.epoch === leaderNow.epoch && leaderBefore.value <= leaderNow.value ? leaderBefore : leaderNow;
  const refHex = `0x${ref.value.toString(16)}`;
  const behindNow = new Set<string>();
  const findings: LagFinding[] = [];
  for (const m of members) {
    if (m === leader || (m.state !== 'follower' && m.state !== 'observer')) continue;
    const parts = zxidParts(m.metrics.zxid);
    if (!parts) continue;
    const gap = behindReference(parts, ref, threshold);
    if (gap === false) continue;
    behindNow.add(m.address);
    if (previous.behind.has(m.address)) findings.push({ address: m.address, zxid: m.metrics.zxid!, leaderZxid: refHex, transactions: gap });
  }
  return { findings, memory: { leaderZxid: leader.metrics.zxid, behind: behindNow } };
}
