/** The order (observers, followers, the leader last), the full restart's risk and the outage confirmation. */
import { describe, expect, it } from 'vitest';
import { confirmationMatches, fullRestartRisk, planUpgrade } from '../../src/index.js';
import { health, threeVoters } from './support.js';

const T = 1_700_000_000_000;

describe('planUpgrade', () => {
  it('3 voters: the followers by id, the leader last', () => {
    const plan = planUpgrade({
      health: health(
        [
          { id: 1, state: 'follower' },
          { id: 2, state: 'leader', syncedFollowers: 2 },
          { id: 3, state: 'follower' },
        ],
        T,
      ),
    });
    expect(plan.mode).toBe('rolling');
    expect(plan.order.map((m) => [m.memberId, m.role])).toEqual([
      [1, 'follower'],
      [3, 'follower'],
      [2, 'leader'],
    ]);
    expect(plan.sentence).toBe('Order: member 1, member 3, then the leader, member 2.');
    expect(plan.confirmation).toBeNull();
    expect(plan.risk).toBeNull();
    expect(plan.warnings).toEqual([]);
  });

  it('5 voters and 2 observers: observers first, then followers, the leader last', () => {
    const plan = planUpgrade({
      health: health(
        [
          { id: 7, state: 'observer', observer: true },
          { id: 3, state: 'leader', syncedFollowers: 4 },
          { id: 5, state: 'follower' },
          { id: 1, state: 'follower' },
          { id: 6, state: 'observer', observer: true },
          { id: 4, state: 'follower' },
          { id: 2, state: 'follower' },
        ],
        T,
      ),
    });
    expect(plan.order.map((m) => m.memberId)).toEqual([6, 7, 1, 2, 4, 5, 3]);
    expect(plan.order.at(-1)?.role).toBe('leader');
    expect(plan.sentence).toBe('Order: observer 6, observer 7, member 1, member 2, member 4, member 5, then the leader, member 3.');
  });

  it('2 voters tolerate no failure: it cannot roll without an outage, and says what to type', () => {
    const plan = planUpgrade({
      health: health(
        [
          { id: 1, state: 'leader', syncedFollowers: 1 },
          { id: 2, state: 'follower' },
        ],
        T,
        'pair',
      ),
    });
    expect(plan.confirmation).toEqual({
      why: '2 voters tolerate no failure: restarting any of them loses the quorum, so it cannot roll without an outage.',
      phrase: 'restart pair with an outage',
    });
    expect(plan.warnings[0]).toContain('Type "restart pair with an outage" to go on.');
  });

  it('a single server: any restart is an outage', () => {
    const plan = planUpgrade({ health: health([{ id: 1, state: 'standalone' }], T) });
    expect(plan.confirmation?.why).toBe('A single voter tolerates no failure: restarting it is an outage, so it cannot roll without one.');
    expect(plan.order.map((m) => m.role)).toEqual(['standalone']);
  });

  it('full mode states its risk with the shortest session timeout when known, and asks for confirmation', () => {
    const plan = planUpgrade({ health: threeVoters(T), mode: 'full', shortestSessionTimeoutMs: 4000, targetVersion: ' 2024-12-29 ', note: '' });
    expect(plan.risk).toBe(
      'A full restart is an outage: every client disconnects; sessions survive only if it is shorter than their timeouts (shortest here: 4 s).',
    );
    expect(plan.confirmation?.phrase).toBe('restart main with an outage');
    expect(plan.targetVersion).toBe('2024-12-29');
    expect(plan.note).toBeNull();
    expect(fullRestartRisk(null)).toBe('A full restart is an outage: every client disconnects; sessions survive only if it is shorter than their timeouts.');
  });

  it('warns about a member that does not serve and about no leader', () => {
    const plan = planUpgrade({ health: threeVoters(T, { 1: { state: 'down' }, 2: { state: 'not-serving' }, 3: { state: 'not-serving' } }) });
    expect(plan.warnings[0]).toContain('No leader is serving now');
    expect(plan.warnings).toContain('member 1 (zk1:2181) is down (connection refused): the preflight needs every voter serving.');
  });

  it('confirmationMatches wants the exact phrase', () => {
    const confirmation = { why: 'x', phrase: 'restart main with an outage' };
    expect(confirmationMatches(null, undefined)).toBe(true);
    expect(confirmationMatches(confirmation, ' restart main with an outage ')).toBe(true);
    expect(confirmationMatches(confirmation, 'restart main')).toBe(false);
    expect(confirmationMatches(confirmation, null)).toBe(false);
  });
});
