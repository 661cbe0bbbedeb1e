/** "What it waits for": the chain from a waiter to the holder. */
import { describe, expect, it } from 'vitest';
import { buildWaitChains, planHolding, shortName, waitsForText, type ContenderRole, type ContenderStatus } from '../../src/locks/index.js';
import { curator, kazooLock, seq } from './support.js';

function texts(
  names: string[],
  roles: ContenderRole[],
  opts: { rule?: 'lowest' | 'readersBeforeWriter'; statuses?: Record<number, ContenderStatus>; holderWord?: string } = {},
) {
  const plan = planHolding(
    opts.rule ?? 'lowest',
    roles.map((role) => ({ role })),
  );
  const statusOf = (i: number) => opts.statuses?.[i];
  const chains = buildWaitChains(plan, statusOf);
  return { chains, text: names.map((_, i) => waitsForText(i, { names, plan, chains, statusOf, holderWord: opts.holderWord ?? 'holder' })) };
}

describe('waitsForText', () => {
  it('"c waits for b waits for a (holder)"', () => {
    const { text } = texts(['a', 'b', 'c'], ['contender', 'contender', 'contender']);
    expect(text).toEqual([null, 'b waits for a (holder)', 'c waits for b waits for a (holder)']);
  });

  it('names the leader in an election, and marks stuck links', () => {
    const { text, chains } = texts(['a', 'b', 'c'], ['contender', 'contender', 'contender'], {
      holderWord: 'leader',
      statuses: { 0: 'persistent', 1: 'leaked' },
    });
    expect(text[2]).toBe('c waits for b (leaked) waits for a (leader, persistent)');
    expect(chains.stuckAt).toEqual([null, 0, 1]);
  });

  it('tags the waiter at the head of its own chain when it is itself leaked or persistent (issue 22, item 10)', () => {
    const { text } = texts(['a', 'b', 'c'], ['contender', 'contender', 'contender'], { statuses: { 1: 'leaked', 2: 'persistent' } });
    expect(text[1]).toBe('b (leaked) waits for a (holder)');
    expect(text[2]).toBe('c (persistent) waits for b (leaked) waits for a (holder)');
  });

  it('carries the nearest stuck link down the whole chain', () => {
    const { chains } = texts(['a', 'b', 'c', 'd'], ['contender', 'contender', 'contender', 'contender'], { statuses: { 1: 'leaked' } });
    expect(chains.stuckAt).toEqual([null, null, 1, 1]);
  });

  // How long 100,000 take, and that it grows linearly: bench/lockAnalysis.ts (not a budget here, where other files share the CPU).
  it('shortens a long chain in the middle, for 100,000 contenders', () => {
    const n = 100_000;
    const names = Array.from({ length: n }, (_, i) => `lock-${seq(i)}`);
    const { text, chains } = texts(names, new Array<ContenderRole>(n).fill('contender'));
    expect(chains.depth[n - 1]).toBe(n - 1);
    expect(text[n - 1]).toBe(
      `lock-${seq(n - 1)} waits for lock-${seq(n - 2)} waits for lock-${seq(n - 3)} waits for … ${n - 4} more … waits for lock-${seq(0)} (holder)`,
    );
    expect(text[4]).toBe(`lock-${seq(4)} waits for lock-${seq(3)} waits for lock-${seq(2)} waits for lock-${seq(1)} waits for lock-${seq(0)} (holder)`);
  });

  it('a reader waits for the writer ahead of it, not its predecessor', () => {
    const { text } = texts(['w1', 'r1', 'r2', 'w2', 'r3'], ['writer', 'reader', 'reader', 'writer', 'reader'], { rule: 'readersBeforeWriter' });
    expect(text).toEqual([
      null,
      'r1 waits for w1 (holder)',
      'r2 waits for w1 (holder)',
      'w2 waits for r2 waits for w1 (holder)',
      'r3 waits for w2 waits for r2 waits for w1 (holder)',
    ]);
  });
});

describe('shortName', () => {
  it('cuts kazoo and Curator uuids, keeps the rest', () => {
    expect(shortName(kazooLock(1, 3))).toBe(`9e3779…__lock__${seq(3)}`);
    expect(shortName(curator(1, 'lock-', 3))).toBe(`_c_9e3779…-lock-${seq(3)}`);
    expect(shortName(`qn-${seq(3)}`)).toBe(`qn-${seq(3)}`);
  });
});
