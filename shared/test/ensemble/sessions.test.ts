/** Sessions: cons joined with dump, silence estimated from lower bounds, flags that explain. */
import { describe, expect, it } from 'vitest';
import { estimateSilence, joinSessions, parseCons, parseDump, sessionFlags, formatDuration, silenceFromDump } from '../../src/ensemble/index.js';
import { ensembleSessionSchema } from '../../src/ensemble/types.js';
import { fx } from './fixtures.js';

// About when the leader's dump fixture was taken (its 10 s sessions expire 04:39:04-14).
const NOW = Date.UTC(2026, 10, 22, 4, 39, 0);

describe('estimateSilence', () => {
  const base = { askedAt: NOW, answeredAt: NOW, previous: undefined };

  it('uses the freshest response on the same member as a floor', () => {
    expect(estimateSilence({ ...base, lastResponseMono: 1_000, memberFreshestMono: 4_000 }).silentMs).toBe(3_000);
    expect(estimateSilence({ ...base, lastResponseMono: 4_000, memberFreshestMono: 4_000 }).silentMs).toBe(0);
  });

  it('adds the time from when an unchanged lresp was first seen to when it was asked again', () => {
    const first = estimateSilence({ ...base, answeredAt: NOW + 500, lastResponseMono: 1_000, memberFreshestMono: 3_000 });
    expect(first.sighting).toEqual({ lastResponseMono: 1_000, firstSeenAt: NOW + 500, silenceThen: 2_000 });
    // Asked again 60 s later; its answer took 2 s to come back, which is not counted as silence.
    const later = estimateSilence({
      askedAt: NOW + 60_000,
      answeredAt: NOW + 62_000,
      lastResponseMono: 1_000,
      memberFreshestMono: 1_000,
      previous: first.sighting!,
    });
    expect(later.silentMs).toBe(61_500);
    expect(later.sighting).toBe(first.sighting);
    const changed = estimateSilence({
      askedAt: NOW + 60_000,
      answeredAt: NOW + 60_010,
      lastResponseMono: 61_000,
      memberFreshestMono: 61_000,
      previous: first.sighting!,
    });
    expect(changed.silentMs).toBe(0);
    expect(changed.sighting).toEqual({ lastResponseMono: 61_000, firstSeenAt: NOW + 60_010, silenceThen: 0 });
  });

  it("reads the leader's expiry for a session no member lists: expiry - timeout has passed since it was heard", () => {
    // Expires in 4 s with a 10 s timeout: last heard at least 6 s ago (minus the dump's 1 s precision).
    expect(silenceFromDump({ now: NOW, timeoutMs: 10_000, expiresAt: NOW + 4_000 })).toBe(5_000);
    expect(silenceFromDump({ now: NOW, timeoutMs: 10_000, expiresAt: NOW + 20_000 })).toBe(0);
    expect(silenceFromDump({ now: NOW, timeoutMs: 10_000, expiresAt: null })).toBeNull();
  });

  it('knows nothing without any bound', () => {
    expect(estimateSilence({ ...base, lastResponseMono: null, memberFreshestMono: null })).toEqual({ silentMs: null, sighting: null });
    expect(estimateSilence({ ...base, lastResponseMono: 5, memberFreshestMono: null })).toEqual({ silentMs: null, sighting: null });
  });
});

describe('sessionFlags', () => {
  it('flags long timeouts with the ephemerals at stake', () => {
    const [flag] = sessionFlags({ timeoutMs: 900_000, silentMs: 0, ephemeralCount: 2, connected: true });
    expect(flag).toMatchObject({ kind: 'long-timeout' });
    expect(flag!.message).toContain('Timeout 15 min');
    expect(flag!.message).toContain('its 2 ephemerals (and any locks they stand for) stay for up to 15 min');
    expect(sessionFlags({ timeoutMs: 60_000, silentMs: 0, ephemeralCount: 0, connected: true })).toEqual([]);
    expect(sessionFlags({ timeoutMs: 60_001, silentMs: 0, ephemeralCount: 0, connected: true })[0]?.kind).toBe('long-timeout');
  });

  it('flags a client that missed its ping (a third of the timeout) by more than the allowance, and says the rule', () => {
    // 30 s: pings every 10 s, allowance 2.5 s.
    expect(sessionFlags({ timeoutMs: 30_000, silentMs: 12_500, ephemeralCount: 0, connected: true })).toEqual([]);
    const [flag] = sessionFlags({ timeoutMs: 30_000, silentMs: 13_000, ephemeralCount: 0, connected: true });
    expect(flag).toMatchObject({ kind: 'silent-near-timeout' });
    expect(flag!.message).toContain('Silent for at least 13 s');
    expect(flag!.message).toContain('pings every third of its 30 s timeout (10 s)');
    expect(flag!.message).toContain('expires within about 17 s');
    expect(sessionFlags({ timeoutMs: 30_000, silentMs: 31_000, ephemeralCount: 0, connected: true })[0]!.message).toContain('due to expire now');
  });

  it('flags a session no member holds a connection for, but not when some members were not asked', () => {
    expect(sessionFlags({ timeoutMs: 10_000, silentMs: null, ephemeralCount: 1, connected: false }).map((f) => f.kind)).toEqual(['no-connection']);
    expect(sessionFlags({ timeoutMs: 10_000, silentMs: null, ephemeralCount: 1, connected: null })).toEqual([]);
  });

  it('formats durations for people', () => {
    expect([999, 1_000, 90_000, 119_000, 120_000, 900_000, 7_200_000, 9_000_000].map(formatDuration)).toEqual([
      '1 s',
      '1 s',
      '90 s',
      '119 s',
      '2 min',
      '15 min',
      '2 h',
      '2.5 h',
    ]);
  });
});

describe('joinSessions', () => {
  const cons = [{ member: '127.0.0.1:27291', connections: parseCons(fx.consFollower) }];

  it("joins cons with the leader's dump: ephemerals, expiry, flags, the console", () => {
    const { sessions, sightings } = joinSessions({
      now: NOW,
      cons,
      dump: parseDump(fx.dumpLeader),
      consIncomplete: false,
      consoleSessionId: '0x100002f75570006',
      sightings: new Map(),
    });
    for (const s of sessions) expect(ensembleSessionSchema.parse(s)).toEqual(s);
    const worker = sessions.find((s) => s.sessionId === '0x100002f75570004')!;
    expect(worker).toMatchObject({
      client: '127.0.0.1:45396',
      member: '127.0.0.1:27291',
      timeoutMs: 900_000,
      establishedAt: 1795322333613,
      ephemerals: ['/app/workers/w-0000000004', '/app/workers/w-0000000005'],
      ephemeralCount: 2,
      connected: true,
      expiresAt: Date.UTC(2026, 10, 22, 4, 53, 54),
      isConsole: false,
    });
    expect(worker.flags.map((f) => f.kind)).toEqual(['long-timeout']);
    expect(sessions.find((s) => s.isConsole)?.sessionId).toBe('0x100002f75570006');
    // Freshest lresp on that member was 3308465; this one answered at 3239377.
    expect(worker.lastResponseAt).toBe(NOW - (3308465 - 3239377));
    expect(sightings.size).toBe(3);

    // The dead worker: in the dump, on nobody's connection list, 15 minutes of timeout.
    const dead = sessions.find((s) => s.sessionId === '0x100002f75570000')!;
    expect(dead).toMatchObject({ client: '', member: '', connected: false, ephemeralCount: 2, expiresAt: Date.UTC(2026, 10, 22, 4, 52, 14) });
    expect(dead.flags.map((f) => f.kind)).toEqual(['no-connection']);
    // Flagged sessions first; the two pinging 10 s sessions have nothing to say.
    expect(sessions.slice(-2).map((s) => [s.sessionId, s.flags.length])).toEqual([
      ['0x100002f75570005', 0],
      ['0x100002f75570006', 0],
    ]);
  });

  it("takes timeouts from a learner's dump for sessions it did not see connected", () => {
    const { sessions } = joinSessions({
      now: NOW,
      cons: [],
      dump: parseDump(fx.dumpFollowerDeadSession),
      consIncomplete: false,
      consoleSessionId: null,
      sightings: new Map(),
    });
    const dead = sessions.find((s) => s.sessionId === '0x100002f75570000')!;
    expect(dead.timeoutMs).toBe(900_000);
    expect(dead.flags.map((f) => f.kind)).toEqual(['long-timeout', 'no-connection']);
  });

  it('claims no disconnection when some member could not be asked', () => {
    const { sessions } = joinSessions({ now: NOW, cons, dump: parseDump(fx.dumpLeader), consIncomplete: true, consoleSessionId: null, sightings: new Map() });
    const dead = sessions.find((s) => s.sessionId === '0x100002f75570000')!;
    expect(dead.connected).toBeUndefined();
    expect(dead.flags).toEqual([]);
  });

  it('lists connected sessions without a dump, once each', () => {
    const twice = [...cons, { member: '127.0.0.1:27292', connections: parseCons(fx.consFollower) }];
    const { sessions } = joinSessions({ now: NOW, cons: twice, dump: null, consIncomplete: false, consoleSessionId: null, sightings: new Map() });
    expect(sessions.map((s) => s.sessionId).sort()).toEqual(['0x100002f75570004', '0x100002f75570005', '0x100002f75570006']);
    expect(sessions.every((s) => s.ephemeralCount === 0)).toBe(true);
  });

  it('sees a session go silent across gatherings', () => {
    const one = [
      {
        member: 'm:1',
        connections: parseCons(' /10.0.0.1:5000[1](queued=0,recved=1,sent=1,sid=0xabc,lop=PING,est=1,to=30000,lresp=1000,llat=0,minlat=0,avglat=0,maxlat=0)'),
      },
    ];
    const first = joinSessions({ now: NOW, cons: one, dump: null, consIncomplete: false, consoleSessionId: null, sightings: new Map() });
    expect(first.sessions[0]!.flags).toEqual([]);
    const later = joinSessions({ now: NOW + 13_000, cons: one, dump: null, consIncomplete: false, consoleSessionId: null, sightings: first.sightings });
    expect(later.sessions[0]!.flags.map((f) => f.kind)).toEqual(['silent-near-timeout']);
    expect(later.sessions[0]!.lastResponseAt).toBe(NOW);
  });
});
