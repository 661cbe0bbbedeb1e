/** The poller's pure parts: back-off, history, member lists, counters. */
import { describe, expect, it } from 'vitest';
import type { HistoryPoint } from '@keeper/shared';
import { DEFAULT_MEMBER_BACKOFF_MAX_MS, isDue, retryDelay } from '../../../src/members/backoff.js';
import { monitorSettingsFromEnv } from '../../../src/members/envSettings.js';
import { HistoryRing } from '../../../src/members/historyRing.js';
import { hostNames, initialTargets, mergeMembership } from '../../../src/members/memberTargets.js';
import { hostMatcher } from '../../../src/members/hostAliases.js';
import { RequestCounters } from '../../../src/members/counters.js';

describe('retryDelay', () => {
  const policy = { intervalMs: 5_000, maxDelayMs: 30_000 };

  it('doubles per failure up to the cap, jittered to 75-100 %', () => {
    expect([1, 2, 3, 4, 5, 10].map((f) => retryDelay(f, policy, () => 1))).toEqual([5_000, 10_000, 20_000, 30_000, 30_000, 30_000]);
    expect([1, 2, 3, 4].map((f) => retryDelay(f, policy, () => 0))).toEqual([5_000, 7_500, 15_000, 22_500]);
  });

  it('never retries sooner than the regular poll', () => {
    for (let f = 0; f < 50; f++) for (const r of [0, 0.3, 0.999]) expect(retryDelay(f, policy, () => r)).toBeGreaterThanOrEqual(5_000);
    expect(retryDelay(3, { intervalMs: 1_000, maxDelayMs: 500 }, () => 0)).toBe(1_000);
  });

  it('does not overflow after many failures', () => {
    expect(retryDelay(5_000, policy, () => 0.5)).toBe(26_250);
  });

  it('stays at most ~5 s by default, so a member that answers again is seen within one poll or so', () => {
    expect(DEFAULT_MEMBER_BACKOFF_MAX_MS).toBe(5_000);
    const fast = { intervalMs: 1_000, maxDelayMs: DEFAULT_MEMBER_BACKOFF_MAX_MS };
    for (let f = 1; f < 200; f++) {
      for (const r of [0, 0.25, 0.5, 0.999]) {
        expect(retryDelay(f, fast, () => r)).toBeLessThanOrEqual(5_000);
        expect(retryDelay(f, { intervalMs: 5_000, maxDelayMs: DEFAULT_MEMBER_BACKOFF_MAX_MS }, () => r)).toBe(5_000);
      }
    }
    // Still doubling, still jittered, below the cap.
    expect([1, 2, 3, 4, 5].map((f) => retryDelay(f, fast, () => 1))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    expect([1, 2, 3, 4, 5].map((f) => retryDelay(f, fast, () => 0))).toEqual([1_000, 1_500, 3_000, 3_750, 3_750]);
  });
});

describe('isDue: a try is asked in the round nearest to its time', () => {
  it("asks in the round that starts at (or a hair before) the try's time, not one round later", () => {
    // A 5 s delay counted from a round that started at 0; the next round's timer fires at 4_999 or 5_001.
    expect(isDue(5_000, 4_999, 5_000)).toBe(true);
    expect(isDue(5_000, 5_001, 5_000)).toBe(true);
    expect(isDue(0, 123, 5_000)).toBe(true);
  });

  it("waits when the next round is nearer to the try's time", () => {
    expect(isDue(10_000, 5_000, 5_000)).toBe(false);
    expect(isDue(3_000, 1_000, 1_000)).toBe(false);
    expect(isDue(2_400, 2_000, 1_000)).toBe(true);
    expect(isDue(2_600, 2_000, 1_000)).toBe(false);
  });
});

describe('monitorSettingsFromEnv', () => {
  it('reads the back-off cap and the sessions cadence, in milliseconds', () => {
    expect(monitorSettingsFromEnv({})).toEqual({});
    expect(monitorSettingsFromEnv({ KEEPER_MEMBER_BACKOFF_MAX_MS: ' 3000 ', KEEPER_SESSIONS_CADENCE_MS: '30000' })).toEqual({
      maxBackoffMs: 3_000,
      sessionsCadenceMs: 30_000,
    });
    expect(monitorSettingsFromEnv({ KEEPER_MEMBER_BACKOFF_MAX_MS: '' })).toEqual({});
  });

  it('reads the herd latency gate, where 0 opens it', () => {
    expect(monitorSettingsFromEnv({ KEEPER_HERD_LATENCY_MS: '0' })).toEqual({ herdThresholds: { latencyMs: 0 } });
    expect(monitorSettingsFromEnv({ KEEPER_HERD_LATENCY_MS: '25' })).toEqual({ herdThresholds: { latencyMs: 25 } });
    expect(() => monitorSettingsFromEnv({ KEEPER_HERD_LATENCY_MS: '-1' })).toThrow(/KEEPER_HERD_LATENCY_MS="-1".*from 0 to 10000/);
  });

  it('refuses a value outside its bounds with the variable and the bounds', () => {
    expect(() => monitorSettingsFromEnv({ KEEPER_MEMBER_BACKOFF_MAX_MS: '500' })).toThrow(
      'KEEPER_MEMBER_BACKOFF_MAX_MS="500": expected milliseconds, a whole number from 1000 to 60000',
    );
    expect(() => monitorSettingsFromEnv({ KEEPER_MEMBER_BACKOFF_MAX_MS: '5s' })).toThrow(/KEEPER_MEMBER_BACKOFF_MAX_MS/);
    expect(() => monitorSettingsFromEnv({ KEEPER_SESSIONS_CADENCE_MS: '1e9' })).toThrow(/10000 to 600000/);
  });
});

describe('HistoryRing', () => {
  const point = (at: number): HistoryPoint => ({ at, latencyAvg: 1, latencyMax: 2, outstanding: 0, connections: 3, znodeCount: 4, serving: true });

  it('keeps points by age, oldest first', () => {
    const ring = new HistoryRing(10_000, 1_000);
    for (let at = 0; at <= 20_000; at += 1_000) ring.add('a:1', point(at));
    expect(ring.snapshot()['a:1']!.map((p) => p.at)).toEqual(Array.from({ length: 11 }, (_, i) => 10_000 + i * 1_000));
  });

  it('caps the count whatever the interval', () => {
    const ring = new HistoryRing(60_000, 5);
    for (let at = 0; at < 100; at++) ring.add('a:1', point(at));
    expect(ring.snapshot()['a:1']!.map((p) => p.at)).toEqual([95, 96, 97, 98, 99]);
  });

  it('forgets members no longer polled, and hands out copies', () => {
    const ring = new HistoryRing(60_000, 5);
    ring.add('a:1', point(1));
    ring.add('b:1', point(1));
    ring.retain(new Set(['b:1']));
    const snap = ring.snapshot();
    expect(Object.keys(snap)).toEqual(['b:1']);
    snap['b:1']!.push(point(2));
    expect(ring.snapshot()['b:1']).toHaveLength(1);
  });
});

describe('member targets', () => {
  it("takes configured members, else the connection string's hosts once each", () => {
    expect(initialTargets({ connectionString: 'x:1', members: [{ host: 'zk1', clientPort: 2181, adminPort: 8080 }] })).toEqual([
      { host: 'zk1', clientPort: 2181, adminPort: 8080, address: 'zk1:2181', id: null, configuredRole: null },
    ]);
    expect(initialTargets({ connectionString: 'zk1:2181,zk2,zk1:2181/chroot' }).map((t) => [t.address, t.adminPort])).toEqual([
      ['zk1:2181', null],
      ['zk2:2181', null],
    ]);
    expect(initialTargets({ connectionString: 'zk://bad' })).toEqual([]);
  });

  it('adds ids and roles from the membership, and members nobody configured', () => {
    const targets = initialTargets({ connectionString: 'zk1:2181,zk2:2181' });
    const merged = mergeMembership(targets, [
      { id: 1, host: 'zk1', peerPort: 2888, electionPort: 3888, role: 'participant', clientHost: null, clientPort: 2181 },
      { id: 2, host: 'zk2-peer', peerPort: 2888, electionPort: 3888, role: 'participant', clientHost: 'zk2', clientPort: 2181 },
      { id: 3, host: 'zk3', peerPort: 2888, electionPort: 3888, role: 'observer', clientHost: null, clientPort: 2181 },
      { id: 4, host: 'zk4', peerPort: 2888, electionPort: 3888, role: 'participant', clientHost: null, clientPort: null },
    ]);
    expect(merged.map((t) => [t.address, t.id, t.configuredRole])).toEqual([
      ['zk1:2181', 1, 'participant'],
      ['zk2:2181', 2, 'participant'],
      ['zk3:2181', 3, 'observer'],
    ]);
    expect(targets[0]!.id).toBeNull(); // the input is not changed
  });

  it('treats names of one machine as one member (localhost vs 127.0.0.1), never two', async () => {
    const targets = initialTargets({ connectionString: 'localhost:2191,localhost:2192,zk-c.example:2181' });
    const servers = [
      { id: 1, host: '127.0.0.1', peerPort: 2881, electionPort: 3881, role: 'participant' as const, clientHost: '127.0.0.1', clientPort: 2191 },
      { id: 2, host: '127.0.0.1', peerPort: 2882, electionPort: 3882, role: 'participant' as const, clientHost: '127.0.0.1', clientPort: 2192 },
      { id: 3, host: '10.0.0.3', peerPort: 2888, electionPort: 3888, role: 'observer' as const, clientHost: null, clientPort: 2181 },
    ];
    const dns: Record<string, string[]> = { localhost: ['127.0.0.1', '::1'], 'zk-c.example': ['10.0.0.3'] };
    const resolve = (host: string) => Promise.resolve(dns[host] ?? [host]);
    const sameHost = await hostMatcher(hostNames(targets, servers), resolve);
    expect(mergeMembership(targets, servers, sameHost).map((t) => [t.address, t.id, t.configuredRole])).toEqual([
      ['localhost:2191', 1, 'participant'],
      ['localhost:2192', 2, 'participant'],
      ['zk-c.example:2181', 3, 'observer'],
    ]);
    // By name alone they would be six targets: three of them counted as extra voters.
    expect(mergeMembership(targets, servers)).toHaveLength(6);
  });

  it('gives up on a name that does not resolve in time, and on resolver errors', async () => {
    const sameHost = await hostMatcher(
      ['slow', 'broken', '127.0.0.1'],
      (h) => (h === 'slow' ? new Promise(() => {}) : h === 'broken' ? Promise.reject(new Error('ENOTFOUND')) : Promise.resolve([h])),
      50,
    );
    expect(sameHost('slow', '127.0.0.1')).toBe(false);
    expect(sameHost('broken', 'broken')).toBe(true);
    expect(sameHost('broken', '127.0.0.1')).toBe(false);
  });

  it('brackets IPv6 hosts in addresses', () => {
    expect(
      mergeMembership([], [{ id: 1, host: '::1', peerPort: 1, electionPort: 2, role: 'participant', clientHost: '::1', clientPort: 2181 }])[0]!.address,
    ).toBe('[::1]:2181');
  });
});

describe('RequestCounters', () => {
  it('counts by member, channel, purpose and command, and snapshots are copies', () => {
    const counters = new RequestCounters();
    counters.record('a:1', '4lw', 'srvr', 'poll');
    counters.record('a:1', 'admin', 'monitor', 'poll');
    counters.record('a:1', '4lw', 'cons', 'sessions');
    counters.record('a:1', 'zk', 'getData /zookeeper/config', 'membership');
    const snap = counters.snapshot();
    expect(snap['a:1']).toEqual({
      total: 4,
      fourLetterWords: 2,
      admin: 1,
      session: 1,
      byPurpose: { poll: 2, membership: 1, sessions: 1, watches: 0 },
      byCommand: { '4lw srvr': 1, 'admin monitor': 1, '4lw cons': 1, 'zk getData /zookeeper/config': 1 },
    });
    snap['a:1']!.byPurpose.poll = 99;
    expect(counters.snapshot()['a:1']!.byPurpose.poll).toBe(2);
  });
});
