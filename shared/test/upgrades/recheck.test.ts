/**
 * "Done" means every member was checked at the end (issue 22, items 1 and 2): a skipped member,
 * one off target or out of its role, makes an upgrade "done with exceptions", each member named
 * with its build; "restart again" reopens a paused step.
 */
import { describe, expect, it } from 'vitest';
import {
  buildWords,
  createWorkflow,
  offTargetWords,
  planUpgrade,
  recheckMember,
  skipPhrase,
  stepsToRestart,
  upgradeProgress,
  workflowReducer,
  type EnsembleHealth,
  type UpgradeWorkflow,
} from '../../src/index.js';
import { NEW, OLD, threeVoters } from './support.js';

const T = 1_700_000_000_000;
const TARGET = 'built on 2024-12-29';

function started(targetVersion: string | null): UpgradeWorkflow {
  const h = threeVoters(T);
  const wf = createWorkflow({
    id: 'u1',
    plan: planUpgrade({ health: h, targetVersion }),
    at: T,
    by: 'alice',
    restartMethod: 'sandbox',
    timings: { settleMs: 2000 },
  });
  return workflowReducer(wf, { type: 'start', at: T, by: 'alice', health: h });
}

const poll = (wf: UpgradeWorkflow, h: EnsembleHealth) => workflowReducer(wf, { type: 'poll', at: h.polledAt, health: h });

/** Restarts the current step's member onto `version` and polls until the step ends or pauses. */
function restartCurrent(wf: UpgradeWorkflow, at: number, version: (id: number) => string, uptime: Map<number, number>): { wf: UpgradeWorkflow; at: number } {
  // The next step's gates pass on a poll first.
  if (stepsToRestart(wf).length === 0)
    wf = poll(
      wf,
      threeVoters(at - 1, {
        1: { uptimeSeconds: uptime.get(1)!, version: version(1) },
        2: { uptimeSeconds: uptime.get(2)!, version: version(2) },
        3: { uptimeSeconds: uptime.get(3)!, version: version(3) },
      }),
    );
  const [step] = stepsToRestart(wf);
  if (!step) throw new Error(`nothing to restart: ${wf.state} ${wf.reason}`);
  let next = workflowReducer(wf, { type: 'restartStarted', address: step.address, at, method: 'sandbox' });
  uptime.set(step.memberId!, 0);
  const before = next.steps.findIndex((s) => s.address === step.address);
  for (let t = at + 2000; t < at + 20_000; t += 2000) {
    for (const [id, up] of uptime) uptime.set(id, up + 2);
    const h = threeVoters(t, {
      1: { uptimeSeconds: uptime.get(1)!, version: version(1) },
      2: { uptimeSeconds: uptime.get(2)!, version: version(2) },
      3: { uptimeSeconds: uptime.get(3)!, version: version(3) },
    });
    next = workflowReducer(next, { type: 'poll', at: t, health: h });
    const s = next.steps[before]!;
    if (s.state === 'done' || s.state === 'paused') return { wf: next, at: t + 1 };
  }
  throw new Error('the step neither ended nor paused');
}

describe('the words for a build', () => {
  it('names the release and the date', () => {
    expect(buildWords(OLD)).toBe('3.8.0 built on 2023-10-30');
    expect(buildWords('3.9.3')).toBe('3.9.3');
    expect(buildWords(null)).toBe('an unknown version');
    expect(offTargetWords(OLD, TARGET)).toBe('runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29');
    expect(offTargetWords(OLD, NEW)).toBe('runs 3.8.0 built on 2023-10-30, not the target 3.8.0 built on 2024-12-29');
    // Short words that would read the same: the whole strings.
    expect(offTargetWords('3.8.0-abc, built on 2024-12-29 10:00 UTC', NEW)).toBe(`runs 3.8.0-abc, built on 2024-12-29 10:00 UTC, not the target ${NEW}`);
  });
});

describe('done, and done with exceptions', () => {
  it('every member on the target: done, after every member was checked at the end', () => {
    let wf = started(TARGET);
    let at = T + 1000;
    const uptime = new Map([
      [1, 3600],
      [2, 3600],
      [3, 3600],
    ]);
    const upgraded = new Set<number>();
    for (let i = 0; i < 3; i++) {
      const id = stepsToRestart(wf)[0]!.memberId!;
      upgraded.add(id);
      ({ wf, at } = restartCurrent(wf, at, (m) => (upgraded.has(m) ? NEW : OLD), uptime));
    }
    expect(wf.state).toBe('done');
    expect(wf.recheck).toMatchObject({ why: 'end' });
    expect(wf.recheck!.members.map((m) => [m.memberId, m.ok])).toEqual([
      [2, true],
      [3, true],
      [1, true],
    ]);
    expect(wf.recheck!.members[0]!.saw).toBe('member 2 runs 3.8.0 built on 2024-12-29, the target');
    for (const s of wf.steps) expect(s.checks.at(-1)).toMatchObject({ id: 'recheck', ok: true });
  });

  it('a skipped member ends it "done with exceptions", never done, naming the member and its build', () => {
    let wf = started(null);
    let at = T + 1000;
    const uptime = new Map([
      [1, 3600],
      [2, 3600],
      [3, 3600],
    ]);
    ({ wf, at } = restartCurrent(wf, at, () => OLD, uptime));
    expect(wf.steps[0]!.state).toBe('done');
    // Member 3 is skipped with its phrase, then the leader rolls.
    wf = workflowReducer(wf, { type: 'skip', address: 'zk3:2181', at, by: 'alice', confirmation: skipPhrase(wf.steps[1]!) });
    ({ wf, at } = restartCurrent(wf, at, () => OLD, uptime));
    expect(wf.state).toBe('doneWithExceptions');
    expect(wf.reason).toBe('member 3 was skipped (not restarted by this upgrade); it runs 3.8.0 built on 2023-10-30.');
    expect(upgradeProgress(wf, at).sentence).toMatch(/^Done with exceptions: 2 members restarted in \d+ s, 1 skipped; not as planned: member 3\.$/);
    expect(wf.steps[1]!.checks.at(-1)).toMatchObject({ id: 'recheck', ok: false });
  });

  it("the issue's case: a member done earlier is back on the old build, and the last one is skipped: both named", () => {
    let wf = started(TARGET);
    let at = T + 1000;
    const uptime = new Map([
      [1, 3600],
      [2, 3600],
      [3, 3600],
    ]);
    ({ wf, at } = restartCurrent(wf, at, (m) => (m === 2 ? NEW : OLD), uptime));
    ({ wf, at } = restartCurrent(wf, at, (m) => (m === 2 || m === 3 ? NEW : OLD), uptime));
    expect(wf.steps.map((s) => s.state)).toEqual(['done', 'done', 'gatesChecked']);
    // The leader's restart is skipped; meanwhile member 2 came back on the old build (its launcher restarted it).
    wf = workflowReducer(wf, { type: 'skip', address: 'zk1:2181', at, by: 'alice', confirmation: 'skip member 1' });
    // The last step ended without a poll: not done yet, the members are checked on the next one.
    expect(wf.state).toBe('running');
    expect(upgradeProgress(wf, at).sentence).toBe("Checking every member's version and role before calling it done.");
    wf = poll(wf, threeVoters(at + 1000, { 2: { uptimeSeconds: 4, version: OLD }, 3: { version: NEW } }));
    expect(wf.state).toBe('doneWithExceptions');
    expect(wf.reason).toBe(
      'member 2 runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29; member 1 was skipped (not restarted by this upgrade); it runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29.',
    );
    expect(wf.recheck!.members.filter((m) => m.ok).map((m) => m.memberId)).toEqual([3]);
  });

  it('a member down or in another role at the end is an exception too', () => {
    const wf = started(null);
    const step = wf.steps[0]!;
    const down = threeVoters(T, { 2: { state: 'down' }, 1: { syncedFollowers: 1 } });
    expect(recheckMember({ ...step, state: 'done' }, down, null)).toMatchObject({
      ok: false,
      saw: 'member 2 is down (connection refused), so its build is not known',
    });
    const observer = threeVoters(T, { 2: { state: 'observer' } });
    expect(recheckMember({ ...step, state: 'done' }, observer, TARGET).saw).toBe(
      'member 2 serves as observer, not as a follower or the leader; it runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29',
    );
    const gone = { ...down, members: down.members.filter((m) => m.id !== 2) };
    expect(recheckMember({ ...step, state: 'done' }, gone, null)).toMatchObject({ ok: false, state: 'absent' });
  });
});

describe('an operator resume', () => {
  it("checks the finished steps' members again when the poll is at hand", () => {
    let wf = started('built on 2024-12-29');
    const uptime = new Map([
      [1, 3600],
      [2, 3600],
      [3, 3600],
    ]);
    const first = restartCurrent(wf, T + 1000, (m) => (m === 2 ? NEW : OLD), uptime);
    wf = first.wf;
    const at = first.at;
    expect(wf.steps[0]!.state).toBe('done');
    wf = workflowReducer(wf, { type: 'pause', at, by: 'alice' });
    // Meanwhile member 2 was brought back on the old build.
    wf = workflowReducer(wf, { type: 'resume', at: at + 1000, by: 'alice', health: threeVoters(at + 1000, { 2: { uptimeSeconds: 3, version: OLD } }) });
    expect(wf.state).toBe('running');
    expect(wf.recheck).toMatchObject({ why: 'resume', members: [{ memberId: 2, ok: false }] });
    expect(wf.steps[0]!.checks.at(-1)!.saw).toBe('checked again on resuming: member 2 runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29');
  });
});

describe('restart again', () => {
  it('reopens the paused step and runs the workflow again; the restart is asked for once the gates pass', () => {
    let wf = started(TARGET);
    const uptime = new Map([
      [1, 3600],
      [2, 3600],
      [3, 3600],
    ]);
    const first = restartCurrent(wf, T + 1000, () => OLD, uptime);
    wf = first.wf;
    const at = first.at;
    expect(wf.state).toBe('paused');
    expect(wf.reason).toBe(
      'member 2 serves and is synced, but runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29. Restart it again, skip it, or abort.',
    );
    wf = workflowReducer(wf, { type: 'restartAgain', address: 'zk2:2181', at, by: 'bob' });
    expect(wf).toMatchObject({ state: 'running', reason: null });
    expect(wf.steps[0]).toMatchObject({ state: 'pending', restartRequestedAt: null });
    expect(stepsToRestart(wf)).toEqual([]);
    wf = poll(wf, threeVoters(at + 1000, { 2: { uptimeSeconds: 30 } }));
    expect(stepsToRestart(wf).map((s) => s.address)).toEqual(['zk2:2181']);
    ({ wf } = restartCurrent(wf, at + 2000, (m) => (m === 2 ? NEW : OLD), uptime));
    expect(wf.steps[0]!.state).toBe('done');
    expect(wf.state).toBe('running');
  });

  it('is refused on a finished, planned or running-step workflow, with the reason', () => {
    const wf = started(null);
    expect(workflowReducer(wf, { type: 'restartAgain', address: 'zk2:2181', at: T + 1, by: 'bob' })).toBe(wf);
  });
});
