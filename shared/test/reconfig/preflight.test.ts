/** The resize preflight's own checks and Keeper's right to reconfig, from whoAmI and /zookeeper/config's ACL. */
import { describe, expect, it } from 'vitest';
import { PERMISSION_BITS, reconfigPreflight, reconfigRights, type ReconfigPreflightFacts } from '../../src/index.js';
import { threeVoters } from '../upgrades/support.js';

const T = 1_700_000_000_000;
const READ_ONLY = [{ scheme: 'world', id: 'anyone', permissions: PERMISSION_BITS.r }];
const ip = { scheme: 'ip', id: '127.0.0.1' };

function facts(over: Partial<ReconfigPreflightFacts> = {}): ReconfigPreflightFacts {
  return {
    at: T,
    health: threeVoters(T),
    configVersion: '100000000',
    memberVersions: [1, 2, 3].map((id) => ({ id, address: `zk${id}:2181`, version: '100000000' })),
    rights: reconfigRights(READ_ONLY, [{ scheme: 'super', id: '' }, ip]),
    lockHolder: null,
    leaderZxidBefore: '0x100000010',
    joiners: [{ id: 4, address: 'zk4:2181', mode: 'follower', zxid: '0x100000012', notServing: false }],
    ...over,
  };
}
const check = (f: ReconfigPreflightFacts, id: string) => reconfigPreflight(f).find((c) => c.id === id)!;

describe('reconfigRights', () => {
  it("is the super user when whoAmI says super (ZooKeeper's own word on 3.8.0)", () => {
    expect(reconfigRights(READ_ONLY, [{ scheme: 'super', id: '' }, { scheme: 'digest', id: 'super' }, ip])).toEqual({
      basis: 'super',
      sentence: "ZooKeeper reports Keeper's session as its super user (whoAmI: super)",
    });
  });
  it('is allowed by an ACL entry granting write to one of its identities, a digest matched by its user', () => {
    const acl = [...READ_ONLY, { scheme: 'digest', id: 'ops:HASH=', permissions: PERMISSION_BITS.w | PERMISSION_BITS.r }];
    expect(reconfigRights(acl, [{ scheme: 'digest', id: 'ops' }, ip])).toMatchObject({ basis: 'acl', sentence: expect.stringContaining('digest:ops:HASH=') });
    expect(reconfigRights([{ scheme: 'ip', id: '127.0.0.1', permissions: PERMISSION_BITS.w }], [ip]).basis).toBe('acl');
    // Read only on the entry that matches: no.
    expect(reconfigRights([{ scheme: 'digest', id: 'ops:HASH=', permissions: PERMISSION_BITS.r }], [{ scheme: 'digest', id: 'ops' }]).basis).toBe('none');
  });
  it('says which right is missing, and that a digest user super whose password does not match is not the super user', () => {
    const none = reconfigRights(READ_ONLY, [ip]);
    expect(none.basis).toBe('none');
    expect(none.sentence).toContain("its session (ip:127.0.0.1) is not ZooKeeper's super user and /zookeeper/config's ACL (world:anyone:r) gives it no write");
    expect(reconfigRights(READ_ONLY, [{ scheme: 'digest', id: 'super' }, ip]).sentence).toContain("its password does not match the members' superDigest");
  });
});

describe('reconfigPreflight', () => {
  it('passes on a whole ensemble with a caught-up learner to add, saying what it saw', () => {
    const checks = reconfigPreflight(facts());
    expect(checks.map((c) => [c.id, c.ok])).toEqual([
      ['dynamic-config', true],
      ['reconfig-right', true],
      ['voters-serving', true],
      ['synced-followers', true],
      ['no-workflow', true],
      ['joiner-4', true],
    ]);
    expect(checks.at(-1)!.saw).toBe('member 4 (zk4:2181) is connected as a follower (learner) at zxid 0x100000012, caught up with the leader');
  });
  it('fails a member on another configuration version, or not answering', () => {
    const f = facts({
      memberVersions: [
        { id: 1, address: 'zk1:2181', version: '100000000' },
        { id: 2, address: 'zk2:2181', version: 'ff' },
        { id: 3, address: 'zk3:2181', version: null },
      ],
    });
    expect(check(f, 'dynamic-config')).toMatchObject({
      ok: false,
      saw: 'member 2 (zk2:2181) shows version ff; member 3 (zk3:2181) did not answer conf with a dynamic configuration, not 100000000',
    });
  });
  it('fails without the right, with a lock held, and with a voter down', () => {
    expect(check(facts({ rights: reconfigRights(READ_ONLY, [ip]) }), 'reconfig-right').ok).toBe(false);
    expect(check(facts({ lockHolder: 'Keeper h:1 (upgrade u by ops, session 0x1)' }), 'no-workflow')).toMatchObject({
      ok: false,
      saw: expect.stringContaining('an upgrade and a reconfig never run together'),
    });
    expect(check(facts({ health: threeVoters(T, { 3: { state: 'down' } }) }), 'voters-serving')).toMatchObject({
      ok: false,
      saw: expect.stringMatching(/: start it, or remove it in this resize$/),
    });
  });
  it('lets a resize remove the voter that does not serve (the fix for a frozen one): the members that stay must serve', () => {
    const frozen = threeVoters(T, { 3: { state: 'unreachable', detail: 'no answer within 2 s' }, 1: { syncedFollowers: 1 } });
    expect(check(facts({ health: frozen, leaving: [3] }), 'voters-serving')).toMatchObject({
      ok: true,
      saw: expect.stringContaining('member 3 (zk3:2181, unreachable) leaves in this resize and need not serve'),
    });
    expect(check(facts({ health: frozen, leaving: [3] }), 'synced-followers').ok).toBe(true);
    // Removing another member does not excuse the frozen one.
    expect(check(facts({ health: frozen, leaving: [2] }), 'voters-serving').ok).toBe(false);
  });
  it('counts the synced followers against every voter the leader still syncs, the serving ones leaving included (issue 34 item 8)', () => {
    // Removing member 3 while it serves: the leader syncs 2 followers, and says so; not "2 of 1".
    const whole = threeVoters(T, { 1: { syncedFollowers: 2 } });
    expect(check(facts({ health: whole, leaving: [3] }), 'synced-followers')).toMatchObject({
      ok: true,
      saw: expect.stringMatching(/^2 of 2 followers synced/),
    });
    // One of them not synced: refused, leaving or not.
    const behind = threeVoters(T, { 1: { syncedFollowers: 1 } });
    expect(check(facts({ health: behind, leaving: [3] }), 'synced-followers')).toMatchObject({
      ok: false,
      saw: expect.stringMatching(/^1 of 2 followers synced/),
    });
  });

  it('fails a member to add that is not there, not a learner, or behind the leader', () => {
    const j = (mode: string | null, zxid: string | null) =>
      check(facts({ joiners: [{ id: 4, address: 'zk4:2181', mode, zxid, notServing: false }] }), 'joiner-4');
    expect(j(null, null)).toMatchObject({
      ok: false,
      saw: 'member 4 (zk4:2181) does not answer srvr as a serving learner: start it with the current configuration plus itself',
    });
    expect(j('leader', '0x100000012')).toMatchObject({ ok: false, saw: 'member 4 (zk4:2181) says Mode: leader, not a learner waiting to be added' });
    expect(j('observer', '0x10000000f')).toMatchObject({
      ok: false,
      saw: "member 4 (zk4:2181) is an observer at zxid 0x10000000f, behind the leader's 0x100000010",
    });
  });
  it('tells a member to add that is up but not serving (started without reconfigEnabled, it stays so) from one that does not answer', () => {
    const up = check(facts({ joiners: [{ id: 4, address: 'zk4:2181', mode: null, zxid: null, notServing: true }] }), 'joiner-4');
    expect(up.ok).toBe(false);
    expect(up.saw).toMatch(/^member 4 \(zk4:2181\) is up but not serving \("not currently serving requests"\): it has not joined the leader as a learner\. /);
    expect(up.saw).toContain('A member started without reconfigEnabled=true stays so');
    expect(up.saw).toMatch(/start it with reconfigEnabled=true and the current configuration plus itself$/);
    const down = check(facts({ joiners: [{ id: 4, address: 'zk4:2181', mode: null, zxid: null, notServing: false }] }), 'joiner-4');
    expect(down.saw).not.toContain('reconfigEnabled');
  });
});
