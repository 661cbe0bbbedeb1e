/**
 * Seeded random runs on the toy ensemble: restarts of any speed (some never seen down), crashes
 * nobody asked for, pauses and resumes. Whatever happens, a member is restarted only when the
 * poll before showed every voter serving, one at a time, and the leader last.
 */
import { describe, expect, it } from 'vitest';
import { createWorkflow, planUpgrade, stepsToRestart, workflowReducer, type UpgradeWorkflow } from '../../src/index.js';
import { randomInt, seeded } from '../support/random.js';
import { ToyEnsemble } from './sim.js';

const T = 1_700_000_000_000;

function randomRun(seed: number) {
  const random = seeded(seed);
  const sim = new ToyEnsemble(T);
  const first = sim.poll();
  let wf: UpgradeWorkflow = createWorkflow({
    id: `p${seed}`,
    plan: planUpgrade({ health: first }),
    at: T,
    restartMethod: 'sandbox',
    timings: { settleMs: 2000 },
  });
  wf = workflowReducer(wf, { type: 'start', at: T, by: 'fuzz', health: first });
  const restarts: number[] = [];
  const violations: string[] = [];
  for (let i = 0; i < 400 && wf.state !== 'done'; i++) {
    if (random() < 0.04) sim.crash(1 + randomInt(random, 3), 1 + randomInt(random, 3));
    const h = sim.poll();
    wf = workflowReducer(wf, { type: 'poll', at: h.polledAt, health: h });
    if (wf.state === 'running' && random() < 0.03) wf = workflowReducer(wf, { type: 'pause', at: h.polledAt, by: 'fuzz' });
    else if (wf.state === 'paused' && random() < 0.3) wf = workflowReducer(wf, { type: 'resume', at: h.polledAt, by: 'fuzz' });
    for (const step of stepsToRestart(wf)) {
      const notServing = h.members.filter((m) => !['leader', 'follower'].includes(m.state));
      if (notServing.length > 0) violations.push(`restart of ${step.memberId} while ${notServing.map((m) => m.id).join(',')} did not serve`);
      if (restarts.length > 0 && wf.steps.some((s) => s.state !== 'done' && s.restartRequestedAt !== null)) violations.push('two restarts in flight');
      wf = workflowReducer(wf, { type: 'restartStarted', address: step.address, at: h.polledAt + 1, method: 'sandbox' });
      restarts.push(step.memberId!);
      sim.restart(step.memberId!, randomInt(random, 5));
    }
  }
  return { wf, restarts, violations };
}

describe('rolling restart under random timing and failures', () => {
  it.each(Array.from({ length: 60 }, (_, i) => i + 1))('seed %i: gates respected, one at a time, the leader last', (seed) => {
    const { wf, restarts, violations } = randomRun(seed);
    expect(violations).toEqual([]);
    // Each member restarted at most once: nothing is ever re-run.
    expect(new Set(restarts).size).toBe(restarts.length);
    expect(restarts).toEqual([2, 3, 1].slice(0, restarts.length));
    if (wf.state === 'done') expect(restarts).toEqual([2, 3, 1]);
  });

  it('most random runs finish', () => {
    const done = Array.from({ length: 60 }, (_, i) => randomRun(i + 1).wf.state).filter((s) => s === 'done').length;
    expect(done).toBeGreaterThan(40);
  });
});
