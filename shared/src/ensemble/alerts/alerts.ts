/**
 * The ensemble's alerts, recomputed after every poll. Each says what is wrong, why it
 * matters and what to do, in the operator's terms; ids are stable so a dismissed alert
 * stays dismissed while the condition lasts.
 */
import type { Alert, MemberStatus, QuorumSummary } from '../types.js';
import { isObserver, isServing } from '../quorum.js';
import { isReadOnlyMode, RECOMMENDED_WORDS, WHITELIST_SETTING } from '../probe.js';
import type { LagFinding } from './zxidLag.js';
import { connectionLimitAlerts, type ConnectionLimitAlertInput } from '../connectionLimit.js';
import { absentFromSyncNote, assessSync, syncAlert, type SyncFinding } from './sync.js';
import { buildAlerts } from './builds.js';

export interface AlertInput {
  members: readonly MemberStatus[];
  quorum: QuorumSummary;
  /** Four-letter words each member refused (by address). */
  blocked: ReadonlyMap<string, readonly string[]>;
  lag: readonly LagFinding[];
  /** maxClientCnxns by member address and connections per client host (see connectionLimit.ts). */
  connectionLimits?: Omit<ConnectionLimitAlertInput, 'members'>;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function name(m: MemberStatus): string {
  return m.id === null ? m.address : `member ${m.id} (${m.address})`;
}

/** What to do about the voters missing from a quorum, by what each is shown as. */
function bringBack(missing: readonly MemberStatus[]): string {
  const down = missing.filter((m) => m.state === 'down');
  const silent = missing.filter((m) => m.state === 'unreachable' || m.state === 'not-whitelisted');
  const stuck = missing.filter((m) => m.state === 'not-serving' && !isReadOnlyMode(m));
  const steps = [
    down.length > 0
      ? `start ${down.length === 1 ? 'the member' : 'the members'} shown down (${down.map(name).join(', ')}) and check ${down.length === 1 ? 'its log' : 'their logs'}`
      : null,
    silent.length > 0
      ? `find why ${silent.map(name).join(', ')} ${silent.length === 1 ? 'does' : 'do'} not answer (a hung or frozen process, a full disk, a network partition)`
      : null,
    stuck.length > 0 ? `check the logs of ${stuck.map(name).join(', ')}, running but not in the quorum` : null,
  ].filter((s): s is string => s !== null);
  // Read-only members rejoin by themselves once enough voters are back.
  return steps.length > 0 ? steps.join('; ') : 'start the members that are not serving and check their logs';
}

function quorumAlerts({ quorum, members }: AlertInput): Alert[] {
  const out: Alert[] = [];
  if (quorum.voters > 0 && !quorum.hasQuorum) {
    const missing = members.filter((m) => !isObserver(m) && !isServing(m));
    // Members in read-only mode still serve reads: the banner must not say nothing is served while
    // the header says "read-only · member 1" (issue 34 item 3).
    const readOnly = members.filter(isReadOnlyMode);
    const why =
      readOnly.length === 0
        ? 'Without a quorum no member serves reads or writes: clients stay disconnected until enough voters are back (their sessions do not expire meanwhile).'
        : `Without a quorum no member serves writes. ${readOnly.map(name).join(', ')} ${readOnly.length === 1 ? 'serves' : 'serve'} reads only, in read-only mode, possibly stale: ` +
          'clients that allow read-only sessions (Keeper does) read there; the others stay disconnected until enough voters are back (their sessions do not expire meanwhile).';
    out.push({
      id: 'no-quorum',
      severity: 'critical',
      title: `No quorum: ${quorum.votersServing} of ${quorum.voters} voters serving, ${quorum.quorumSize} needed`,
      why,
      action: `Bring back ${plural(quorum.quorumSize - quorum.votersServing, 'voter')}: ${bringBack(missing)}; do not wipe their data directories.`,
      members: missing.map((m) => m.address),
    });
  } else if (quorum.hasQuorum && quorum.votersServing < quorum.voters && quorum.canLoseNow === 0 && quorum.voters > 2) {
    out.push({
      id: 'at-edge',
      severity: 'warning',
      title: `At the edge: ${quorum.votersServing} of ${quorum.voters} voters serving, one more failure loses the quorum`,
      why: `The ensemble tolerates ${plural(quorum.tolerates, 'failure')} and has used them up.`,
      action: 'Do not restart or take down any voter until the missing ones serve again.',
      members: members.filter((m) => !isObserver(m) && !isServing(m)).map((m) => m.address),
    });
  }
  if (quorum.voters === 2) {
    out.push({
      id: 'two-voters',
      severity: 'warning',
      title: '2 voters: no failure tolerated',
      why: 'Majority voting needs both of 2 voters: losing either stops the ensemble, which is less available than a single server.',
      action: 'Run 3 voters (the FAQ: jump to 3, not 2).',
      members: [],
    });
  } else if (quorum.voters > 2 && quorum.voters % 2 === 0) {
    out.push({
      id: 'even-voters',
      severity: 'warning',
      title: `An even number of voters (${quorum.voters}) tolerates no more failures than ${quorum.voters - 1}`,
      why: `${quorum.voters} voters need ${quorum.quorumSize} for a quorum and tolerate ${plural(quorum.tolerates, 'failure')}, like ${quorum.voters - 1}; the extra voter only makes every write wait for one more ack.`,
      action: `Remove a voter or add one (${quorum.voters + 1}), or make one an observer.`,
      members: [],
    });
  }
  return out;
}

function memberAlerts({ members, quorum }: AlertInput, sync: SyncFinding | null): Alert[] {
  const out: Alert[] = [];
  for (const m of members) {
    const observer = isObserver(m);
    const impact = observer
      ? 'It is an observer: the quorum is unaffected, but its clients have to reconnect elsewhere.'
      : quorum.hasQuorum
        ? `The ensemble can now lose ${plural(quorum.canLoseNow, 'more voter')}.`
        : 'The ensemble has no quorum.';
    if (m.state === 'down') {
      out.push({
        id: `down:${m.address}`,
        severity: 'warning',
        title: `${name(m)} is down: connection refused`,
        why: `Nothing listens on its client port: the ZooKeeper process is not running. ${impact}${absentFromSyncNote(m, sync)}`,
        action: 'Start it and check its log for why it stopped (out of memory, disk full, killed).',
        members: [m.address],
      });
    } else if (m.state === 'unreachable') {
      out.push({
        id: `unreachable:${m.address}`,
        severity: 'warning',
        title: `${name(m)} is unreachable`,
        why: `${m.detail ?? 'It did not answer in time.'} Its clients see timeouts, not refusals, and take longer to move. ${impact}${absentFromSyncNote(m, sync)}`,
        action: 'Check whether the process is hung (GC pauses, disk stalls: its log and jstack) or the network between Keeper and it.',
        members: [m.address],
      });
    } else if (m.state === 'not-serving' && quorum.hasQuorum) {
      out.push({
        id: `not-serving:${m.address}`,
        severity: 'warning',
        title: `${name(m)} is running but not serving`,
        why: `It answers, but has not joined the quorum the others formed. ${impact}${absentFromSyncNote(m, sync)}`,
        action: 'Check its log: can it reach the others on the quorum and election ports, and does it have the same server.N list?',
        members: [m.address],
      });
    }
  }
  return out;
}

function lagAlerts({ members, lag }: AlertInput): Alert[] {
  return lag.map((f) => {
    const m = members.find((x) => x.address === f.address);
    const how = f.transactions === null ? 'an epoch behind' : `${plural(f.transactions, 'transaction')} behind`;
    return {
      id: `behind:${f.address}`,
      severity: 'warning',
      title: `${m ? name(m) : f.address} is behind the leader: zxid ${f.zxid} vs ${f.leaderZxid} (${how})`,
      why: 'It has not applied what the leader committed a poll ago: its clients read stale data, and it needs a longer sync if it restarts.',
      action: 'Check its disk (fsync times), GC pauses and network to the leader; do not restart another member until it catches up.',
      members: [f.address],
    };
  });
}

function whitelistAlerts({ members, blocked }: AlertInput): Alert[] {
  const out: Alert[] = [];
  for (const m of members) {
    const words = blocked.get(m.address) ?? [];
    if (words.length === 0) continue;
    out.push({
      id: `4lw:${m.address}`,
      severity: 'info',
      title: `${name(m)}: ${words.join(', ')} not in ${WHITELIST_SETTING}`,
      why: `Keeper could not ask it for ${words.join(', ')} and its AdminServer did not answer, so its figures, sessions or watches are incomplete.`,
      action: `Add the words to ${WHITELIST_SETTING} (e.g. ${WHITELIST_SETTING}=${RECOMMENDED_WORDS.join(',')}) and restart it in the next rolling restart, or enable the AdminServer (admin.enableServer=true).`,
      members: [m.address],
    });
  }
  return out;
}

const SEVERITY_ORDER = { critical: 0, warning: 1, info: 2 } as const;

export function computeAlerts(input: AlertInput): Alert[] {
  const sync = assessSync(input.members, input.quorum);
  const all = [
    ...quorumAlerts(input),
    ...memberAlerts(input, sync),
    ...[syncAlert(sync)].filter((a): a is Alert => a !== null),
    ...lagAlerts(input),
    ...buildAlerts(input.members),
    ...whitelistAlerts(input),
    ...connectionLimitAlerts({ members: input.members, limits: new Map(), connections: null, ...input.connectionLimits }),
  ];
  return all.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}
