import { describe, expect, it } from 'vitest';
import { ReadOnlyPolicy, type MemberModes } from '../../../src/zk/readOnlyPolicy.js';
import { serverIdOfSession } from '../../../src/zk/gateway.js';

function harness(modes: MemberModes) {
  const calls: string[] = [];
  let asked = 0;
  const policy = new ReadOnlyPolicy(async () => {
    asked++;
    return modes;
  });
  const actions = { openReadOnly: (m: string) => calls.push(`ro ${m}`), moveTo: (m: string) => calls.push(`rw ${m}`) };
  const flush = () => new Promise((r) => setTimeout(r, 0));
  return { policy, actions, calls, flush, asked: () => asked };
}

describe('ReadOnlyPolicy', () => {
  it('asks nothing while connected, nor in the first 2 s of a disconnect', async () => {
    const h = harness({ readWrite: [], readOnly: ['a:1'] });
    h.policy.tick('connected', 0, 10_000, h.actions);
    h.policy.tick('disconnected', 10_000, 11_500, h.actions);
    await h.flush();
    expect(h.asked()).toBe(0);
  });

  it('opens a read-only session only when no member serves read-write', async () => {
    const none = harness({ readWrite: [], readOnly: ['b:2'] });
    none.policy.tick('disconnected', 0, 2_000, none.actions);
    await none.flush();
    expect(none.calls).toEqual(['ro b:2']);
    const split = harness({ readWrite: ['a:1'], readOnly: ['b:2'] });
    split.policy.tick('disconnected', 0, 2_000, split.actions);
    await split.flush();
    expect(split.calls).toEqual([]);
  });

  it('moves back as soon as a member serves read-write, asking 2 s apart at first and 10 s at most', async () => {
    const h = harness({ readWrite: [], readOnly: ['b:2'] });
    let now = 0;
    for (; now < 120_000; now += 250) {
      h.policy.tick('readOnly', 0, now, h.actions);
      await h.flush();
    }
    // 2 s, 4 s, 8 s, then every 10 s at most (jitter takes up to a quarter off).
    expect(h.asked()).toBeGreaterThanOrEqual(12);
    expect(h.asked()).toBeLessThanOrEqual(17);
    expect(h.calls).toEqual([]);
    const back = harness({ readWrite: ['a:1'], readOnly: [] });
    back.policy.tick('readOnly', 0, now, back.actions);
    await back.flush();
    expect(back.calls).toEqual(['rw a:1']);
  });

  it('reads the member that opened a session from its id', () => {
    expect(serverIdOfSession('0x300004167f20000')).toBe(3);
    expect(serverIdOfSession('0x10000248a4f0000')).toBe(1);
    expect(serverIdOfSession('0x0')).toBeNull();
    expect(serverIdOfSession('nonsense')).toBeNull();
  });
});
