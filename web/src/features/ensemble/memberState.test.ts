import { describe, expect, it } from 'vitest';
import { READ_ONLY_MODE_DETAIL } from '@keeper/shared';
import { checkedAge, describeMember, describeQuorum, outageText } from './memberState';
import { downMember, healthOf, healthy, leader, member, oneDown, oneSyncing, T0 } from '../../testSupport/ensembleFixtures';

describe('describeMember', () => {
  it('is green with its role word while serving', () => {
    const h = healthy();
    expect(h.members.map((m) => describeMember(m, h.alerts, false))).toEqual([
      { tone: 'live', word: 'follower', reason: null },
      { tone: 'live', word: 'leader', reason: null },
      { tone: 'live', word: 'follower', reason: null },
    ]);
  });
  it('is red with the reason when down, and amber on the leader whose followers are not synced', () => {
    const h = oneDown();
    const [, l, d] = h.members;
    expect(describeMember(d!, h.alerts, false)).toEqual({ tone: 'lost', word: 'down', reason: 'connection refused' });
    // The dead follower explains the leader's count: the leader itself is fine.
    expect(describeMember(l!, h.alerts, false)).toMatchObject({ tone: 'live', word: 'leader' });
    const s = oneSyncing();
    expect(describeMember(s.members[1]!, s.alerts, false)).toMatchObject({ tone: 'degraded', word: 'leader', reason: 'Followers not synced: 1 of 2' });
  });
  it('is amber when behind the leader, without repeating the member name', () => {
    const m = member(3);
    const alert = {
      id: `behind:${m.address}`,
      severity: 'warning' as const,
      title: `member 3 (${m.address}) is behind the leader: zxid 0x200000001 vs 0x200000009 (8 transactions behind)`,
      why: '',
      action: '',
      members: [m.address],
    };
    expect(describeMember(m, [alert], false)).toEqual({
      tone: 'degraded',
      word: 'follower',
      reason: 'behind the leader: zxid 0x200000001 vs 0x200000009 (8 transactions behind)',
    });
  });
  it('is amber with the sentence, still a follower, when it serves but refuses Keeper at maxClientCnxns', () => {
    const detail =
      "refuses new connections from Keeper's address: maxClientCnxns (10 per address) reached; it serves: the leader counts it among its synced followers";
    const m = member(3, { detail, connectionLimit: { maxClientCnxns: 10, evidence: ['synced-followers'] } });
    expect(describeMember(m, [], false)).toEqual({ tone: 'degraded', word: 'follower', reason: detail });
  });
  it('is grey when the data is stale, and for a member whose words are not whitelisted', () => {
    expect(describeMember(leader(2), [], true).tone).toBe('stale');
    const nw = member(1, { state: 'not-whitelisted', detail: 'mntr is not in 4lw.commands.whitelist' });
    expect(describeMember(nw, [], false)).toEqual({ tone: 'stale', word: 'not whitelisted', reason: 'mntr is not in 4lw.commands.whitelist' });
  });
});

describe('describeMember with words refused', () => {
  it('keeps a serving member green and names the setting that would give its missing figures', () => {
    const m = member(3);
    const alert = {
      id: `4lw:${m.address}`,
      severity: 'info' as const,
      title: `member 3 (${m.address}): mntr, wchs not in 4lw.commands.whitelist`,
      why: '',
      action: '',
      members: [m.address],
    };
    expect(describeMember(m, [alert], false)).toEqual({
      tone: 'live',
      word: 'follower',
      reason: 'mntr, wchs not in 4lw.commands.whitelist: some figures are missing',
    });
    const unnamed = { ...m, id: null };
    expect(describeMember(unnamed, [{ ...alert, title: `${m.address}: mntr not in 4lw.commands.whitelist` }], false).reason).toBe(
      'mntr not in 4lw.commands.whitelist: some figures are missing',
    );
  });
});

describe('outageText', () => {
  it('says for how long a member is out', () => {
    expect(outageText(downMember(3, 40_000), T0)).toBe('down for 40 s');
    expect(outageText({ state: 'not-serving', lastServingAt: T0 - 180_000 }, T0)).toBe('not serving for 3 min');
    expect(outageText({ state: 'unreachable', lastServingAt: null }, T0)).toMatch(/not seen serving/);
    expect(outageText(member(1), T0)).toBeNull();
  });
});

describe('describeQuorum', () => {
  it('is healthy with all voters serving', () => {
    const h = healthy();
    expect(describeQuorum(h.quorum, h.alerts, false)).toEqual({ tone: 'live', word: 'healthy', reason: null });
  });
  it('is at the edge with one of three down, lost without quorum, grey when stale', () => {
    const h = oneDown();
    expect(describeQuorum(h.quorum, h.alerts, false)).toMatchObject({ tone: 'degraded', word: 'at the edge' });
    const none = healthOf([downMember(1), downMember(2), member(3, { state: 'not-serving' })]);
    expect(describeQuorum(none.quorum, none.alerts, false)).toMatchObject({ tone: 'lost', word: 'no quorum' });
    expect(describeQuorum(h.quorum, h.alerts, true).tone).toBe('stale');
  });
  it('without quorum, names the member that still serves reads in read-only mode, as the header does', () => {
    const members = [member(1, { state: 'not-serving', detail: READ_ONLY_MODE_DETAIL }), downMember(2), downMember(3)];
    const none = healthOf(members);
    expect(describeQuorum(none.quorum, none.alerts, false, members)).toEqual({
      tone: 'lost',
      word: 'no quorum',
      reason: 'no member serves writes; member 1 serves reads only (read-only mode)',
    });
  });
  it('is degraded with five voters and one down, and when followers are not synced', () => {
    const five = healthOf([member(1), leader(2), member(3), member(4), downMember(5)]);
    expect(describeQuorum(five.quorum, five.alerts, false)).toMatchObject({ tone: 'degraded', word: 'degraded' });
    const l = leader(2);
    const unsynced = healthOf([member(1), { ...l, metrics: { ...l.metrics, syncedFollowers: 1 } }, member(3)]);
    expect(describeQuorum(unsynced.quorum, unsynced.alerts, false)).toMatchObject({ tone: 'degraded', word: 'not synced' });
  });
  it('has no margin as a single standalone server', () => {
    const h = healthOf([member(1, { state: 'standalone' })]);
    expect(describeQuorum(h.quorum, h.alerts, false)).toMatchObject({ tone: 'degraded', word: 'no margin' });
  });
});

describe('checkedAge', () => {
  it('says how long ago the member was checked, ticking with the clock', () => {
    expect(checkedAge(T0, T0 + 400, 5_000)).toEqual({ text: 'checked just now', late: false });
    expect(checkedAge(T0, T0 + 4_200, 5_000)).toEqual({ text: 'checked 4 s ago', late: false });
    expect(checkedAge(T0, T0 + 5_000, 5_000).text).toBe('checked 5 s ago');
  });
  it('is late past three polls (at least 15 s): the state may no longer be true', () => {
    expect(checkedAge(T0, T0 + 15_000, 5_000).late).toBe(false);
    expect(checkedAge(T0, T0 + 15_001, 5_000)).toEqual({ text: 'checked 15 s ago', late: true });
    expect(checkedAge(T0, T0 + 15_001, 1_000).late).toBe(true);
    expect(checkedAge(T0, T0 + 29_000, 10_000).late).toBe(false);
    expect(checkedAge(T0, T0 + 3 * 60_000, 5_000)).toEqual({ text: 'checked 3 min ago', late: true });
  });
  it('counts a server clock slightly ahead as just now', () => {
    expect(checkedAge(T0 + 300, T0, 5_000).text).toBe('checked just now');
  });
});
