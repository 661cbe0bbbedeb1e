/**
 * A member at maxClientCnxns: serving when something vouches for it, unreachable when nothing
 * does; the quorum, the what-if and the alerts count it accordingly; connections per client
 * host raise an alert as they near the cap.
 */
import { describe, expect, it } from 'vitest';
import {
  classifyProbe,
  clientHostOf,
  computeAlerts,
  connectionLimitAlerts,
  connectionsByClientHost,
  creditRefusingMembers,
  maxClientCnxnsFromAdmin,
  maxClientCnxnsFromConf,
  ownConfFromAdmin,
  ownConfFromText,
  summarizeQuorum,
  whatIfDown,
  type RefusalFacts,
} from '../../src/ensemble/index.js';
import { alertSchema, memberStatusSchema, type MemberStatus } from '../../src/ensemble/types.js';
import { fx } from './fixtures.js';
import { member } from './support.js';

const DEADLINE = 2_000;
const A2 = '127.0.0.1:2192';

/** Member 2 as the poller sees it after its 4lw connection was closed at once. */
function refusing(over: Partial<MemberStatus> = {}): MemberStatus {
  const { state, detail } = classifyProbe({ kind: 'closed', message: 'srvr: connection closed at once, without an answer' }, DEADLINE);
  return member(2, state, {}, { detail, source: null, ...over });
}

const closed = (max: number | null = 10, lastServingState: RefusalFacts['lastServingState'] = 'follower'): RefusalFacts => ({
  closedAtOnce: true,
  lastServingState,
  maxClientCnxns: max,
});
const facts = (entries: [string, RefusalFacts][]) => new Map(entries);

describe('creditRefusingMembers', () => {
  it("counts a follower the leader's synced followers vouch for as serving, with the maxClientCnxns sentence", () => {
    const members = [member(1, 'follower'), refusing(), member(3, 'leader', { syncedFollowers: 2 })];
    expect(members[1]!.state).toBe('unreachable');
    const credited = creditRefusingMembers({ members, facts: facts([[A2, closed(10)]]), consoleMember: null });
    const m2 = credited[1]!;
    expect(m2.state).toBe('follower');
    expect(m2.detail).toMatch(
      /^refuses new connections from Keeper's address: maxClientCnxns \(10 per address\) reached; it serves: the leader counts it among its synced followers$/,
    );
    expect(m2.connectionLimit).toEqual({ maxClientCnxns: 10, evidence: ['synced-followers'] });
    expect(memberStatusSchema.parse(m2)).toEqual(m2);

    const quorum = summarizeQuorum(credited);
    expect(quorum).toMatchObject({ votersServing: 3, canLoseNow: 1 });
    expect(quorum.sentence).toBe('3 of 3 voters serving; tolerates 1 failure');
    const alerts = computeAlerts({ members: credited, quorum, blocked: new Map(), lag: [] });
    expect(alerts.map((a) => a.id)).toEqual([`refuses-keeper:${A2}`]);
    expect(alerts[0]!.title).toBe(`member 2 (${A2}) refuses new connections from Keeper's address: maxClientCnxns (10 per address) reached`);
    // The what-if counts it among the serving: taking member 1 down leaves 2 of 3.
    expect(whatIfDown(credited, credited[0]!)).toMatchObject({ quorumHolds: true, canLoseAfter: 0 });
    expect(whatIfDown(credited, m2).sentence).toMatch(/^If member 2 .* goes down now: 2 of 3 voters remain/);
  });

  it('leaves it unreachable when nothing vouches for it (the leader has one follower short), with the quorum sentence of today', () => {
    const members = [member(1, 'follower'), refusing(), member(3, 'leader', { syncedFollowers: 1 })];
    const credited = creditRefusingMembers({ members, facts: facts([[A2, closed(10)]]), consoleMember: null });
    expect(credited[1]).toEqual(members[1]);
    expect(credited[1]!.detail).toMatch(/closed Keeper's connection at once.*maxClientCnxns/);
    const quorum = summarizeQuorum(credited);
    expect(quorum.sentence).toBe('2 of 3 voters serving; tolerates 1 failure, none left now');
    expect(computeAlerts({ members: credited, quorum, blocked: new Map(), lag: [] }).map((a) => a.id)).toContain(`unreachable:${A2}`);
  });

  it('never credits a member that refused or timed out: only a connection closed at once', () => {
    const down = member(2, 'down', {}, { detail: 'connection refused' });
    const members = [member(1, 'follower'), down, member(3, 'leader', { syncedFollowers: 2 })];
    const notClosed = { ...closed(10), closedAtOnce: false };
    expect(creditRefusingMembers({ members, facts: facts([[A2, notClosed]]), consoleMember: A2 })[1]).toEqual(down);
  });

  it("takes the console's live session on it as evidence, and keeps its last role (an observer stays an observer)", () => {
    const observer = refusing({ configuredRole: 'observer' });
    const members = [member(1, 'follower'), observer, member(3, 'leader', { syncedFollowers: 1 })];
    const credited = creditRefusingMembers({ members, facts: facts([[A2, closed(null, 'observer')]]), consoleMember: A2 });
    expect(credited[1]).toMatchObject({ state: 'observer', connectionLimit: { maxClientCnxns: null, evidence: ['console-session'] } });
    expect(credited[1]!.detail).toMatch(
      /^refuses new connections from Keeper's address: maxClientCnxns \(its limit per address\) reached; it serves: Keeper's own session on it is alive$/,
    );
    expect(summarizeQuorum(credited)).toMatchObject({ voters: 2, votersServing: 2, observersServing: 1 });
  });

  it('takes an AdminServer answer as evidence and keeps its figures', () => {
    const viaAdmin = member(2, 'follower', { zxid: '0x100000010' }, { source: 'admin' });
    const members = [member(1, 'follower'), viaAdmin, member(3, 'leader', { syncedFollowers: 2 })];
    const [, m2] = creditRefusingMembers({ members, facts: facts([[A2, closed(60)]]), consoleMember: null });
    expect(m2).toMatchObject({ state: 'follower', metrics: { zxid: '0x100000010' }, connectionLimit: { evidence: ['admin', 'synced-followers'] } });
  });

  it('does not guess which of two refusing followers the leader vouches for when it syncs only one of them', () => {
    const m4 = { ...refusing(), id: 4, address: '127.0.0.1:2194', clientPort: 2194 };
    const m5 = { ...refusing(), id: 5, address: '127.0.0.1:2195', clientPort: 2195 };
    const members = [member(1, 'follower'), member(2, 'follower'), member(3, 'leader', { syncedFollowers: 3 }), m4, m5];
    const f = facts([
      [m4.address, closed(10)],
      [m5.address, closed(10)],
    ]);
    expect(creditRefusingMembers({ members, facts: f, consoleMember: null }).map((m) => m.state)).toEqual([
      'follower',
      'follower',
      'leader',
      'unreachable',
      'unreachable',
    ]);
    // One of them vouched for by the console's session: it is the synced one, so the other stays unreachable.
    const withConsole = creditRefusingMembers({ members, facts: f, consoleMember: m4.address });
    expect(withConsole.map((m) => m.connectionLimit?.evidence ?? null)).toEqual([null, null, null, ['console-session'], null]);
    expect(withConsole[4]!.state).toBe('unreachable');
    // All synced: both serve.
    members[2] = member(3, 'leader', { syncedFollowers: 4 });
    expect(creditRefusingMembers({ members, facts: f, consoleMember: null }).filter((m) => m.state === 'follower')).toHaveLength(4);
  });

  it('leaves a status credited by an earlier round as it is', () => {
    const members = [member(1, 'follower'), refusing(), member(3, 'leader', { syncedFollowers: 2 })];
    const once = creditRefusingMembers({ members, facts: facts([[A2, closed(10)]]), consoleMember: null });
    expect(creditRefusingMembers({ members: once, facts: facts([[A2, closed(10)]]), consoleMember: null })).toEqual(once);
  });
});

describe('connections per client host against maxClientCnxns', () => {
  it('reads the host of every client address form', () => {
    expect(clientHostOf('10.0.0.5:45396')).toBe('10.0.0.5');
    expect(clientHostOf('[0:0:0:0:0:0:0:1]:45396')).toBe('0:0:0:0:0:0:0:1');
    expect(clientHostOf('0:0:0:0:0:0:0:1:45396')).toBe('0:0:0:0:0:0:0:1');
  });

  it('counts connected sessions per member and host', () => {
    const sessions = [
      { client: '10.0.0.5:1', member: 'a:1' },
      { client: '10.0.0.5:2', member: 'a:1' },
      { client: '10.0.0.6:1', member: 'a:1' },
      { client: '10.0.0.5:3', member: 'b:1' },
      { client: '', member: '', connected: false },
    ];
    expect(connectionsByClientHost(sessions)).toEqual(
      new Map([
        [
          'a:1',
          new Map([
            ['10.0.0.5', 2],
            ['10.0.0.6', 1],
          ]),
        ],
        ['b:1', new Map([['10.0.0.5', 1]])],
      ]),
    );
  });

  it('warns from 80 % of the cap, says when it is reached, and is quiet without a cap', () => {
    const members = [member(1, 'follower'), member(2, 'follower'), member(3, 'leader')];
    const connections = new Map([
      [members[0]!.address, new Map([['10.0.0.5', 47]])],
      [
        members[1]!.address,
        new Map([
          ['10.0.0.5', 48],
          ['10.0.0.7', 60],
        ]),
      ],
      [members[2]!.address, new Map([['10.0.0.5', 500]])],
    ]);
    const limits = new Map<string, number | null>([
      [members[0]!.address, 60],
      [members[1]!.address, 60],
      [members[2]!.address, 0],
    ]);
    const alerts = connectionLimitAlerts({ members, limits, connections });
    for (const a of alerts) expect(alertSchema.parse(a)).toEqual(a);
    expect(alerts.map((a) => a.title)).toEqual([
      `member 2 (${members[1]!.address}): 48 of 60 connections from 10.0.0.5 (maxClientCnxns)`,
      `member 2 (${members[1]!.address}): 60 of 60 connections from 10.0.0.7 (maxClientCnxns): new ones are refused`,
    ]);
    expect(connectionLimitAlerts({ members, limits, connections: null })).toEqual([]);
  });
});

describe('maxClientCnxns from conf and the AdminServer', () => {
  it('reads it from a real conf, and from configuration JSON', () => {
    expect(maxClientCnxnsFromConf(fx.confFollower)).toBe(0);
    expect(maxClientCnxnsFromConf(fx.confFollower.replace('maxClientCnxns=0', 'maxClientCnxns=60'))).toBe(60);
    expect(maxClientCnxnsFromConf('clientPort=2181\n')).toBeNull();
    expect(maxClientCnxnsFromAdmin({ max_client_cnxns: 60, command: 'configuration' })).toBe(60);
    expect(maxClientCnxnsFromAdmin({ command: 'configuration' })).toBeNull();
  });

  it("reads the member's own server id with it: a TLS-only member's server line names no client port", () => {
    const tlsOnly =
      'secureClientPort=10441\nserverId=2\nmaxClientCnxns=60\nmembership: \nserver.1=127.0.0.1:10442:10443:participant\nserver.2=127.0.0.1:10452:10453:participant\n';
    expect(ownConfFromText(tlsOnly)).toEqual({ maxClientCnxns: 60, serverId: 2 });
    expect(ownConfFromText(fx.confFollower).serverId).toEqual(expect.any(Number));
    expect(ownConfFromAdmin({ max_client_cnxns: 0, server_id: 3 })).toEqual({ maxClientCnxns: 0, serverId: 3 });
    expect(ownConfFromAdmin({ server_id: '3' })).toEqual({ maxClientCnxns: null, serverId: null });
  });
});
