/**
 * How long the Locks view's pure analysis takes on seed 000's scale, and that it grows linearly:
 * recognizing and analyzing a directory of 100,000 kazoo contenders, and writing every waiter's
 * "waits for" chain for 100,000 contenders. These were wall-clock budgets inside the unit tests
 * (3 s and 2 s), where the test files running beside them on a shared machine decided whether
 * they passed; here each is timed alone, best of 5, against the same work on 10,000 (the ratio
 * stays near 10 when the work is linear). No ensemble.
 *
 *   npx tsx bench/lockAnalysis.ts
 */
import { analyzeLock, buildWaitChains, planHolding, recognizeLock, waitsForText, type ContenderRole } from '@keeper/shared';
import { facts, kazooLock, seq, session, sessions, T0 } from '../shared/test/locks/support.js';
import { runBench } from './support/lifecycle.js';
import type { SummaryRow } from './support/report.js';

const SMALL = 10_000;
const LARGE = 100_000;
const ROUNDS = 5;

function analysis(n: number): () => void {
  const names = Array.from({ length: n }, (_, i) => kazooLock(i, n - 1 - i));
  return () => {
    const lock = recognizeLock({ path: '/big', children: names })!;
    const first = lock.contenders.slice(0, 50).map((c) => c.name);
    analyzeLock({ lock, facts: new Map(first.map((name) => [name, facts('0xa')])), sessions: sessions(session('0xa')), gatherings: [], now: T0 });
  };
}

function chains(n: number): () => void {
  const names = Array.from({ length: n }, (_, i) => `lock-${seq(i)}`);
  const roles = new Array<ContenderRole>(n).fill('contender');
  return () => {
    const plan = planHolding(
      'lowest',
      roles.map((role) => ({ role })),
    );
    const built = buildWaitChains(plan, () => undefined);
    for (let i = 0; i < n; i++) waitsForText(i, { names, plan, chains: built, statusOf: () => undefined, holderWord: 'holder' });
  };
}

function bestOf(run: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    const began = performance.now();
    run();
    best = Math.min(best, performance.now() - began);
  }
  return best;
}

await runBench('lockAnalysis', { timeoutMs: 300_000 }, async (scope) => {
  const rows: SummaryRow[] = [];
  const lines: string[] = [];
  for (const [what, make, budgetMs] of [
    ['recognize and analyze a lock directory', analysis, 3_000],
    ['"waits for" chains of every contender', chains, 2_000],
  ] as const) {
    scope.log(what);
    const small = bestOf(make(SMALL));
    const large = bestOf(make(LARGE));
    const ratio = large / small;
    lines.push(
      `${what}: ${SMALL.toLocaleString('en-US')} in ${small.toFixed(0)} ms, ${LARGE.toLocaleString('en-US')} in ${large.toFixed(0)} ms (${ratio.toFixed(1)}x)`,
    );
    rows.push({
      measure: `${what}, ${LARGE.toLocaleString('en-US')} contenders`,
      keeper: `${large.toFixed(0)} ms`,
      baseline: `${small.toFixed(0)} ms for ${SMALL.toLocaleString('en-US')}`,
      ratio,
      target: `≤ ${budgetMs / 1000} s, ratio ≤ 15x (linear)`,
      withinTarget: large <= budgetMs && ratio <= 15,
    });
  }
  return { bench: 'lockAnalysis', title: 'Lock analysis at 100,000 contenders (no ensemble)', lines, rows, notes: [], zookeeperVersion: 'none (no ensemble)' };
});
