/** Where Keeper's own session went during an upgrade, and whether it expired; the connections on a member. */
import { describe, expect, it } from 'vitest';
import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { connectionsOn, consoleMoves } from './aroundUpgrade';
import { restartingMember2 } from './fixtures';

const T = 1_000_000;

function session(timeline: ConsoleSessionSnapshot['timeline'], member: string | null): ConsoleSessionSnapshot {
  return { state: 'connected', sessionId: '0x1', member, since: T, timeoutMs: 30_000, sessionsOpened: 1, confirmedAt: T, establishedAt: T, timeline };
}

describe('consoleMoves', () => {
  it('lists the moves to another member inside the upgrade’s window, and counts its expiries there', () => {
    const s = session(
      [
        { at: T - 5000, state: 'connected', sessionId: '0x1', member: 'zk1:2181' },
        { at: T - 4000, state: 'connected', sessionId: '0x1', member: 'zk2:2181' },
        { at: T + 1000, state: 'disconnected', sessionId: '0x1', member: null },
        { at: T + 2000, state: 'connected', sessionId: '0x1', member: 'zk3:2181' },
        { at: T + 3000, state: 'expired', sessionId: '0x1', member: null },
        { at: T + 9000, state: 'connected', sessionId: '0x2', member: 'zk1:2181' },
      ],
      'zk1:2181',
    );
    expect(consoleMoves(s, T, null)).toEqual({
      now: 'zk1:2181',
      moves: [
        { at: T + 2000, from: 'zk2:2181', to: 'zk3:2181' },
        { at: T + 9000, from: 'zk3:2181', to: 'zk1:2181' },
      ],
      expiries: 1,
    });
    // A finished upgrade's window ends at its finish: later moves are not its doing.
    expect(consoleMoves(s, T, T + 2500)).toEqual({ now: 'zk1:2181', moves: [{ at: T + 2000, from: 'zk2:2181', to: 'zk3:2181' }], expiries: 0 });
  });
});

describe('connectionsOn', () => {
  it('reads the member’s connections from the last poll, null when it is not in it', () => {
    const h = restartingMember2().sim.poll();
    const zk3 = h.members.find((m) => m.address === 'zk3:2181')!;
    const health = { ...h, members: h.members.map((m) => (m === zk3 ? { ...m, metrics: { ...m.metrics, connections: 7 } } : m)) };
    expect(connectionsOn(health, 'zk3:2181')).toBe(7);
    expect(connectionsOn(health, 'zk9:2181')).toBeNull();
    expect(connectionsOn(undefined, 'zk3:2181')).toBeNull();
  });
});
