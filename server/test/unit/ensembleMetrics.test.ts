/**
 * Label counts stay bounded whatever the ensemble's clients do: the busiest client hosts are named,
 * the rest summed as "other"; no session id or path becomes a label. Pure: the gauges read stand-in
 * ensembles shaped like Keeper's (a poller's last round, a sessions gathering).
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Ensemble } from '../../src/ensemble/ensemble.js';
import { registerEnsembleMetrics, TOP_CLIENT_HOSTS } from '../../src/metrics/ensembleMetrics.js';
import { parsePromText, samples } from '../support/promText.js';

function standIn(sessions: { client: string; requestsPerSecond: number | null; sessionId: string }[] | null): Ensemble {
  return {
    name: 'prod',
    poller: { current: () => null },
    gateway: { session: { state: 'connected' }, watches: { watchedPaths: 7 } },
    sessions: { cadenceMs: 60_000, recentSessions: () => sessions },
    upgrades: { current: () => null },
    locks: { statusCounts: () => ({ leaked: 0, persistent: 0, waiting: 0, holder: 0, empty: 0 }) },
  } as unknown as Ensemble;
}

async function scrape(ensemble: Ensemble) {
  const registry = new Registry();
  registerEnsembleMetrics(registry, () => [ensemble]);
  return parsePromText(await registry.metrics());
}

describe('ensemble metrics', () => {
  it(`names at most ${TOP_CLIENT_HOSTS} client hosts, the busiest, and sums the rest as "other"`, async () => {
    const sessions = Array.from({ length: 500 }, (_, i) => ({
      client: `10.0.${Math.floor(i / 10)}.1:${40_000 + i}`,
      requestsPerSecond: Math.floor(i / 10),
      sessionId: `0x${(1000 + i).toString(16)}`,
    }));
    const all = await scrape(standIn(sessions));
    const rates = samples(all, 'keeper_sessions_request_rate', { ensemble: 'prod' });
    expect(rates).toHaveLength(TOP_CLIENT_HOSTS + 1);
    // 50 hosts of 10 sessions each; host n sends 10 n req/s.
    expect(rates.find((s) => s.labels.client === '10.0.49.1')?.value).toBe(490);
    expect(rates.find((s) => s.labels.client === '10.0.39.1')).toBeUndefined();
    const other = rates.find((s) => s.labels.client === 'other')!.value;
    expect(other).toBe(Array.from({ length: 40 }, (_, n) => 10 * n).reduce((a, b) => a + b, 0));
    expect(all.some((s) => Object.values(s.labels).some((v) => v.startsWith('0x')))).toBe(false);
  });

  it('says nothing of client rates when no gathering is recent, rather than an old figure', async () => {
    const all = await scrape(standIn(null));
    expect(samples(all, 'keeper_sessions_request_rate')).toEqual([]);
    expect(samples(all, 'keeper_watches', { ensemble: 'prod' })[0]?.value).toBe(7);
    expect(samples(all, 'keeper_member_up')).toEqual([]);
  });
});
