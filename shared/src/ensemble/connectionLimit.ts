/**
 * ZooKeeper's maxClientCnxns caps the connections ONE client address may hold on a member (60
 * by default, 0 = no cap). At the cap the member accepts a new connection from that address and
 * closes it at once (NIO resets it, Netty closes it) before reading a byte. To Keeper's poller
 * that looks like a broken member, while the member serves its clients as well as before.
 *
 * So a member that closes Keeper's connection at once counts as serving when something other
 * than a new connection says it does:
 *  - the leader's synced followers (zk_synced_followers) include followers Keeper cannot ask;
 *  - its AdminServer answered (another port, not under the cap);
 *  - the console's own session, opened before the cap was reached, is on it and alive (a
 *    member outside a quorum closes its clients' connections).
 * Without any of them it stays unreachable: a closed connection alone proves nothing.
 */
import type { Alert, MemberState, MemberStatus } from './types.js';
import { SERVING_STATES } from './types.js';
import { isObserver, isServing } from './quorum.js';

export type ServingEvidence = NonNullable<MemberStatus['connectionLimit']>['evidence'][number];

/** What the poller knows of one member beyond its classified status. */
export interface RefusalFacts {
  /** This poll, the member closed Keeper's four-letter-word connection at once, without an answer. */
  closedAtOnce: boolean;
  /** The last serving state it was seen in; null when never seen serving. */
  lastServingState: MemberState | null;
  /** From its `conf`; null when unknown. */
  maxClientCnxns: number | null;
}

export interface RefusalInput {
  members: readonly MemberStatus[];
  /** By member address. */
  facts: ReadonlyMap<string, RefusalFacts>;
  /** host:port of the member the console's session is on, only while that session is confirmed alive. */
  consoleMember: string | null;
}

/** Connections from one address at this share of maxClientCnxns raise an alert. */
export const CONNECTION_LIMIT_WARN_RATIO = 0.8;

const EVIDENCE_TEXT: Record<ServingEvidence, string> = {
  'synced-followers': 'the leader counts it among its synced followers',
  admin: 'its AdminServer answers',
  'console-session': "Keeper's own session on it is alive",
};

export function connectionLimitSentence(maxClientCnxns: number | null): string {
  return `refuses new connections from Keeper's address: maxClientCnxns (${maxClientCnxns === null ? 'its limit' : maxClientCnxns} per address) reached`;
}

function servingRole(m: MemberStatus, facts: RefusalFacts, leaderElsewhere: boolean): MemberState {
  if (isServing(m)) return m.state;
  const last = facts.lastServingState;
  if (last !== null && SERVING_STATES.includes(last) && !(last === 'leader' && leaderElsewhere)) return last;
  return isObserver(m) ? 'observer' : 'follower';
}

/** How many of the refusing voters the leader's synced-follower count vouches for: all of them, or (when it cannot tell which) none. */
function creditBySyncedFollowers(
  members: readonly MemberStatus[],
  refusing: readonly MemberStatus[],
  evidence: ReadonlyMap<string, ServingEvidence[]>,
): MemberStatus[] {
  const leader = members.find((m) => m.state === 'leader' && !refusing.includes(m));
  const synced = leader?.metrics.syncedFollowers ?? null;
  if (synced === null) return [];
  const seenFollowers = members.filter((m) => m.state === 'follower' && !isObserver(m) && !refusing.includes(m)).length;
  const candidates = refusing.filter((m) => !isObserver(m) && m !== leader);
  const surplus = synced - seenFollowers;
  if (surplus >= candidates.length) return candidates;
  // Fewer synced than refusing: the ones vouched for otherwise use up the count first.
  const unvouched = candidates.filter((m) => (evidence.get(m.address) ?? []).length === 0);
  return surplus - (candidates.length - unvouched.length) >= unvouched.length ? unvouched : [];
}

/**
 * The members as the quorum, the what-if and the view should count them: a member that
 * refused Keeper's connection but has evidence of serving gets its serving role back, the
 * connection-limit sentence as its detail and `connectionLimit`; every other member is unchanged.
 */
export function creditRefusingMembers({ members, facts, consoleMember }: RefusalInput): MemberStatus[] {
  // A status credited by an earlier publish (not polled since) stays as it is.
  const refusing = members.filter((m) => facts.get(m.address)?.closedAtOnce === true && !m.connectionLimit);
  if (refusing.length === 0) return [...members];
  const evidence = new Map<string, ServingEvidence[]>();
  for (const m of refusing) {
    const found: ServingEvidence[] = [];
    // Serving here means the AdminServer answered after the four-letter word was closed.
    if (m.source === 'admin' && isServing(m)) found.push('admin');
    if (consoleMember === m.address) found.push('console-session');
    evidence.set(m.address, found);
  }
  for (const m of creditBySyncedFollowers(members, refusing, evidence)) evidence.get(m.address)!.push('synced-followers');
  const leaderElsewhere = members.some((m) => m.state === 'leader' && !refusing.includes(m));
  return members.map((m) => {
    const found = evidence.get(m.address);
    if (!found || found.length === 0) return m;
    const own = facts.get(m.address)!;
    return {
      ...m,
      state: servingRole(m, own, leaderElsewhere),
      detail: `${connectionLimitSentence(own.maxClientCnxns)}; it serves: ${found.map((e) => EVIDENCE_TEXT[e]).join(', ')}`,
      lastServingAt: m.polledAt,
      connectionLimit: { maxClientCnxns: own.maxClientCnxns, evidence: found },
    };
  });
}

/** The client host of "ip:port", "[v6]:port" or Java's older "v6:with:colons:port". */
export function clientHostOf(client: string): string {
  const colon = client.lastIndexOf(':');
  const host = colon === -1 ? client : client.slice(0, colon);
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** member address -> client host -> connections, from the sessions' `cons` rows. */
export function connectionsByClientHost(
  sessions: readonly { client: string; member: string; connected?: boolean | undefined }[],
): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const s of sessions) {
    if (s.connected === false || s.member === '' || s.client === '') continue;
    const hosts = out.get(s.member) ?? new Map<string, number>();
    const host = clientHostOf(s.client);
    hosts.set(host, (hosts.get(host) ?? 0) + 1);
    out.set(s.member, hosts);
  }
  return out;
}

export interface ConnectionLimitAlertInput {
  members: readonly MemberStatus[];
  /** maxClientCnxns by member address (null or absent: unknown; 0: no cap). */
  limits: ReadonlyMap<string, number | null>;
  /** From the last gathering of sessions, when recent; null otherwise. */
  connections: ReadonlyMap<string, ReadonlyMap<string, number>> | null;
}

function name(m: MemberStatus): string {
  return m.id === null ? m.address : `member ${m.id} (${m.address})`;
}

const ACTION =
  'Find the client host that holds the connections (the sessions view groups sessions by host): a connection pool that leaks, or one client per worker thread; spread those clients over the members, or raise maxClientCnxns (0 = no cap) in the next rolling restart.';

export function connectionLimitAlerts({ members, limits, connections }: ConnectionLimitAlertInput): Alert[] {
  const out: Alert[] = [];
  for (const m of members) {
    const limit = m.connectionLimit;
    if (limit) {
      out.push({
        id: `refuses-keeper:${m.address}`,
        severity: 'warning',
        title: `${name(m)} ${connectionLimitSentence(limit.maxClientCnxns)}`,
        why: `It serves (${limit.evidence.map((e) => EVIDENCE_TEXT[e]).join(', ')}), but closes every new connection from that address at once: Keeper's polls, and new or reconnecting clients on the same host. Keeper shows its last known role without fresh figures.`,
        action: ACTION,
        members: [m.address],
      });
    }
    const max = limits.get(m.address) ?? null;
    if (max === null || max <= 0) continue;
    for (const [host, count] of connections?.get(m.address) ?? []) {
      if (count < Math.ceil(max * CONNECTION_LIMIT_WARN_RATIO)) continue;
      const full = count >= max;
      out.push({
        id: `cnxn-limit:${m.address}:${host}`,
        severity: 'warning',
        title: `${name(m)}: ${count} of ${max} connections from ${host} (maxClientCnxns)${full ? ': new ones are refused' : ''}`,
        why: `A member closes a client address's connections beyond maxClientCnxns (${max}) at once: new clients and reconnects from ${host} ${full ? 'fail' : 'will fail'} on this member, and so do Keeper's polls if Keeper runs there.`,
        action: ACTION,
        members: [m.address],
      });
    }
  }
  return out;
}
