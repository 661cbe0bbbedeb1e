import { describe, expect, it } from 'vitest';
import type { ReconfigWorkflow } from '@keeper/shared';
import { progressSentence, stateWord } from './resizeWords';

type Steps = ReconfigWorkflow['steps'];
const steps = (...states: Steps[number]['state'][]): Steps => states.map((state, i) => ({ index: i + 1, state })) as unknown as Steps;
const workflow = (state: ReconfigWorkflow['state'], s: Steps) => ({ state, steps: s }) as unknown as ReconfigWorkflow;

describe('the state of a resize, in the operator’s words', () => {
  it('calls a plan set aside before any step was sent discarded, not aborted (issue 34, item 14)', () => {
    const wf = workflow('aborted', steps('pending', 'pending'));
    expect(stateWord(wf)).toBe('discarded');
    expect(progressSentence(wf)).toBe('discarded: 2 steps, none sent');
  });

  it('keeps aborted for a resize stopped after a step was sent', () => {
    const wf = workflow('aborted', steps('done', 'pending'));
    expect(stateWord(wf)).toBe('aborted');
    expect(progressSentence(wf)).toBe('aborted after 1 of 2 steps');
    expect(stateWord(workflow('aborted', steps('sending', 'pending')))).toBe('aborted');
  });

  it('says every other state as it is', () => {
    expect(stateWord(workflow('planned', steps('pending')))).toBe('planned');
    expect(stateWord(workflow('done', steps('done')))).toBe('done');
  });
});
