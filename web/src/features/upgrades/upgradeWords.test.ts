import { describe, expect, it } from 'vitest';
import { upgradeWord } from './upgradeWords';

describe('the state of an upgrade, in the operator’s words', () => {
  it('calls an upgrade set aside before it started discarded, not aborted', () => {
    expect(upgradeWord({ state: 'aborted', startedAt: null })).toBe('discarded');
  });

  it('keeps aborted for one stopped after it started, and says the others as they are', () => {
    expect(upgradeWord({ state: 'aborted', startedAt: 1_796_600_000_000 })).toBe('aborted');
    expect(upgradeWord({ state: 'doneWithExceptions', startedAt: 1_796_600_000_000 })).toBe('done with exceptions');
    expect(upgradeWord({ state: 'planned', startedAt: null })).toBe('planned');
  });
});
