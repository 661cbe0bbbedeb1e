/** The event timeline's narration: from one poll to the next, what an operator would say happened. */
import { describe, expect, it } from 'vitest';
import { computeAlerts, deriveEvents, summarizeQuorum, upgradeEvents, type TimelineMemory } from '../../src/ensemble/index.js';
import type { EnsembleHealth, MemberStatus } from '../../src/ensemble/types.js';
import type { UpgradeWorkflow } from '../../src/upgrades/schemas.js';
import { healthy, member } from './support.js';

function health(members: MemberStatus[], polledAt: number): EnsembleHealth {
  const quorum = summarizeQuorum(members);
  return { ensemble: 'e', polledAt, pollIntervalMs: 1_000, members, quorum, alerts: computeAlerts({ members, quorum, blocked: new Map(), lag: [] }) };
}

/** Feeds polls in order; returns every event with the memory after. */
function run(polls: EnsembleHealth[], notWatchingSince: number | null = null) {
  let memory: TimelineMemory | null = null;
  const events = [];
  for (const h of polls) {
    const out = deriveEvents(memory, h, memory === null ? { notWatchingSince } : {});
    memory = out.memory;
    events.push(...out.events);
  }
  return events;
}

const epoch1 = (members: MemberStatus[]) => members.map((m) => ({ ...m, metrics: { ...m.metrics, epoch: 1 } }));

describe('deriveEvents', () => {
  it('starts with what Keeper first sees: the leader, its epoch and the quorum', () => {
    const [first, ...rest] = run([health(epoch1(healthy()), 1_000)]);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ at: 1_000, kind: 'watching', member: '127.0.0.1:2193', epochTo: 1, notWatchingSince: null });
    expect(first!.text).toBe('Keeper started watching: member 3 (127.0.0.1:2193) leads, epoch 1; 3 of 3 voters serving; tolerates 1 failure');
  });

  it('says when a previous Keeper process last watched: changes in between are not known', () => {
    const [first] = run([health(epoch1(healthy()), 200_000)], 20_000);
    expect(first!.text).toContain(
      "Keeper started watching again (its previous process's last saved poll was 3 min 0 s earlier; changes in between are not known)",
    );
  });

  it('narrates a leader lost and a new one elected two polls later, with the epochs and the gap', () => {
    const before = epoch1(healthy());
    const lost = [before[0]!, before[1]!, member(3, 'down', { epoch: null }, { detail: 'connection refused' })];
    const elected = [member(1, 'follower', { epoch: 2 }), member(2, 'leader', { epoch: 2, syncedFollowers: 1 }), lost[2]!];
    const events = run([health(before, 1_000), health(lost, 2_000), health(elected, 4_000)]).filter((e) => e.kind !== 'watching');
    // The lost leader's "down" is said once, in "leader 3 lost".
    expect(events.map((e) => [e.at, e.kind, e.text])).toEqual([
      [2_000, 'leader-lost', 'leader 3 (127.0.0.1:2193) lost: now down (connection refused)'],
      [2_000, 'alert-raised', 'alert raised: At the edge: 2 of 3 voters serving, one more failure loses the quorum'],
      [4_000, 'leader-elected', 'member 2 (127.0.0.1:2192) elected leader, epoch 1→2; no leader seen for 2 s after leader 3 (127.0.0.1:2193) was lost'],
    ]);
    const electedEvent = events.find((e) => e.kind === 'leader-elected')!;
    expect(electedEvent).toMatchObject({ epochFrom: 1, epochTo: 2, lostAt: 2_000, member: '127.0.0.1:2192' });
  });

  it('through an election with every follower out of the quorum, the new leader is said elected once, not also "serving again"', () => {
    const before = epoch1(healthy());
    const looking = [member(1, 'not-serving'), member(2, 'not-serving'), member(3, 'down')];
    const after = [member(1, 'follower', { epoch: 2 }), member(2, 'leader', { epoch: 2, syncedFollowers: 1 }), member(3, 'down')];
    const events = run([health(before, 1_000), health(looking, 2_000), health(after, 7_000)]).filter(
      (e) => e.at === 7_000 && e.kind !== 'alert-raised' && e.kind !== 'alert-cleared',
    );
    expect(events.map((e) => e.text)).toEqual([
      'member 2 (127.0.0.1:2192) elected leader, epoch 1→2; no leader seen for 5 s after leader 3 (127.0.0.1:2193) was lost',
      'member 1 (127.0.0.1:2191) serving again as follower after 5 s outside the quorum',
    ]);
  });

  it('narrates a member down and back, without repeating its "down" alert', () => {
    const up = healthy();
    const down = [up[0]!, member(2, 'down', {}, { detail: 'connection refused' }), member(3, 'leader', { syncedFollowers: 1 })];
    const events = run([health(up, 1_000), health(down, 6_000), health(up, 46_000)]).filter((e) => e.kind !== 'watching');
    expect(events.map((e) => e.text)).toEqual([
      'member 2 (127.0.0.1:2192) down (connection refused)',
      'alert raised: At the edge: 2 of 3 voters serving, one more failure loses the quorum',
      'member 2 (127.0.0.1:2192) serving again as follower after 40 s down',
      'alert no longer raised: At the edge: 2 of 3 voters serving, one more failure loses the quorum',
    ]);
  });

  it('tells a member going from down to unreachable, and a new member in the membership', () => {
    const a = healthy();
    const b = [a[0]!, member(2, 'down'), member(3, 'leader', { syncedFollowers: 1 })];
    const c = [a[0]!, member(2, 'unreachable', {}, { detail: 'no answer within 2 s' }), b[2]!, member(4, 'observer')];
    const events = run([health(a, 1_000), health(b, 2_000), health(c, 3_000)]).filter((e) => e.kind.startsWith('member'));
    expect(events.map((e) => e.text)).toEqual([
      'member 2 (127.0.0.1:2192) down (connection refused)',
      'member 2 (127.0.0.1:2192) now unreachable (no answer in time) (was down)',
      'member 4 (127.0.0.1:2194) appeared in the membership: observer',
    ]);
  });

  it('a title that changes under the same alert id is not a new alert', () => {
    const h1 = health(healthy(), 1_000);
    const raised = {
      ...h1,
      polledAt: 2_000,
      alerts: [{ id: 'request-herd', severity: 'warning' as const, title: 'Request herd: 30 sessions', why: '', action: '', members: [] }],
    };
    const changed = { ...raised, polledAt: 3_000, alerts: [{ ...raised.alerts[0]!, title: 'Request herd: 31 sessions' }] };
    const events = run([h1, raised, changed]).filter((e) => e.kind.startsWith('alert'));
    expect(events.map((e) => e.text)).toEqual(['alert raised: Request herd: 30 sessions']);
  });
});

describe('upgradeEvents', () => {
  const step = (memberId: number, state: string, extra: object = {}) => ({
    memberId,
    address: `127.0.0.1:219${memberId}`,
    state,
    reason: null,
    finishedAt: null,
    restartMethod: 'sandbox',
    phases: { gatesChecked: null, restarting: null, wentDown: null, back: null, synced: null },
    ...extra,
  });
  const wf = (state: string, steps: object[], extra: object = {}) =>
    ({ id: 'u1', mode: 'rolling', targetVersion: null, state, reason: null, startedAt: 100, finishedAt: null, steps, ...extra }) as unknown as UpgradeWorkflow;

  it('narrates the start, each restart and step done, and the end', () => {
    const planned = wf('planned', [step(1, 'pending'), step(3, 'pending')]);
    const running = wf('running', [step(1, 'restarting', { phases: { restarting: 200 } }), step(3, 'pending')]);
    const oneDone = wf('running', [step(1, 'done', { finishedAt: 300 }), step(3, 'pending')]);
    const done = wf('done', [step(1, 'done', { finishedAt: 300 }), step(3, 'done', { finishedAt: 500 })], { finishedAt: 500 });
    const events = [...upgradeEvents(planned, running, 0), ...upgradeEvents(running, oneDone, 0), ...upgradeEvents(oneDone, done, 0)];
    expect(events.map((e) => [e.at, e.text])).toEqual([
      [100, 'rolling restart started (2 members)'],
      [200, 'rolling restart: restarting member 1 (127.0.0.1:2191) (sandbox)'],
      [300, 'rolling restart: member 1 (127.0.0.1:2191) done'],
      [500, 'rolling restart: member 3 (127.0.0.1:2193) done'],
      [500, 'rolling restart done'],
    ]);
    expect(events.every((e) => e.kind === 'upgrade' && e.upgradeId === 'u1')).toBe(true);
  });

  it('does not say the state twice when the reason says it', () => {
    const planned = wf('planned', [step(1, 'pending')]);
    const aborted = wf('aborted', [step(1, 'pending')], { reason: 'Aborted by ann: the window closed', finishedAt: 700 });
    expect(upgradeEvents(planned, aborted, 0).map((e) => e.text)).toEqual(['rolling restart aborted by ann: the window closed']);
  });

  it('says why a step paused', () => {
    const running = wf('running', [step(2, 'back')], { targetVersion: '3.8.0' });
    const paused = wf('paused', [step(2, 'paused', { reason: 'not synced within 60 s', finishedAt: 900 })], { targetVersion: '3.8.0' });
    expect(upgradeEvents(running, paused, 1_000)).toEqual([
      expect.objectContaining({ at: 1_000, severity: 'warning', text: 'upgrade to 3.8.0: member 2 (127.0.0.1:2192) paused: not synced within 60 s' }),
    ]);
  });
});
