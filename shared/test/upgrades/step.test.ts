/** One member's step through a normal restart, a fast one, one that never comes back, and operator actions. */
import { describe, expect, it } from 'vitest';
import {
  activateStep,
  DEFAULT_TIMINGS,
  newStep,
  orderMembers,
  skipPhrase,
  stepActionError,
  stepReducer,
  type EnsembleHealth,
  type StepContext,
  type StepEvent,
  type UpgradeStep,
} from '../../src/index.js';
import { health, NEW, threeVoters } from './support.js';

const T = 1_700_000_000_000;
const ctx: StepContext = { timings: DEFAULT_TIMINGS, targetVersion: null, referenceLeaderZxid: null, outageConfirmed: false, mode: 'rolling' };

/** Member 2's step (the first in the order: leader 1, followers 2 and 3), made current at T. */
function memberTwo(): UpgradeStep {
  const first = orderMembers(threeVoters(T))[0]!;
  expect(first.memberId).toBe(2);
  return activateStep(newStep(first), T, DEFAULT_TIMINGS);
}

const poll = (health: EnsembleHealth): StepEvent => ({ type: 'poll', at: health.polledAt, health });
const run = (step: UpgradeStep, events: StepEvent[], context = ctx) => events.reduce((s, e) => stepReducer(s, e, context), step);
const started = (at: number): StepEvent => ({ type: 'restartStarted', at, method: 'command', commandLine: 'ssh zk2 sudo systemctl restart zookeeper' });
const checkSaw = (step: UpgradeStep, id: string) => step.checks.filter((c) => c.id === id).at(-1);

describe('stepReducer', () => {
  it('a normal restart: gates, restart, down, back, synced, settled', () => {
    let step = run(memberTwo(), [poll(threeVoters(T))]);
    expect(step.state).toBe('gatesChecked');
    expect(step.checks.filter((c) => c.ok).map((c) => c.id)).toEqual([
      'member-present',
      'voters-serving',
      'synced-followers',
      'zxid-caught-up',
      'members-answer',
      'tolerates-failure',
    ]);
    expect(step.baseline).toMatchObject({ uptimeSeconds: 3600, polledAt: T });

    step = run(step, [started(T + 1000)]);
    expect(step).toMatchObject({
      state: 'restarting',
      restartRequestedAt: T + 1000,
      restartMethod: 'command',
      deadlineAt: T + 1000 + DEFAULT_TIMINGS.wentDownWithinMs,
    });

    step = run(step, [poll(threeVoters(T + 3000, { 1: { syncedFollowers: 1 }, 2: { state: 'down' } }))]);
    expect(step).toMatchObject({ state: 'wentDown', evidence: 'seen-down' });
    expect(checkSaw(step, 'went-down')).toEqual({ id: 'went-down', ok: true, saw: 'seen down (connection refused)', at: T + 3000 });

    step = run(step, [{ type: 'restartResult', at: T + 4000, exitCode: 0, outputTail: 'ok\n' }]);
    expect(step.command).toEqual({
      line: 'ssh zk2 sudo systemctl restart zookeeper',
      exitCode: 0,
      outputTail: 'ok\n',
      deadlineAt: null,
      process: null,
      withheld: false,
    });
    expect(step.state).toBe('wentDown');

    step = run(step, [poll(threeVoters(T + 8000, { 1: { syncedFollowers: 1 }, 2: { uptimeSeconds: 2, zxid: '0x10000000f' } }))]);
    expect(step.state).toBe('back');
    expect(checkSaw(step, 'back-serving')?.saw).toBe('serving again as follower');
    expect(checkSaw(step, 'synced-followers')).toMatchObject({
      ok: false,
      saw: "1 of 2 followers synced (the leader member 1's AdminServer monitor synced_followers)",
    });
    expect(checkSaw(step, 'zxid-caught-up')).toMatchObject({ ok: false });

    step = run(step, [poll(threeVoters(T + 10_000, { 2: { uptimeSeconds: 4 } }))]);
    expect(step).toMatchObject({ state: 'settling', settleUntil: T + 10_000 + DEFAULT_TIMINGS.settleMs });
    expect(step.phases.synced).toBe(T + 10_000);

    step = run(step, [poll(threeVoters(T + 15_000, { 2: { uptimeSeconds: 9 } }))]);
    expect(step.state).toBe('settling');
    step = run(step, [poll(threeVoters(T + 20_000, { 2: { uptimeSeconds: 14 } }))]);
    expect(step).toMatchObject({ state: 'done', finishedAt: T + 20_000 });
    expect(step.phases).toEqual({ gatesChecked: T, restarting: T + 1000, wentDown: T + 3000, back: T + 8000, synced: T + 10_000 });
    expect(checkSaw(step, 'settled')?.saw).toBe('still serving as follower after 10 s');
  });

  it('a fast restart that never looks down is seen by its uptime going back', () => {
    let step = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000)]);
    step = run(step, [poll(threeVoters(T + 4000, { 2: { uptimeSeconds: 1 } }))]);
    expect(step.evidence).toBe('uptime-reset');
    expect(checkSaw(step, 'went-down')?.saw).toBe('uptime went back to 1 s (it was 3600 s, and would be about 3604 s without a restart)');
    // Serving, synced and caught up on the same poll: straight on to settling.
    expect(step.state).toBe('settling');
  });

  it('a member whose uptime keeps counting has not restarted yet', () => {
    const step = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000), poll(threeVoters(T + 4000, { 2: { uptimeSeconds: 3604 } }))]);
    expect(step.state).toBe('restarting');
  });

  it('a restart seen by the version changing, and a target version checked before synced', () => {
    const withTarget = { ...ctx, targetVersion: '2024-12-29' };
    let step = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000)], withTarget);
    step = run(step, [poll(threeVoters(T + 4000, { 2: { uptimeSeconds: null, version: NEW } }))], withTarget);
    expect(step.evidence).toBe('version-changed');
    expect(checkSaw(step, 'version-matches')).toMatchObject({ ok: true });
  });

  it('a member back and synced on another build pauses at once, saying so (not "did not sync"), and may be restarted again', () => {
    const withTarget = { ...ctx, targetVersion: 'built on 2024-12-29' };
    let wrong = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000)], withTarget);
    wrong = run(wrong, [poll(threeVoters(T + 4000, { 2: { uptimeSeconds: 1 } }))], withTarget);
    const sentence = 'member 2 serves and is synced, but runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29';
    expect(wrong).toMatchObject({ state: 'paused', pausedFrom: 'back', reason: `${sentence}. Restart it again, skip it, or abort.` });
    expect(wrong.phases.synced).toBe(T + 4000);
    expect(checkSaw(wrong, 'version-matches')).toMatchObject({ ok: false, saw: `${sentence}. Restart it again, skip it, or abort.` });
    expect(wrong.reason).not.toContain('sync within');

    // "Restart again": the step starts over at its gates; its restart is asked for again once they pass.
    expect(stepActionError(wrong, { type: 'restartAgain', at: T + 5000, by: 'alice' })).toBeNull();
    let again = run(wrong, [{ type: 'restartAgain', at: T + 5000, by: 'alice' }], withTarget);
    expect(again).toMatchObject({
      state: 'pending',
      restartRequestedAt: null,
      evidence: null,
      baseline: null,
      deadlineAt: T + 5000 + DEFAULT_TIMINGS.gatesWithinMs,
    });
    expect(again.phases).toEqual({ gatesChecked: null, restarting: null, wentDown: null, back: null, synced: null });
    expect(checkSaw(again, 'operator')?.saw).toBe('alice asked for another restart: the gates are checked first');
    again = run(again, [poll(threeVoters(T + 6000, { 2: { uptimeSeconds: 3 } })), started(T + 7000)], withTarget);
    expect(again).toMatchObject({ state: 'restarting', restartRequestedAt: T + 7000 });
    // This time it comes back on the target.
    again = run(again, [poll(threeVoters(T + 10_000, { 2: { uptimeSeconds: 1, version: NEW } }))], withTarget);
    expect(again.state).toBe('settling');
    expect(checkSaw(again, 'version-matches')).toMatchObject({ ok: true });
  });

  it('restart again is refused before the restart was asked for, and on a step that is not paused', () => {
    const waiting = run(memberTwo(), [poll(threeVoters(T, { 1: { syncedFollowers: 1 } })), poll(threeVoters(T + 60_000, { 1: { syncedFollowers: 1 } }))]);
    expect(waiting.state).toBe('paused');
    expect(stepActionError(waiting, { type: 'restartAgain', at: T, by: 'a' })).toBe(
      'Only a paused step whose restart was already asked for can be restarted again (member 2 (zk2:2181) is paused before its restart: resume it)',
    );
    const restarting = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000)]);
    expect(stepActionError(restarting, { type: 'restartAgain', at: T, by: 'a' })).toContain('is restarting');
    expect(run(restarting, [{ type: 'restartAgain', at: T + 2000, by: 'a' }])).toBe(restarting);
  });

  it('a step paused before its restart was seen keeps watching, and goes on when the restart shows', () => {
    // The restart timed out (a command that runs long, a person who has not got to it yet)...
    let step = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000), { type: 'tick', at: T + 1000 + DEFAULT_TIMINGS.wentDownWithinMs }]);
    expect(step).toMatchObject({ state: 'paused', pausedFrom: 'restarting' });
    // ...its uptime still counting: nothing changes...
    step = run(step, [poll(threeVoters(T + 100_000, { 2: { uptimeSeconds: 3700 } }))]);
    expect(step.state).toBe('paused');
    // ...then the member restarts after all: the step goes on by itself.
    step = run(step, [poll(threeVoters(T + 104_000, { 2: { uptimeSeconds: 2 } }))]);
    expect(step).toMatchObject({
      state: 'wentDown',
      pausedFrom: null,
      reason: null,
      evidence: 'uptime-reset',
      deadlineAt: T + 104_000 + DEFAULT_TIMINGS.backWithinMs,
    });
    expect(checkSaw(step, 'went-down')?.saw).toMatch(/^uptime went back to 2 s .*: the restart happened after the pause, so the step goes on$/);
    step = run(step, [poll(threeVoters(T + 106_000, { 2: { uptimeSeconds: 4 } }))]);
    expect(step.state).toBe('settling');
  });

  it('a failed command pause lifts on a restart seen; a step paused after it came back does not', () => {
    const failed = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000), { type: 'restartResult', at: T + 2000, exitCode: 1, outputTail: '' }]);
    expect(failed.state).toBe('paused');
    expect(run(failed, [poll(threeVoters(T + 9000, { 2: { state: 'down' } }))])).toMatchObject({ state: 'wentDown', evidence: 'seen-down' });
    // Paused in its "back" phase (another build): a poll never moves it; restart again, skip or abort do.
    const withTarget = { ...ctx, targetVersion: 'built on 2024-12-29' };
    const wrong = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000), poll(threeVoters(T + 4000, { 2: { uptimeSeconds: 1 } }))], withTarget);
    expect(wrong.state).toBe('paused');
    expect(run(wrong, [poll(threeVoters(T + 9000, { 2: { uptimeSeconds: 0 } }))], withTarget)).toBe(wrong);
  });

  it('a member that never comes back pauses the step with the reason', () => {
    let step = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000), poll(threeVoters(T + 3000, { 2: { state: 'down' } }))]);
    step = run(step, [poll(threeVoters(T + 60_000, { 2: { state: 'down' } }))]);
    expect(step.state).toBe('wentDown');
    step = run(step, [poll(threeVoters(T + 3000 + DEFAULT_TIMINGS.backWithinMs, { 2: { state: 'down' } }))]);
    expect(step).toMatchObject({
      state: 'paused',
      pausedFrom: 'wentDown',
      reason: 'member 2 (zk2:2181) did not come back within 120 s: last seen down (connection refused). Nothing else is restarted until it serves.',
    });
    expect(checkSaw(step, 'timeout')?.ok).toBe(false);
  });

  it('a tick past the deadline pauses too, without a poll', () => {
    const step = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000), { type: 'tick', at: T + 1000 + DEFAULT_TIMINGS.wentDownWithinMs }]);
    expect(step).toMatchObject({ state: 'paused', pausedFrom: 'restarting' });
    expect(step.reason).toContain('member 2 (zk2:2181) did not go down or restart within 90 s of the restart');
  });

  it('a failed restart command pauses with its exit code; its output stays in the command record (admins only)', () => {
    const step = run(memberTwo(), [
      poll(threeVoters(T)),
      started(T + 1000),
      { type: 'restartResult', at: T + 2000, exitCode: 255, outputTail: 'ssh: connect to host zk2 port 22: Connection refused\n' },
    ]);
    expect(step).toMatchObject({
      state: 'paused',
      reason: 'The restart of member 2 (zk2:2181) failed: the restart exited 255',
    });
    expect(step.command).toMatchObject({ exitCode: 255, outputTail: 'ssh: connect to host zk2 port 22: Connection refused\n' });
    expect(JSON.stringify(step.checks)).not.toContain('ssh zk2');
    expect(JSON.stringify(step.checks)).not.toContain('Connection refused');
  });

  it('failing gates keep the step waiting, then pause it; a gatesChecked step goes back to waiting', () => {
    let step = run(memberTwo(), [poll(threeVoters(T, { 1: { syncedFollowers: 1 } }))]);
    expect(step.state).toBe('pending');
    step = run(step, [poll(threeVoters(T + DEFAULT_TIMINGS.gatesWithinMs, { 1: { syncedFollowers: 1 } }))]);
    expect(step.state).toBe('paused');
    expect(step.reason).toContain('The gates did not pass within 60 s before restarting member 2 (zk2:2181): synced-followers: 1 of 2 followers synced');

    let ready = run(memberTwo(), [poll(threeVoters(T))]);
    ready = run(ready, [poll(threeVoters(T + 2000, { 3: { state: 'down' } }))]);
    expect(ready.state).toBe('pending');
    expect(stepReducer(ready, started(T + 2500), ctx).state).toBe('pending');
  });

  it('a member that left the configuration fails the step', () => {
    const step = run(memberTwo(), [poll({ ...threeVoters(T), members: threeVoters(T).members.filter((m) => m.id !== 2) })]);
    expect(step).toMatchObject({ state: 'failed', reason: "member 2 (zk2:2181) is no longer in the ensemble's configuration" });
  });

  it('skipping needs the typed phrase', () => {
    const step = run(memberTwo(), [poll(threeVoters(T))]);
    expect(skipPhrase(step)).toBe('skip member 2');
    const wrong = { type: 'skip', at: T + 1, by: 'alice', confirmation: 'skip' } as const;
    expect(stepActionError(step, wrong)).toBe('To skip member 2 (zk2:2181), type "skip member 2"');
    expect(stepReducer(step, wrong, ctx)).toBe(step);
    const skipped = stepReducer(step, { ...wrong, confirmation: 'skip member 2' }, ctx);
    expect(skipped).toMatchObject({ state: 'skipped', finishedAt: T + 1, reason: 'Skipped by alice' });
    expect(checkSaw(skipped, 'operator')?.saw).toBe('skipped by alice, who typed "skip member 2"');
  });

  it('pause and resume return to the phase with a fresh deadline', () => {
    let step = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000), poll(threeVoters(T + 3000, { 2: { state: 'down' } }))]);
    step = stepReducer(step, { type: 'pause', at: T + 4000, by: 'alice', reason: 'coffee' }, ctx);
    expect(step).toMatchObject({ state: 'paused', pausedFrom: 'wentDown', reason: 'Paused by alice: coffee', deadlineAt: null });
    expect(stepReducer(step, { type: 'poll', at: T + 5000, health: threeVoters(T + 5000) }, ctx)).toBe(step);
    step = stepReducer(step, { type: 'resume', at: T + 500_000, by: 'alice' }, ctx);
    expect(step).toMatchObject({ state: 'wentDown', reason: null, deadlineAt: T + 500_000 + DEFAULT_TIMINGS.backWithinMs });
  });

  it('markDone: the operator says the manual restart happened; back and sync are still checked', () => {
    let step = run(memberTwo(), [
      poll(threeVoters(T)),
      { type: 'restartStarted', at: T + 1000, method: 'manual', instruction: 'Restart member 2, zk2:2181, now.' },
    ]);
    expect(checkSaw(step, 'restart-command')?.saw).toBe('Restart member 2, zk2:2181, now.');
    expect(stepActionError(memberTwo(), { type: 'markDone', at: T, by: 'bob' })).toContain('Only a step whose restart was asked for');
    step = stepReducer(step, { type: 'markDone', at: T + 9000, by: 'bob' }, ctx);
    expect(step).toMatchObject({ state: 'wentDown', evidence: 'operator-confirmed' });
    step = stepReducer(step, poll(threeVoters(T + 10_000)), ctx);
    expect(step.state).toBe('settling');
  });

  it('a member that goes down again while settling is waited for again', () => {
    let step = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000), poll(threeVoters(T + 4000, { 2: { uptimeSeconds: 1 } }))]);
    expect(step.state).toBe('settling');
    step = stepReducer(step, poll(threeVoters(T + 6000, { 2: { state: 'down' }, 1: { syncedFollowers: 1 } })), ctx);
    expect(step).toMatchObject({ state: 'wentDown', deadlineAt: T + 6000 + DEFAULT_TIMINGS.backWithinMs });
  });

  it('a member back but never synced pauses with the failing sync checks', () => {
    let step = run(memberTwo(), [poll(threeVoters(T)), started(T + 1000), poll(threeVoters(T + 3000, { 2: { state: 'down' }, 1: { syncedFollowers: 1 } }))]);
    step = run(step, [poll(threeVoters(T + 5000, { 2: { uptimeSeconds: 1 }, 1: { syncedFollowers: 1 } }))]);
    expect(step.state).toBe('back');
    step = run(step, [poll(threeVoters(T + 5000 + DEFAULT_TIMINGS.syncedWithinMs, { 2: { uptimeSeconds: 61 }, 1: { syncedFollowers: 1 } }))]);
    expect(step.state).toBe('paused');
    expect(step.reason).toBe(
      "member 2 (zk2:2181) serves again but did not sync within 60 s: synced-followers: 1 of 2 followers synced (the leader member 1's AdminServer monitor synced_followers)",
    );
  });

  it('an observer must come back as an observer', () => {
    const h = (at: number, state: 'observer' | 'follower' | 'down', uptime = 3600) =>
      health(
        [
          { id: 1, state: 'leader', syncedFollowers: 2 },
          { id: 2, state: 'follower' },
          { id: 3, state: 'follower' },
          { id: 4, state, observer: true, uptimeSeconds: uptime },
        ],
        at,
      );
    const plan = orderMembers(h(T, 'observer'));
    let step = activateStep(newStep(plan[0]!), T, DEFAULT_TIMINGS);
    expect(step.role).toBe('observer');
    step = run(step, [poll(h(T, 'observer')), started(T + 1000), poll(h(T + 3000, 'down'))]);
    step = run(step, [poll(h(T + 5000, 'follower', 1))]);
    expect(step.state).toBe('wentDown');
    expect(checkSaw(step, 'back-serving')).toMatchObject({ ok: false, saw: 'serving as follower, expected observer' });
    step = run(step, [poll(h(T + 7000, 'observer', 3))]);
    expect(step.state).toBe('settling');
  });

  it('a single server, once the outage is confirmed, restarts and comes back standalone', () => {
    const solo = (at: number, state: 'standalone' | 'down', uptime = 3600) => health([{ id: 1, state, uptimeSeconds: uptime }], at);
    const confirmed = { ...ctx, outageConfirmed: true };
    let step = activateStep(newStep(orderMembers(solo(T, 'standalone'))[0]!), T, DEFAULT_TIMINGS);
    expect(run(step, [poll(solo(T, 'standalone'))]).state).toBe('pending');
    step = run(step, [poll(solo(T, 'standalone')), started(T + 1000), poll(solo(T + 3000, 'down')), poll(solo(T + 5000, 'standalone', 1))], confirmed);
    expect(step.state).toBe('settling');
    expect(checkSaw(step, 'zxid-caught-up')?.saw).toBe('it runs standalone: its zxid is the reference');
  });
});
