/** Alerts: each condition alone, each says why and what to do, and a healthy ensemble has none. */
import { describe, expect, it } from 'vitest';
import { assessLag, computeAlerts, EMPTY_LAG_MEMORY, READ_ONLY_MODE_DETAIL, summarizeQuorum, type LagFinding } from '../../src/ensemble/index.js';
import { alertSchema, type Alert, type MemberStatus } from '../../src/ensemble/types.js';
import { healthy, member } from './support.js';

function alerts(members: MemberStatus[], extra: { blocked?: Map<string, string[]>; lag?: LagFinding[] } = {}): Alert[] {
  const result = computeAlerts({ members, quorum: summarizeQuorum(members), blocked: extra.blocked ?? new Map(), lag: extra.lag ?? [] });
  for (const a of result) {
    expect(alertSchema.parse(a)).toEqual(a);
    expect(a.why.length).toBeGreaterThan(20);
    expect(a.action.length).toBeGreaterThan(20);
  }
  return result;
}
const ids = (list: Alert[]) => list.map((a) => a.id);

describe('computeAlerts', () => {
  it('is quiet for a healthy ensemble', () => {
    expect(alerts(healthy())).toEqual([]);
  });

  it('names a down member and the edge it puts a 3-voter ensemble on, without blaming sync for it', () => {
    const members = healthy();
    members[0] = member(1, 'down', {}, { detail: 'connection refused' });
    members[2] = member(3, 'leader', { syncedFollowers: 1, zxid: '0x100000010' });
    const list = alerts(members);
    // The leader counts 1 of 2 synced because member 1 is dead: the down alert says so, no second alert about snapshots.
    expect(ids(list)).toEqual(['at-edge', 'down:127.0.0.1:2191']);
    const down = list.find((a) => a.id === 'down:127.0.0.1:2191')!;
    expect(down.why).toContain('can now lose 0 more voters');
    expect(down.why).toContain('The leader counts 1 of 2 voting followers in sync: this member is one of those missing.');
    expect(list.map((a) => a.why).join(' ')).not.toMatch(/snapshot/);
  });

  it('says an unreachable follower is the one missing from the sync count, not a restart', () => {
    const members = healthy();
    members[1] = member(2, 'unreachable', {}, { detail: 'no answer within 2 s' });
    members[2] = member(3, 'leader', { syncedFollowers: 1, zxid: '0x100000010' });
    const list = alerts(members);
    expect(ids(list)).toEqual(['at-edge', 'unreachable:127.0.0.1:2192']);
    expect(list[1]!.why).toContain('this member is one of those missing');
  });

  it('names a serving follower the leader does not count, with what Keeper saw of it', () => {
    const members = healthy();
    members[0] = member(1, 'follower', { zxid: '0x100000004', uptimeSeconds: 12 });
    members[2] = member(3, 'leader', { syncedFollowers: 1, zxid: '0x100000010' });
    const list = alerts(members);
    expect(ids(list)).toEqual(['followers-not-synced']);
    const a = list[0]!;
    expect(a.title).toBe('Followers not synced: 1 of 2');
    expect(a.action).toMatch(/^Wait before restarting another member/);
    expect(a.why).toContain('member 1 (127.0.0.1:2191) answers as follower, started 12 s ago, zxid 0x100000004 against the leader');
    expect(a.why).toContain('still loading its snapshot');
    expect(a.members).toEqual(['127.0.0.1:2193', '127.0.0.1:2191', '127.0.0.1:2192']);
    // Nothing says it restarted: the cause is catching up, not a snapshot.
    members[0] = member(1, 'follower', { zxid: '0x100000010', uptimeSeconds: 86_400 });
    const settled = alerts(members)[0]!;
    expect(settled.why).not.toContain('snapshot');
    expect(settled.why).toContain('catching up');
  });

  it('with one follower dead and another not synced, counts only the one that serves', () => {
    const members = [...healthy(), member(4, 'down'), member(5, 'follower', { zxid: '0x100000010' })];
    members[2] = member(3, 'leader', { syncedFollowers: 2, zxid: '0x100000010' });
    const list = alerts(members);
    const a = list.find((x) => x.id === 'followers-not-synced')!;
    expect(a.title).toBe('Followers not synced: 2 of 4, 1 serving follower among the missing');
    expect(a.why).toContain('member 4 (127.0.0.1:2194) is down: see its alert');
  });

  it('is critical without quorum and does not repeat each not-serving member', () => {
    const members = [member(1, 'down'), member(2, 'down'), member(3, 'not-serving')];
    const list = alerts(members);
    expect(list[0]).toMatchObject({ id: 'no-quorum', severity: 'critical', title: 'No quorum: 0 of 3 voters serving, 2 needed' });
    expect(list[0]!.members).toEqual(['127.0.0.1:2191', '127.0.0.1:2192', '127.0.0.1:2193']);
    expect(ids(list)).not.toContain('not-serving:127.0.0.1:2193');
  });

  it('without quorum, says which member still serves reads in read-only mode, and what to do by what each member is shown as', () => {
    const members = [
      member(1, 'not-serving', {}, { detail: READ_ONLY_MODE_DETAIL }),
      member(2, 'down'),
      member(3, 'unreachable', {}, { detail: 'no answer within 2 s: a hung process' }),
    ];
    const noQuorum = alerts(members).find((a) => a.id === 'no-quorum')!;
    expect(noQuorum.why).toMatch(/^Without a quorum no member serves writes\. member 1 \(127\.0\.0\.1:2191\) serves reads only, in read-only mode/);
    expect(noQuorum.why).not.toContain('serves reads or writes');
    expect(noQuorum.action).toContain('start the member shown down (member 2 (127.0.0.1:2192))');
    expect(noQuorum.action).toContain('find why member 3 (127.0.0.1:2193) does not answer');
    expect(noQuorum.action).not.toMatch(/member 1/);
  });

  it('names a running member that has not joined the quorum', () => {
    // 5 voters, one running outside the quorum: the leader is short of one synced follower too.
    const members = [...healthy(), member(4, 'not-serving'), member(5, 'follower', { zxid: '0x100000010' })];
    members[2] = member(3, 'leader', { syncedFollowers: 3, zxid: '0x100000010' });
    expect(ids(alerts(members))).toEqual(['not-serving:127.0.0.1:2194']);
    expect(alerts(members)[0]!.why).toContain('The leader counts 3 of 4 voting followers in sync: this member is one of those missing.');
    members[2] = member(3, 'leader', { syncedFollowers: 4, zxid: '0x100000010' });
    expect(ids(alerts(members))).toEqual(['not-serving:127.0.0.1:2194']);
  });

  it('tells unreachable from down', () => {
    const members = healthy();
    members[1] = member(2, 'unreachable', {}, { detail: 'no answer within 2 s: a hung process' });
    const list = alerts(members);
    const a = list.find((x) => x.id === 'unreachable:127.0.0.1:2192')!;
    expect(a.why).toContain('no answer within 2 s');
    expect(a.action).toMatch(/hung/);
  });

  it('says an observer down does not affect the quorum', () => {
    const members = [...healthy(), member(4, 'down', {}, { configuredRole: 'observer' })];
    const list = alerts(members);
    expect(ids(list)).toEqual(['down:127.0.0.1:2194']);
    expect(list[0]!.why).toContain('observer: the quorum is unaffected');
  });

  it('flags even voters and the 2-voter ensemble', () => {
    const four = [...healthy(), member(4, 'follower', { zxid: '0x100000010' })];
    four[2] = member(3, 'leader', { syncedFollowers: 3, zxid: '0x100000010' });
    expect(alerts(four).map((a) => a.title)).toEqual(['An even number of voters (4) tolerates no more failures than 3']);
    const two = [member(1, 'follower'), member(2, 'leader', { syncedFollowers: 1 })];
    expect(ids(alerts(two))).toEqual(['two-voters']);
  });

  it('flags mixed builds of one release by their whole build string', () => {
    const members = healthy();
    expect(alerts(members)).toEqual([]);
    members[2] = member(3, 'leader', { syncedFollowers: 2, zxid: '0x100000010', version: '3.8.0-${mvngit.commit.id}, built on 2023-10-30 11:22 UTC' });
    const list = alerts(members);
    expect(ids(list)).toEqual(['mixed-builds']);
    expect(list[0]!.title).toBe(
      'Mixed builds: 1 of 3 members on 3.8.0 built on 2023-10-30 11:22 UTC (member 3), 2 on 3.8.0 built on 2024-12-29 17:54 UTC (member 1, member 2)',
    );
    expect(list[0]!.why).toContain('member 3: 3.8.0-${mvngit.commit.id}, built on 2023-10-30 11:22 UTC');
    expect(list[0]!.members).toEqual(['127.0.0.1:2193', '127.0.0.1:2191', '127.0.0.1:2192']);
  });

  it('counts only the members that told their build, and says so', () => {
    const members = healthy();
    members[0] = member(1, 'down', { version: null });
    members[1] = member(2, 'follower', { version: '3.8.0-abc, built on 2023-01-01' });
    const list = alerts(members).filter((a) => a.id === 'mixed-builds');
    expect(list[0]!.title).toBe(
      'Mixed builds: 1 of 2 members that answered (1 did not) on 3.8.0 built on 2023-01-01 (member 2), 1 on 3.8.0 built on 2024-12-29 17:54 UTC (member 3)',
    );
  });

  it('flags mixed releases as mixed versions, with each build', () => {
    const members = healthy();
    members[1] = member(2, 'follower', { version: '3.8.4-9316c2a7a97e1666d8f4593f34dd6fc36ecc436c, built on 2024-02-12 22:16 UTC' });
    const list = alerts(members);
    expect(list).toHaveLength(1);
    expect(list[0]!.id).toBe('mixed-versions');
    expect(list[0]!.title).toBe(
      'Mixed versions: 1 of 3 members on 3.8.4 built on 2024-02-12 22:16 UTC (member 2), 2 on 3.8.0 built on 2024-12-29 17:54 UTC (member 1, member 3)',
    );
    expect(list[0]!.action).toMatch(/followers first and the leader last/);
  });

  it('names 4lw.commands.whitelist and the words it blocks', () => {
    const list = alerts(healthy(), { blocked: new Map([['127.0.0.1:2193', ['mntr', 'cons']]]) });
    expect(list).toHaveLength(1);
    expect(list[0]!.title).toBe('member 3 (127.0.0.1:2193): mntr, cons not in 4lw.commands.whitelist');
    expect(list[0]!.action).toContain('4lw.commands.whitelist=srvr,mntr,conf,cons,dump,wchs,wchp');
  });

  it('reports a member behind the leader', () => {
    const list = alerts(healthy(), { lag: [{ address: '127.0.0.1:2191', zxid: '0x100000005', leaderZxid: '0x100000010', transactions: 11 }] });
    expect(list[0]!.title).toBe('member 1 (127.0.0.1:2191) is behind the leader: zxid 0x100000005 vs 0x100000010 (11 transactions behind)');
  });

  it('orders critical, then warnings, then information', () => {
    const members = [member(1, 'down'), member(2, 'down'), member(3, 'not-serving'), member(4, 'follower', { version: '3.9.0' })];
    const list = alerts(members, { blocked: new Map([['127.0.0.1:2194', ['mntr']]]) });
    const order = list.map((a) => a.severity);
    expect(order).toEqual([...order].sort((a, b) => ['critical', 'warning', 'info'].indexOf(a) - ['critical', 'warning', 'info'].indexOf(b)));
    expect(order[0]).toBe('critical');
    expect(order.at(-1)).toBe('info');
  });
});

describe('assessLag', () => {
  const at = (f1: string, f2: string, leader: string) => [
    member(1, 'follower', { zxid: f1 }),
    member(2, 'observer', { zxid: f2 }),
    member(3, 'leader', { zxid: leader }),
  ];

  it('needs two consecutive polls behind before it reports', () => {
    const first = assessLag(at('0x100000005', '0x100000010', '0x100000010'), EMPTY_LAG_MEMORY);
    expect(first.findings).toEqual([]);
    expect([...first.memory.behind]).toEqual(['127.0.0.1:2191']);
    const second = assessLag(at('0x100000005', '0x100000012', '0x100000012'), first.memory);
    expect(second.findings).toEqual([{ address: '127.0.0.1:2191', zxid: '0x100000005', leaderZxid: '0x100000010', transactions: 11 }]);
  });

  it("does not blame a member for writes that landed between two members' polls", () => {
    // Writes in flight: each poll, the follower trails the leader's CURRENT zxid but has
    // everything the leader had at the previous poll.
    let memory = EMPTY_LAG_MEMORY;
    for (let i = 1; i <= 10; i++) {
      const result = assessLag(
        at(`0x1000000${(i * 10).toString(16).padStart(2, '0')}`, '0x100000100', `0x1000000${(i * 10 + 9).toString(16).padStart(2, '0')}`),
        memory,
      );
      expect(result.findings).toEqual([]);
      memory = result.memory;
    }
  });

  it('forgives a member that catches up', () => {
    const first = assessLag(at('0x100000005', '0x100000010', '0x100000010'), EMPTY_LAG_MEMORY);
    const second = assessLag(at('0x100000010', '0x100000010', '0x100000010'), first.memory);
    expect(second.findings).toEqual([]);
    expect(second.memory.behind.size).toBe(0);
  });

  it('counts an older epoch as behind only once the leader committed in its epoch', () => {
    // A new leader's zxid is 0x200000000 until the first write; followers keep 0x1000000ff.
    let r = assessLag(at('0x1000000ff', '0x1000000ff', '0x200000000'), EMPTY_LAG_MEMORY);
    r = assessLag(at('0x1000000ff', '0x1000000ff', '0x200000000'), r.memory);
    expect(r.findings).toEqual([]);
    // The first write: the reference is still the leader's previous zxid (counter 0), then
    // the member is behind at two consecutive polls.
    r = assessLag(at('0x1000000ff', '0x200000003', '0x200000003'), r.memory);
    expect(r.memory.behind.size).toBe(0);
    r = assessLag(at('0x1000000ff', '0x200000004', '0x200000004'), r.memory);
    expect(r.findings).toEqual([]);
    r = assessLag(at('0x1000000ff', '0x200000005', '0x200000005'), r.memory);
    expect(r.findings).toEqual([{ address: '127.0.0.1:2191', zxid: '0x1000000ff', leaderZxid: '0x200000004', transactions: null }]);
  });

  it('respects the threshold', () => {
    const members = at('0x100000005', '0x100000010', '0x100000010');
    const first = assessLag(members, EMPTY_LAG_MEMORY, 11);
    expect(assessLag(members, first.memory, 11).findings).toEqual([]);
    const strict = assessLag(members, EMPTY_LAG_MEMORY, 10);
    expect(assessLag(members, strict.memory, 10).findings).toHaveLength(1);
  });

  it('does nothing without a leader or zxids, and forgets across elections', () => {
    expect(assessLag([member(1, 'follower', { zxid: '0x1' })], EMPTY_LAG_MEMORY)).toEqual({ findings: [], memory: EMPTY_LAG_MEMORY });
    const first = assessLag(at('0x100000005', '0x100000010', '0x100000010'), EMPTY_LAG_MEMORY);
    const noLeader = assessLag([member(1, 'follower', { zxid: '0x100000005' }), member(3, 'not-serving')], first.memory);
    expect(noLeader.memory).toEqual(EMPTY_LAG_MEMORY);
    expect(assessLag([member(1, 'down'), member(3, 'leader', { zxid: '0x100000010' })], first.memory).findings).toEqual([]);
  });
});
