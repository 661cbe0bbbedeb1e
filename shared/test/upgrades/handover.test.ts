/**
 * With replicas, another replica takes an upgrade over when its replica's session ends: the
 * hand-over is kept in the workflow and on the timeline of each step under way, and the resume
 * that follows says who took over rather than "Keeper restarted".
 */
import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  handoverSentence,
  MAX_HANDOVERS,
  planUpgrade,
  recordHandover,
  resumeFrom,
  workflowReducer,
  upgradeWorkflowSchema,
} from '../../src/index.js';
import { threeVoters } from './support.js';

const T = 1_700_000_000_000;
const A = { replica: 'aaaaaaaaaaaa', name: 'host-a:8080' };
const B = { replica: 'bbbbbbbbbbbb', name: 'host-b:8080' };

function running() {
  const h = threeVoters(T);
  const wf = { ...createWorkflow({ id: 'u1', plan: planUpgrade({ health: h }), at: T, restartMethod: 'command' }), runBy: { ...A, since: T } };
  return workflowReducer(workflowReducer(wf, { type: 'start', at: T, by: 'alice', health: h }), {
    type: 'restartStarted',
    address: 'zk2:2181',
    at: T + 1_000,
    method: 'command',
    commandLine: 'ssh zk2 restart',
  });
}

describe('recordHandover', () => {
  it("names both replicas, takes ZooKeeper's time, and marks only the steps under way", () => {
    const at = T + 60_000;
    const wf = recordHandover(running(), { at, from: A, to: B });
    expect(wf.runBy).toEqual({ ...B, since: at });
    expect(wf.handovers).toEqual([{ at, from: A, to: B }]);
    const [current, ...later] = wf.steps;
    expect(current!.checks.at(-1)).toEqual({
      id: 'handover',
      ok: true,
      at,
      saw: "replica host-b:8080 took over after replica host-a:8080's session ended; it goes on from what was stored, and runs no step again",
    });
    for (const step of later) expect(step.checks.some((c) => c.id === 'handover')).toBe(false);
    // Stored and read back as it is (the home ensemble holds JSON).
    expect(upgradeWorkflowSchema.parse(JSON.parse(JSON.stringify(wf)))).toEqual(wf);
  });

  it('says so when the replica that ran it is not recorded, and keeps the last hand-overs only', () => {
    expect(handoverSentence({ from: null, to: B })).toBe('replica host-b:8080 took over after the session of the Keeper that ran it ended');
    let wf = running();
    for (let i = 0; i < MAX_HANDOVERS + 5; i++) wf = recordHandover(wf, { at: T + i, from: i % 2 ? A : B, to: i % 2 ? B : A });
    expect(wf.handovers).toHaveLength(MAX_HANDOVERS);
    expect(wf.handovers.at(-1)!.at).toBe(T + MAX_HANDOVERS + 4);
  });

  it('the resume after it starts with who took over, and never asks for the same restart again', () => {
    const later = T + 60_000;
    const wf = recordHandover(running(), { at: later, from: A, to: B });
    // Member 2 serves on, its uptime a minute longer: nothing shows the restart A asked for happened.
    const { workflow } = resumeFrom(wf, threeVoters(later, { 2: { uptimeSeconds: 3660 } }), later, { cause: 'replica host-b:8080 took over' });
    const step = workflow.steps[0]!;
    expect(step.restartRequestedAt).toBe(T + 1_000);
    expect(step.state).toBe('paused');
    expect(step.reason).toMatch(/^replica host-b:8080 took over after asking for the restart of member 2/);
  });
});
