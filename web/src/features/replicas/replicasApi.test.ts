import { describe, expect, it } from 'vitest';
import type { Replica, ReplicasAnswer } from '@keeper/shared';
import { freshnessOf, REFRESH_MS, rolesOf, UNCONFIRMED_AFTER_MS, type ReplicasReading } from './replicasApi';

const answer: ReplicasAnswer = { enabled: true, sharedPolling: true, stateEnsemble: 'home', readAt: 1_000, answeredAt: 1_000, note: '', replicas: [] };
/** Read by the server at 1_000 on its clock; on the browser's, the reading was at 50_000. */
const reading: ReplicasReading = { answer, confirmedAt: 50_000 };

describe('the replicas list: live only while confirmed', () => {
  it('is live while refreshes are answered, and "unconfirmed, as of" the server\'s reading once one is not within 3 s of it', () => {
    expect(freshnessOf(reading, null, true, 50_000 + UNCONFIRMED_AFTER_MS)).toEqual({ live: true });
    // The refresh asked at 52_000 is still out past 52_500: said, as of the server's own reading time.
    expect(freshnessOf(reading, null, true, 50_001 + UNCONFIRMED_AFTER_MS)).toMatchObject({ live: false, asOf: 1_000, label: 'unconfirmed, as of' });
    // Between refreshes nothing is out: not said until a whole refresh more has passed without one (a hidden tab).
    expect(freshnessOf(reading, null, false, 50_001 + UNCONFIRMED_AFTER_MS)).toEqual({ live: true });
    expect(freshnessOf(reading, null, false, 50_001 + UNCONFIRMED_AFTER_MS + REFRESH_MS)).toMatchObject({ live: false, asOf: 1_000 });
    expect(freshnessOf(reading, 'HTTP 503', false, 50_100)).toEqual({ live: false, asOf: 1_000, reason: 'HTTP 503' });
    expect(freshnessOf(undefined, null, true, 5)).toEqual({ live: false, asOf: null, reason: 'not read yet' });
  });

  it('dates a reading from when the server read it, not from when the browser received it', async () => {
    const { readReplicas } = await import('./replicasApi');
    const realFetch = globalThis.fetch;
    // The server read the registry 700 ms before it answered (a shared reading): the browser counts from 700 ms before it asked.
    globalThis.fetch = (async () =>
      new Response(JSON.stringify({ ...answer, readAt: 10_000, answeredAt: 10_700 }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      })) as typeof fetch;
    try {
      const before = Date.now();
      const read = await readReplicas();
      const after = Date.now();
      expect(read.answer.readAt).toBe(10_000);
      // 700 ms before the ask, which came between `before` and `after` (a millisecond may tick between them).
      expect(read.confirmedAt).toBeGreaterThanOrEqual(before - 700);
      expect(read.confirmedAt).toBeLessThanOrEqual(after - 700);
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it('names the poller only with sharedPolling, and each upgrade a replica runs', () => {
    const replica = { poller: true, health: { state: 'serving' }, upgrades: [{ ensemble: 'prod', upgradeId: 'u1', since: 5 }] } as Replica;
    expect(rolesOf(replica, true)).toEqual(['polls the members for all', 'runs the upgrade of prod']);
    expect(rolesOf(replica, false)).toEqual(['runs the upgrade of prod']);
    // Killed: still elected until ZooKeeper ends its session, but not polling.
    expect(rolesOf({ ...replica, health: { ...replica.health, state: 'unreachable' } }, true)[0]).toMatch(/^elected to poll, not answering/);
  });

  it('never says a replica that does not answer runs an upgrade: named by ZooKeeper, unconfirmed since its last answer', () => {
    const since = new Date(2026, 10, 28, 14, 2, 31).getTime();
    const dead = {
      poller: false,
      health: { state: 'unreachable', checkedAt: since + 5_000, detail: 'refused', lastAnsweredAt: since },
      upgrades: [{ ensemble: 'prod', upgradeId: 'u1', since: 5, unconfirmedSince: since }],
    } as Replica;
    const [role] = rolesOf(dead, false);
    expect(role).toMatch(
      /^named to run the upgrade of prod, unconfirmed since 14:02:31 \(not answering\): another replica takes it over when its session ends$/,
    );
    expect(role).not.toMatch(/^runs/);
  });
});
