/**
 * From one poll to the next: the events an operator would narrate. Pure; the memory is the little
 * the previous polls leave behind (who led, each member's state, the alerts up), so the server
 * keeps it in memory and a restart begins again with a `watching` entry.
 */
import type { Alert, EnsembleHealth, MemberState, MemberStatus } from '../types.js';
import { SERVING_STATES } from '../types.js';
import type { NewEnsembleEvent } from './schema.js';

export interface TimelineMemory {
  leader: { address: string; id: number | null; epoch: number | null } | null;
  /** The leader that was lost, until a new one is seen. */
  lostLeader: { address: string; id: number | null; epoch: number | null; at: number } | null;
  states: Record<string, MemberState>;
  /** When each member was first seen not serving, and how (for "serving again after 40 s down"). */
  outSince: Record<string, number>;
  outAs?: Record<string, MemberState>;
  alerts: Record<string, Pick<Alert, 'title' | 'severity'>>;
}

/** Alerts that repeat what a member event says already ("member 3 is down"): left out of the timeline. */
const MEMBER_ALERT_PREFIXES = ['down:', 'unreachable:', 'not-serving:'];

const isServing = (state: MemberState) => SERVING_STATES.includes(state);
const name = (m: { id: number | null; address: string }) => (m.id === null ? m.address : `member ${m.id} (${m.address})`);
const leaderName = (m: { id: number | null; address: string }) => (m.id === null ? `leader ${m.address}` : `leader ${m.id} (${m.address})`);
function seconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${Math.round(s * 10) / 10} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

function stateText(m: MemberStatus): string {
  switch (m.state) {
    // The member's card has the whole detail; a timeline line says the kind of outage.
    case 'down':
      return 'down (connection refused)';
    case 'unreachable':
      return 'unreachable (no answer in time)';
    case 'not-serving':
      return 'running but not serving (outside the quorum)';
    case 'not-whitelisted':
      return `answering, role unknown (${m.detail ?? 'its 4lw whitelist refuses srvr'})`;
    case 'unknown':
      return 'not polled yet';
    default:
      return m.state;
  }
}

function leaderOf(health: EnsembleHealth): MemberStatus | undefined {
  return health.members.find((m) => m.state === 'leader' || m.state === 'standalone');
}

function memoryOf(health: EnsembleHealth, previous: TimelineMemory | null): TimelineMemory {
  const leader = leaderOf(health);
  const outSince: Record<string, number> = {};
  const outAs: Record<string, MemberState> = {};
  for (const m of health.members) {
    if (isServing(m.state) || m.state === 'unknown') continue;
    outSince[m.address] = previous?.outSince[m.address] ?? health.polledAt;
    outAs[m.address] = previous?.outAs?.[m.address] ?? m.state;
  }
  return {
    leader: leader ? { address: leader.address, id: leader.id, epoch: leader.metrics.epoch } : null,
    lostLeader: leader ? null : (previous?.lostLeader ?? null),
    states: Object.fromEntries(health.members.map((m) => [m.address, m.state])),
    outSince,
    outAs,
    alerts: Object.fromEntries(health.alerts.filter(inTimeline).map((a) => [a.id, { title: a.title, severity: a.severity }])),
  };
}

const inTimeline = (a: Alert) => !MEMBER_ALERT_PREFIXES.some((p) => a.id.startsWith(p));

/** The first poll Keeper sees: one `watching` entry, and the alerts already up. */
function firstEvents(health: EnsembleHealth, notWatchingSince: number | null): NewEnsembleEvent[] {
  const at = health.polledAt;
  const leader = leaderOf(health);
  const out = health.members.filter((m) => !isServing(m.state) && m.state !== 'unknown');
  const again =
    notWatchingSince !== null
      ? ` again (its previous process's last saved poll was ${seconds(at - notWatchingSince)} earlier; changes in between are not known)`
      : '';
  const text =
    `Keeper started watching${again}: ${leader ? `${name(leader)} leads${leader.metrics.epoch !== null ? `, epoch ${leader.metrics.epoch}` : ''}` : 'no leader seen'}; ${health.quorum.sentence}` +
    (out.length > 0 ? `; ${out.map((m) => `${name(m)} ${stateText(m)}`).join('; ')}` : '');
  const events: NewEnsembleEvent[] = [
    {
      at,
      kind: 'watching',
      text,
      severity: leader ? 'info' : 'warning',
      member: leader?.address ?? null,
      epochTo: leader?.metrics.epoch ?? null,
      notWatchingSince,
    },
  ];
  for (const a of health.alerts.filter(inTimeline)) {
    events.push({ at, kind: 'alert-raised', text: `alert already up: ${a.title}`, severity: a.severity, member: null, alertId: a.id });
  }
  return events;
}

export function deriveEvents(
  previous: TimelineMemory | null,
  health: EnsembleHealth,
  { notWatchingSince = null }: { notWatchingSince?: number | null } = {},
): { events: NewEnsembleEvent[]; memory: TimelineMemory } {
  if (previous === null) return { events: firstEvents(health, notWatchingSince), memory: memoryOf(health, null) };
  const at = health.polledAt;
  const events: NewEnsembleEvent[] = [];
  const byAddress = new Map(health.members.map((m) => [m.address, m]));
  const leader = leaderOf(health);
  let lostLeader = previous.lostLeader;

  // The leader lost: it no longer leads (whatever it is now).
  const was = previous.leader;
  const leaderLost = was !== null && (!leader || leader.address !== was.address);
  if (was && leaderLost) {
    const now = byAddress.get(was.address);
    lostLeader = { ...was, at };
    events.push({
      at,
      kind: 'leader-lost',
      text: `${leaderName(was)} lost${now ? `: now ${stateText(now)}` : ': no longer in the membership'}`,
      severity: 'warning',
      member: was.address,
      epochFrom: was.epoch,
    });
  }
  // A leader elected: a new one, or the same one in a new epoch (a new election it won again).
  const newLeader = leader && (!was || leader.address !== was.address);
  const reElected =
    leader && was && leader.address === was.address && was.epoch !== null && leader.metrics.epoch !== null && leader.metrics.epoch !== was.epoch;
  if (leader && (newLeader || reElected)) {
    const epochFrom = lostLeader?.epoch ?? was?.epoch ?? null;
    const epochTo = leader.metrics.epoch;
    const epochs = epochFrom !== null && epochTo !== null ? `, epoch ${epochFrom}→${epochTo}` : epochTo !== null ? `, epoch ${epochTo}` : '';
    const gap = lostLeader && lostLeader.at < at ? `; no leader seen for ${seconds(at - lostLeader.at)} after ${leaderName(lostLeader)} was lost` : '';
    events.push({
      at,
      kind: 'leader-elected',
      text: reElected ? `${name(leader)} elected leader again${epochs}` : `${name(leader)} elected leader${epochs}${gap}`,
      severity: 'info',
      member: leader.address,
      epochFrom,
      epochTo,
      lostAt: lostLeader?.at ?? null,
    });
  }

  // Members down, back and otherwise changed (a leader's own role change is said above).
  for (const m of health.members) {
    const before = previous.states[m.address];
    if (before === undefined) {
      events.push({ at, kind: 'member-state', text: `${name(m)} appeared in the membership: ${stateText(m)}`, severity: 'info', member: m.address });
      continue;
    }
    if (before === m.state || m.state === 'unknown') continue;
    const servingBefore = isServing(before);
    const servingNow = isServing(m.state);
    if (servingBefore && !servingNow) {
      // The leader lost says it already ("leader 3 lost: now down").
      if (leaderLost && m.address === was?.address) continue;
      events.push({
        at,
        kind: 'member-down',
        text: `${name(m)} ${stateText(m)}`,
        severity: m.state === 'not-whitelisted' ? 'info' : 'warning',
        member: m.address,
      });
    } else if (!servingBefore && servingNow) {
      // The new leader's return is its election, said above.
      if ((newLeader || reElected) && m.address === leader?.address) continue;
      const since = previous.outSince[m.address];
      const wentOut = previous.outAs?.[m.address] ?? before;
      const how = (s: MemberState) => (s === 'not-serving' ? 'outside the quorum' : s);
      const outFor = since !== undefined ? ` after ${seconds(at - since)} ${how(wentOut)}${wentOut !== before ? `, then ${how(before)}` : ''}` : '';
      events.push({ at, kind: 'member-up', text: `${name(m)} serving again as ${m.state}${outFor}`, severity: 'info', member: m.address });
    } else if (!servingBefore && !servingNow && before !== 'unknown') {
      events.push({ at, kind: 'member-state', text: `${name(m)} now ${stateText(m)} (was ${before})`, severity: 'warning', member: m.address });
    }
  }

  // Alerts raised and cleared, by their stable ids (a changing figure in a title is not a new alert).
  const current = new Map(health.alerts.filter(inTimeline).map((a) => [a.id, a]));
  for (const [id, a] of current) {
    if (!(id in previous.alerts)) events.push({ at, kind: 'alert-raised', text: `alert raised: ${a.title}`, severity: a.severity, member: null, alertId: id });
  }
  for (const [id, a] of Object.entries(previous.alerts)) {
    if (!current.has(id)) events.push({ at, kind: 'alert-cleared', text: `alert no longer raised: ${a.title}`, severity: 'info', member: null, alertId: id });
  }

  const memory = memoryOf(health, previous);
  memory.lostLeader = leader ? null : lostLeader;
  return { events, memory };
}
