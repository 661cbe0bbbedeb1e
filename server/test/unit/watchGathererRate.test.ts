/**
 * The Locks gatherer under sharedPolling, after an idle spell: a round that comes inside the rate
 * (the whole last gathering is not held on a follower) keeps what it has, and never falls back to
 * asking the members itself (that is for a polling replica that cannot share).
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LEAK_MIN_GAP_MS } from '@keeper/shared';
import { WatchGatherer } from '../../src/locks/watchGatherings.js';
import type { SharedWatchGathering } from '../../src/locks/sharedWatchGathering.js';
import type { MemberView, SessionsCollector } from '../../src/members/sessionsCollector.js';
import type { MemberTransport } from '../../src/members/transport.js';

afterEach(() => vi.useRealTimers());

describe('WatchGatherer, following another replica', () => {
  it('asks the polling replica, not the members, when touched again inside the rate after an idle spell', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let now = 1_000_000;
    const interval = LEAK_MIN_GAP_MS;
    let targetsAsked = 0;
    const members = {
      targets: () => {
        targetsAsked++;
        return [];
      },
      statuses: () => [],
    } as unknown as MemberView;
    const sessions = { get: async () => ({ sessions: [], gatheredAt: now }) } as unknown as Pick<SessionsCollector, 'get'>;
    const gatherer = new WatchGatherer({
      members,
      transport: {} as MemberTransport,
      sessions,
      intervalMs: interval,
      idleAfterMs: interval + 500,
      log: pino({ level: 'silent' }),
      now: () => now,
    });
    let relayed = 0;
    gatherer.shared.relayTo(async () => {
      relayed++;
      // The second answer is slow: the view goes idle while it is awaited.
      if (relayed === 2) now += 600;
      const value: SharedWatchGathering = { askedAt: now, answeredAt: now, complete: true, watches: [['/app/lock', ['0x1']]], connectedSessions: ['0x1'] };
      return { value, at: now };
    });
    try {
      gatherer.touch();
      await gatherer.settled();
      now += interval;
      await vi.advanceTimersByTimeAsync(interval);
      await gatherer.settled();
      expect(relayed).toBe(2);
      expect(gatherer.gatherings).toHaveLength(2);
      // Idle now (no round scheduled); touched again 100 ms later, inside the rate of the round above.
      now += 100;
      gatherer.touch();
      await gatherer.settled();
      expect(gatherer.fallbacks).toBe(0);
      expect(targetsAsked).toBe(0);
      expect(gatherer.gatherings).toHaveLength(2);
      // Once the rate allows, the next round asks the polling replica again.
      now += interval;
      await vi.advanceTimersByTimeAsync(interval);
      await gatherer.settled();
      expect(relayed).toBe(3);
      expect(targetsAsked).toBe(0);
    } finally {
      gatherer.close();
    }
  });
});
