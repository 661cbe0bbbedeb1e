/** Each gate passing on a healthy ensemble, and failing with a sentence that says what it saw. */
import { describe, expect, it } from 'vitest';
import { gatesPass, preflight, stepGates, type Check, type CheckId } from '../../src/index.js';
import { health, threeVoters } from './support.js';

const T = 1_700_000_000_000;
const gate = (checks: Check[], id: CheckId) => checks.find((c) => c.id === id)!;

describe('preflight', () => {
  it('passes on a whole, synced ensemble, saying what it saw', () => {
    const checks = preflight(threeVoters(T));
    expect(gatesPass(checks)).toBe(true);
    expect(checks.map((c) => c.id)).toEqual(['voters-serving', 'synced-followers', 'zxid-caught-up', 'members-answer', 'tolerates-failure']);
    expect(checks.every((c) => c.at === T)).toBe(true);
    expect(gate(checks, 'voters-serving').saw).toBe('3 of 3 voters serving');
    expect(gate(checks, 'synced-followers').saw).toBe("2 of 2 followers synced (the leader member 1's AdminServer monitor synced_followers)");
    expect(gate(checks, 'zxid-caught-up').saw).toBe('all 2 other members at or past 0x100000010 (the leader is at 0x100000010)');
    expect(gate(checks, 'members-answer').saw).toBe('all 3 members answered (3 over AdminServer)');
    expect(gate(checks, 'tolerates-failure').saw).toBe('3 voters tolerate 1 failure; 1 more now');
  });

  it('fails when a voter does not serve (and then tolerates no more failure)', () => {
    const checks = preflight(threeVoters(T, { 3: { state: 'down' }, 1: { syncedFollowers: 1 } }));
    expect(gate(checks, 'voters-serving')).toMatchObject({ ok: false, saw: '2 of 3 voters serving: member 3 (zk3:2181) is down (connection refused)' });
    expect(gate(checks, 'tolerates-failure')).toMatchObject({ ok: false, saw: '3 voters tolerate 1 failure, but none is left now' });
    expect(gate(checks, 'members-answer').ok).toBe(false);
  });

  it("fails when the leader's synced followers are not full, naming the metric", () => {
    const partial = gate(preflight(threeVoters(T, { 1: { syncedFollowers: 1, source: '4lw' } })), 'synced-followers');
    expect(partial).toMatchObject({ ok: false, saw: "1 of 2 followers synced (the leader member 1's mntr zk_synced_followers)" });
    const unknown = gate(preflight(threeVoters(T, { 1: { syncedFollowers: null } })), 'synced-followers');
    expect(unknown.ok).toBe(false);
    expect(unknown.saw).toContain('did not report its synced followers');
    const noLeader = gate(preflight(threeVoters(T, { 1: { state: 'follower' } })), 'synced-followers');
    expect(noLeader).toMatchObject({ ok: false, saw: 'no leader serving, so no synced-followers count (2 followers expected)' });
  });

  it('counts only voting followers: observers do not make the count short', () => {
    const h = health(
      [
        { id: 1, state: 'leader', syncedFollowers: 2 },
        { id: 2, state: 'follower' },
        { id: 3, state: 'follower' },
        { id: 4, state: 'observer', observer: true },
      ],
      T,
    );
    expect(gate(preflight(h), 'synced-followers')).toMatchObject({
      ok: true,
      saw: "2 of 2 followers synced (the leader member 1's AdminServer monitor synced_followers)",
    });
  });

  it('fails on a member behind in zxid, by transactions or by epoch', () => {
    const byCount = gate(preflight(threeVoters(T, { 3: { zxid: '0x10000000c' } })), 'zxid-caught-up');
    expect(byCount).toMatchObject({ ok: false, saw: 'member 3 is 4 transactions behind (0x10000000c against 0x100000010) (the leader is at 0x100000010)' });
    const byEpoch = gate(preflight(threeVoters(T, { 1: { zxid: '0x200000003' } })), 'zxid-caught-up');
    expect(byEpoch.ok).toBe(false);
    expect(byEpoch.saw).toContain('member 2 is an epoch behind (0x100000010 against 0x200000003)');
  });

  it("is fair under writes: a follower at the leader's previous zxid is not behind", () => {
    const h = threeVoters(T, { 1: { zxid: '0x100000020' }, 2: { zxid: '0x100000018' }, 3: { zxid: '0x100000019' } });
    expect(gate(preflight(h), 'zxid-caught-up').ok).toBe(false);
    expect(gate(preflight(h, { referenceLeaderZxid: '0x100000018' }), 'zxid-caught-up').ok).toBe(true);
    // A reference from an older epoch is no reference: the current leader's zxid is used.
    expect(gate(preflight(h, { referenceLeaderZxid: '0x000000018' }), 'zxid-caught-up').ok).toBe(false);
  });

  it('a new epoch with no write yet: followers on the old epoch miss nothing', () => {
    expect(gate(preflight(threeVoters(T, { 1: { zxid: '0x200000000' } })), 'zxid-caught-up').ok).toBe(true);
  });

  it('fails when a member answers neither 4lw nor AdminServer', () => {
    const h = health(
      [
        { id: 1, state: 'leader', syncedFollowers: 2 },
        { id: 2, state: 'follower', source: '4lw' },
        { id: 3, state: 'follower' },
        { id: 4, state: 'unreachable', observer: true, detail: 'no answer within 2 s' },
      ],
      T,
    );
    const check = gate(preflight(h), 'members-answer');
    expect(check).toMatchObject({
      ok: false,
      saw: '1 of 4 members did not answer 4lw or AdminServer: member 4 (zk4:2181): unreachable (no answer within 2 s)',
    });
    expect(gate(preflight(h), 'voters-serving').ok).toBe(true);
    const mixed = gate(preflight(threeVoters(T, { 2: { source: '4lw' } })), 'members-answer');
    expect(mixed.saw).toBe('all 3 members answered (2 over AdminServer, 1 over 4lw)');
  });

  it('fails for 2 voters (no failure tolerated) unless the outage was confirmed', () => {
    const pair = health(
      [
        { id: 1, state: 'leader', syncedFollowers: 1 },
        { id: 2, state: 'follower' },
      ],
      T,
    );
    expect(gate(preflight(pair), 'tolerates-failure')).toMatchObject({
      ok: false,
      saw: '2 voters tolerate no failure: restarting a voter loses the quorum, so it cannot roll without an outage',
    });
    expect(gate(preflight(pair, { outageConfirmed: true }), 'tolerates-failure')).toMatchObject({ ok: true });
    expect(gatesPass(preflight(pair, { outageConfirmed: true }))).toBe(true);
  });
});

describe('stepGates', () => {
  it('adds that the member is still in the ensemble', () => {
    const checks = stepGates(threeVoters(T), { address: 'zk2:2181' }, { at: T + 5 });
    expect(checks[0]).toEqual({ id: 'member-present', ok: true, saw: 'member 2 (zk2:2181) is in the ensemble, a voter, now follower', at: T + 5 });
    expect(gatesPass(checks)).toBe(true);
    const gone = stepGates(threeVoters(T), { address: 'zk9:2181' });
    expect(gone[0]).toMatchObject({ ok: false, saw: "zk9:2181 is no longer in the ensemble's configuration" });
  });
});
