/** Who holds by each recipe's rule, and what each other contender waits for. */
import { describe, expect, it } from 'vitest';
import { planHolding, type ContenderRole } from '../../src/locks/index.js';

const roles = (spec: string): { role: ContenderRole }[] => [...spec].map((c) => ({ role: c === 'R' ? 'reader' : c === 'W' ? 'writer' : 'contender' }));
const holdingOf = (plan: { holding: boolean[] }) => plan.holding.map((h) => (h ? 'H' : '.')).join('');

describe('planHolding', () => {
  it('lowest: the first holds, each other waits for its predecessor', () => {
    const plan = planHolding('lowest', roles('xxxx'));
    expect(holdingOf(plan)).toBe('H...');
    expect(plan.blocker).toEqual([null, 0, 1, 2]);
    expect([plan.holders, plan.waiters]).toEqual([1, 3]);
  });

  it('readersBeforeWriter: every reader before the first writer holds; a writer only when first', () => {
    expect(holdingOf(planHolding('readersBeforeWriter', roles('RRWRR')))).toBe('HH...');
    expect(holdingOf(planHolding('readersBeforeWriter', roles('WRR')))).toBe('H..');
    expect(holdingOf(planHolding('readersBeforeWriter', roles('RRR')))).toBe('HHH');
    // A writer behind readers waits even though no writer is ahead of it.
    expect(holdingOf(planHolding('readersBeforeWriter', roles('RW')))).toBe('H.');
  });

  it('readersBeforeWriter: a reader waits for the nearest writer ahead, a writer for its predecessor', () => {
    const plan = planHolding('readersBeforeWriter', roles('RWRWR'));
    expect(plan.blocker).toEqual([null, 0, 1, 2, 3]);
    const readers = planHolding('readersBeforeWriter', roles('WRRR'));
    expect(readers.blocker).toEqual([null, 0, 0, 0]);
  });

  it('firstN: the first N hold; the others wait N places ahead', () => {
    const plan = planHolding('firstN', roles('xxxxx'), 2);
    expect(holdingOf(plan)).toBe('HH...');
    expect(plan.blocker).toEqual([null, null, 0, 1, 2]);
  });

  it('firstN with N unknown counts every lease as held', () => {
    expect(holdingOf(planHolding('firstN', roles('xxx'), null))).toBe('HHH');
  });

  it('all and none', () => {
    expect(holdingOf(planHolding('all', roles('xxx')))).toBe('HHH');
    const none = planHolding('none', roles('xxx'));
    expect(holdingOf(none)).toBe('...');
    expect(none.blocker).toEqual([null, null, null]);
    expect(none.waiters).toBe(3);
  });
});
