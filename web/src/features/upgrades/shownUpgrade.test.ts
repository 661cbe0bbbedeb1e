/** Which workflow the view shows when the topic and an admin's own answer disagree, and the progress ticking between events. */
import { describe, expect, it } from 'vitest';
import { workflowReducer } from '@keeper/shared';
import { answer, finished, planned, restartingMember2 } from './fixtures';
import { pickShown, progressAt } from './shownUpgrade';

describe('pickShown', () => {
  it('takes the later update of the same upgrade, an active one over a finished one, and the topic otherwise', () => {
    const plan = answer(planned().wf);
    const { wf } = restartingMember2();
    const running = answer(wf);
    const paused = answer(workflowReducer(wf, { type: 'pause', at: wf.updatedAt + 1, by: 'alice' }));
    const done = answer({ ...finished().wf, id: 'u0' });
    expect(pickShown(running, paused)).toBe(paused);
    expect(pickShown(paused, running)).toBe(paused);
    expect(pickShown(done, plan)).toBe(plan);
    expect(pickShown(plan, done)).toBe(plan);
    expect(pickShown(null, plan)).toBe(plan);
    expect(pickShown(running, null)).toBe(running);
  });
});

describe('progressAt', () => {
  it('moves the elapsed time of a running upgrade on, never back, and leaves a finished one as it was', () => {
    const { wf } = restartingMember2();
    const a = answer(wf);
    expect(progressAt(a, wf.updatedAt + 10_000).progress.elapsedMs).toBe(a.progress.elapsedMs + 10_000);
    expect(progressAt(a, wf.updatedAt - 60_000).progress.elapsedMs).toBe(a.progress.elapsedMs);
    const done = answer(finished().wf);
    expect(progressAt(done, done.updatedAt + 60_000)).toBe(done);
  });
});
