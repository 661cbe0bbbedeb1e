/** Contender flags, each with its sentence (issue 12, item 5). */
import { describe, expect, it } from 'vitest';
import { contenderFlags, type ContenderFlagInput } from '../../src/locks/index.js';
import { session, T0 } from './support.js';

const base: ContenderFlagInput = { owner: session('0xa'), holding: true, kind: 'exclusive', heldForMs: null, heldLongMs: 600_000, now: T0 };
const kinds = (over: Partial<ContenderFlagInput>) => contenderFlags({ ...base, ...over }).map((f) => f.kind);

describe('contenderFlags', () => {
  it('flags nothing for a healthy owner', () => {
    expect(contenderFlags(base)).toEqual([]);
  });

  it('long-timeout from 60 s on, saying how long the node can outlive its owner', () => {
    expect(kinds({ owner: session('0xa', { timeoutMs: 59_999 }) })).toEqual([]);
    const [flag] = contenderFlags({ ...base, owner: session('0xa', { timeoutMs: 900_000 }) });
    expect(flag).toEqual({ kind: 'long-timeout', message: "Its owner's session timeout is 15 min: if its owner died, this hold lasts up to 15 min more." });
    expect(contenderFlags({ ...base, holding: false, owner: session('0xa', { timeoutMs: 60_000 }) })[0]!.message).toContain('this node lasts up to 60 s more');
    expect(contenderFlags({ ...base, kind: 'election', owner: session('0xa', { timeoutMs: 60_000 }) })[0]!.message).toContain('this leadership lasts');
  });

  it("silent: the sessions view's own silent flag on the owner, with the time to expiry when the leader said", () => {
    const silentFlag = { kind: 'silent-near-timeout' as const, message: 'Silent for at least 40 s' };
    expect(kinds({ owner: session('0xa', { flags: [silentFlag], timeoutMs: 120_000 }) })).toEqual(['long-timeout', 'silent']);
    const [flag] = contenderFlags({ ...base, owner: session('0xa', { flags: [silentFlag], expiresAt: T0 + 20_000 }) });
    expect(flag!.message).toBe(
      'Its owner has sent nothing for a large part of its 30 s timeout: it is stuck, paused or cut off. If it does not come back, this hold ends only when its session expires, in about 20 s.',
    );
    expect(kinds({ owner: session('0xa', { flags: [{ kind: 'long-timeout', message: '' }] }) })).toEqual([]);
  });

  it('no-connection only when no member lists the owner, not when that is unknown', () => {
    expect(kinds({ owner: session('0xa', { connected: false }) })).toEqual(['no-connection']);
    expect(kinds({ owner: session('0xa', { connected: undefined }) })).toEqual([]);
    expect(contenderFlags({ ...base, holding: false, owner: session('0xa', { connected: false }) })[0]!.message).toBe(
      'Its owner is connected to no member: if its client is gone, this node stays until the session expires (timeout 30 s).',
    );
  });

  it('held-long past the threshold, for holders only', () => {
    expect(kinds({ heldForMs: 599_999 })).toEqual([]);
    expect(contenderFlags({ ...base, heldForMs: 3_600_000 })).toEqual([{ kind: 'held-long', message: 'Held for at least 60 min, past the 10 min threshold.' }]);
    expect(kinds({ heldForMs: 3_600_000, holding: false })).toEqual([]);
    expect(kinds({ heldForMs: 1_000, heldLongMs: 1_000 })).toEqual(['held-long']);
  });

  it('leaked-holder for a holder proven leaked while it waited, saying who waits and how it ends', () => {
    expect(kinds({ provenLeaked: true, holding: false })).toEqual([]);
    const [flag] = contenderFlags({ ...base, provenLeaked: true });
    expect(flag).toEqual({
      kind: 'leaked-holder',
      message:
        'Proven leaked while it waited (its owner watched nothing it waited for): its owner does not know it holds, so every waiter behind it waits ' +
        'until its session ends or someone deletes it (Delete on its row, with typed confirmation; Clean never deletes a holder).',
    });
    expect(contenderFlags({ ...base, provenLeaked: true, kind: 'election' })[0]!.message).toContain('so nobody leads until');
  });

  it('none from a persistent node or an unknown owner', () => {
    expect(contenderFlags({ ...base, owner: null })).toEqual([]);
  });
});
