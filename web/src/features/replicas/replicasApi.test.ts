import { describe, expect, it } from 'vitest';
import type { Replica, ReplicasAnswer } from '@keeper/shared';
import { freshnessOf, rolesOf, STALE_AFTER_MS } from './replicasApi';

const answer: ReplicasAnswer = { enabled: true, sharedPolling: true, stateEnsemble: 'home', readAt: 1_000, note: '', replicas: [] };

describe('the replicas list: live only while confirmed', () => {
  it('is live while answered, and "as of" the answer once a refresh is missed or refused', () => {
    expect(freshnessOf(answer, 1_000, null, 1_000 + STALE_AFTER_MS)).toEqual({ live: true });
    expect(freshnessOf(answer, 1_000, null, 1_001 + STALE_AFTER_MS)).toMatchObject({ live: false, asOf: 1_000 });
    expect(freshnessOf(answer, 1_000, 'HTTP 503', 1_100)).toEqual({ live: false, asOf: 1_000, reason: 'HTTP 503' });
    expect(freshnessOf(undefined, 0, null, 5)).toEqual({ live: false, asOf: null, reason: 'not read yet' });
  });

  it('names the poller only with sharedPolling, and each upgrade a replica runs', () => {
    const replica = { poller: true, health: { state: 'serving' }, upgrades: [{ ensemble: 'prod', upgradeId: 'u1', since: 5 }] } as Replica;
    expect(rolesOf(replica, true)).toEqual(['polls the members for all', 'runs the upgrade of prod']);
    expect(rolesOf(replica, false)).toEqual(['runs the upgrade of prod']);
    // Killed: still elected until ZooKeeper ends its session, but not polling.
    expect(rolesOf({ ...replica, health: { ...replica.health, state: 'unreachable' } }, true)[0]).toMatch(/^elected to poll, not answering/);
  });
});
