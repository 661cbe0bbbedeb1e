/** AdminServer JSON read into the 4lw shapes, without losing 64-bit ids. */
import { describe, expect, it } from 'vitest';
import {
  consFromConnections,
  dumpFromAdmin,
  wchpFromAdmin,
  wchsFromAdmin,
  metricsFrom,
  mntrFromMonitor,
  parseCons,
  parseJsonLossless,
  parseMntr,
  parseSrvr,
  readAdminBody,
  srvrFromServerStats,
} from '../../src/ensemble/index.js';
import { fx } from './fixtures.js';
import { seeded } from '../support/random.js';

describe('parseJsonLossless', () => {
  it('keeps integers beyond 2^53 as their digits', () => {
    expect(JSON.parse('{"id": 216172985949683712}').id).not.toBe(216172985949683712n.toString());
    expect(parseJsonLossless('{"id": 216172985949683712, "small": 12, "neg": -9007199254740993}')).toEqual({
      id: '216172985949683712',
      small: 12,
      neg: '-9007199254740993',
    });
  });

  it('leaves strings, decimals and exponents alone', () => {
    const text = '{"s":"x 12345678901234567890 \\" 99999999999999999","d":1234567890123456.5,"e":12345678901234567e2,"a":[1,2]}';
    expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
    expect((parseJsonLossless(text) as { s: string }).s).toBe('x 12345678901234567890 " 99999999999999999');
  });

  it('agrees with JSON.parse on JSON without big integers (fuzz)', () => {
    const random = seeded(7);
    const value = (depth: number): unknown => {
      const r = random();
      if (depth > 3 || r < 0.3) return Math.floor(random() * 1e9) * (random() < 0.5 ? -1 : 1);
      if (r < 0.45) return `s${Math.floor(random() * 1e6)}\\"\n:,[]{}`;
      if (r < 0.55) return random() < 0.5;
      if (r < 0.6) return null;
      if (r < 0.8) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}"`, value(depth + 1)]));
    };
    for (let i = 0; i < 300; i++) {
      const text = JSON.stringify(value(0), null, random() < 0.5 ? 2 : undefined);
      expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
    }
  });

  it('throws on invalid JSON like JSON.parse', () => {
    expect(() => parseJsonLossless(fx.adminMonitorNotServing)).toThrow();
  });
});

describe('readAdminBody', () => {
  it('separates answers, refusals and garbage', () => {
    expect(readAdminBody(fx.adminServerStatsLeader).kind).toBe('ok');
    expect(readAdminBody(fx.adminServerStatsNotServing)).toEqual({ kind: 'refused', error: 'This ZooKeeper instance is not currently serving requests' });
    expect(readAdminBody(fx.adminMonitorNotServing)).toEqual({ kind: 'invalid', reason: 'not JSON' });
    expect(readAdminBody('[1,2]')).toEqual({ kind: 'invalid', reason: 'not a command result' });
  });
});

describe('server_stats and monitor as srvr and mntr', () => {
  it('server_stats reads like srvr', () => {
    const body = readAdminBody(fx.adminServerStatsLeader);
    if (body.kind !== 'ok') throw new Error('expected ok');
    const srvr = srvrFromServerStats(body.value);
    expect(srvr).toMatchObject({ mode: 'leader', zxid: '0x10000003a', nodeCount: 17, connections: 3, version: expect.stringMatching(/^3\.8\.0-/) });
  });

  it('gives a follower the same metrics from either source, except what only one has', () => {
    const admin = readAdminBody(fx.adminServerStatsFollower);
    if (admin.kind !== 'ok') throw new Error('expected ok');
    const srvr = srvrFromServerStats(admin.value);
    expect(srvr).toMatchObject({ mode: 'follower', zxid: '0x10000003a', nodeCount: 17 });
  });

  it('monitor reads like mntr', () => {
    const body = readAdminBody(fx.adminMonitorLeader);
    if (body.kind !== 'ok') throw new Error('expected ok');
    const monitor = mntrFromMonitor(body.value);
    expect(monitor.get('server_state')).toBe('leader');
    expect(monitor.get('synced_followers')).toBe('2');
    expect(monitor.has('command')).toBe(false);
    const metrics = metricsFrom(null, monitor);
    expect(metrics).toMatchObject({ syncedFollowers: 2, followers: 3, znodeCount: 17, maxFds: 20000 });
  });

  it('counts voting followers only: learners waiting to be added (non-voting) are not synced voters', () => {
    const mntr = new Map([
      ['server_state', 'leader'],
      ['synced_followers', '4'],
      ['synced_non_voting_followers', '2'],
    ]);
    expect(metricsFrom(null, mntr).syncedFollowers).toBe(2);
    // 3.4 has no synced_non_voting_followers: as reported.
    expect(metricsFrom(null, new Map([['synced_followers', '2']])).syncedFollowers).toBe(2);
  });

  it('connections reads like cons, with exact session ids', () => {
    const body = readAdminBody(fx.adminConnectionsLeader);
    if (body.kind !== 'ok') throw new Error('expected ok');
    const [c] = consFromConnections(body.value);
    // 216172985949683718 as a JS number would be ...720: another session's id.
    expect(c).toMatchObject({ client: '127.0.0.1:36308', sessionId: '0x300002f75910006', timeoutMs: 10000, lastZxid: '0x10000003a', lastOperation: 'PING' });
    expect(consFromConnections({ connections: 'nope' })).toEqual([]);
    expect(consFromConnections({ connections: [{ session_id: 0, remote_socket_address: 'x:1' }] })[0]?.sessionId).toBeNull();
  });
});

describe('metricsFrom', () => {
  it('combines srvr and mntr of a leader', () => {
    const metrics = metricsFrom(parseSrvr(fx.srvrLeader), parseMntr(fx.mntrLeader));
    expect(metrics).toMatchObject({
      version: expect.stringMatching(/^3\.8\.0/),
      zxid: '0x10000003a',
      epoch: 1,
      latencyAvg: 1.6744,
      syncedFollowers: 2,
      pendingSyncs: 0,
      openFds: expect.any(Number),
      watchCount: expect.any(Number),
      uptimeSeconds: expect.any(Number),
    });
  });

  it('serves what srvr gives when mntr is blocked', () => {
    const metrics = metricsFrom(parseSrvr(fx.srvrFollower), null);
    expect(metrics).toMatchObject({ zxid: '0x10000003a', connections: 4, znodeCount: 17, syncedFollowers: null, watchCount: null, openFds: null });
  });

  it('is all null with nothing', () => {
    expect(Object.values(metricsFrom(null, null)).every((v) => v === null)).toBe(true);
  });

  it('reads cons from the same member consistently with connections', () => {
    expect(parseCons(fx.consFollower).filter((c) => c.sessionId).length).toBe(3);
  });
});

describe('dump, watch_summary and watches_by_path as dump, wchs and wchp', () => {
  const ok = (text: string) => {
    const body = readAdminBody(text);
    if (body.kind !== 'ok') throw new Error('expected ok');
    return body.value;
  };

  it("reads the leader's dump: every session, ephemerals, no expiry (its keys are monotonic)", () => {
    const dump = dumpFromAdmin(ok(fx.adminDumpLeader));
    expect(dump.sessions.size).toBe(12);
    expect(dump.sessions.get('0x1000035bb560000')).toEqual({ timeoutMs: null, expiresAt: null });
    expect(dump.ephemerals.get('0x1000035bb560000')).toEqual(['/app/workers/w-0000000000', '/app/workers/w-0000000001']);
    expect(dump.ephemerals.get('0x2000035bbc80000')).toEqual(['/app/members/m-0000000000']);
    expect(dumpFromAdmin({ session_id_to_ephemeral_paths: 'x' })).toEqual({ tracker: null, sessions: new Map(), ephemerals: new Map() });
  });

  it('reads watches by path with exact ids, and the summary', () => {
    const byPath = wchpFromAdmin(ok(fx.adminWatchesByPathFollower));
    expect(byPath.get('/app/config')).toEqual(['0x1000035bb560000']);
    expect(byPath.get('/app/locks/leader')).toHaveLength(4);
    expect(wchsFromAdmin(ok(fx.adminWatchSummaryFollower))).toEqual({ connections: 4, paths: 2, watches: 5 });
    expect(wchsFromAdmin({ num_connections: 1 })).toBeNull();
  });
});
