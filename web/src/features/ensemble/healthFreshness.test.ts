import { describe, expect, it } from 'vitest';
import { initialConnectionStatus, type ConnectionStatus } from '../../socket/connectionStatus';
import { healthFreshness, silenceLimit } from './healthFreshness';
import { healthy, T0 } from '../../testSupport/ensembleFixtures';

const live: ConnectionStatus = { ...initialConnectionStatus(0), phase: 'live', epoch: 3, downSince: null, lostAt: 100 };
const entry = { health: healthy(), epoch: 3 };

describe('healthFreshness', () => {
  it('is live over a live link with a current entry, whatever the console session does', () => {
    expect(healthFreshness(live, entry, false)).toEqual({ live: true });
  });
  it('is stale as of the last poll when the link is down', () => {
    expect(healthFreshness({ ...live, phase: 'waiting', lostAt: T0 + 9_000 }, entry, false)).toMatchObject({ live: false, asOf: T0 });
  });
  it('has no as-of time before the first poll', () => {
    expect(healthFreshness(live, undefined, false)).toMatchObject({ live: false, asOf: null });
  });
  it('is stale for an entry from an older socket, or when the poller fell silent', () => {
    expect(healthFreshness(live, { ...entry, epoch: 2 }, false)).toMatchObject({ live: false, asOf: T0, reason: 'refreshing after a reconnect' });
    expect(healthFreshness(live, entry, true)).toMatchObject({ live: false, asOf: T0 });
  });
  it('is stale as of the last poll when another replica polls and Keeper says its results stopped arriving', () => {
    const late = { health: { ...healthy(), polledBy: 'keeper-a:8080', lateReason: 'keeper-a:8080 polls the members and published nothing for 4 s' }, epoch: 3 };
    expect(healthFreshness(live, late, false)).toEqual({ live: false, asOf: T0, reason: late.health.lateReason });
    expect(healthFreshness(live, { ...late, health: { ...late.health, lateReason: undefined } }, false)).toEqual({ live: true });
  });
  it('allows a few late polls before calling it silent', () => {
    expect(silenceLimit(5_000)).toBe(15_000);
    expect(silenceLimit(2_000)).toBe(15_000);
    expect(silenceLimit(10_000)).toBe(30_000);
  });
});
