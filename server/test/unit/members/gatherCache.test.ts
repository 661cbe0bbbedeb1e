/** Shared, rate-limited gatherings: one at a time, one per window. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimitedGather } from '../../../src/members/gatherCache.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('RateLimitedGather', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 1_000));

  it('shares one gathering between concurrent callers', async () => {
    const pending = deferred<string>();
    const gather = vi.fn(() => pending.promise);
    const cache = new RateLimitedGather(gather, 10_000, clock);
    const calls = Array.from({ length: 20 }, () => cache.get(true));
    pending.resolve('sessions');
    const results = await Promise.all(calls);
    expect(gather).toHaveBeenCalledTimes(1);
    expect(new Set(results.map((r) => r.value))).toEqual(new Set(['sessions']));
    expect(results[0]).toEqual({ value: 'sessions', at: 1_000 });
  });

  it('serves the cache inside the window, even to refresh, and says how long to wait', async () => {
    let n = 0;
    const cache = new RateLimitedGather(async () => ++n, 10_000, clock);
    expect((await cache.get(false)).value).toBe(1);
    now += 4_000;
    expect((await cache.get(true)).value).toBe(1);
    expect(cache.nextAllowedInMs()).toBe(6_000);
    now += 6_000;
    expect((await cache.get(false)).value).toBe(1); // no refresh asked: the cache
    expect((await cache.get(true)).value).toBe(2);
    expect(cache.gatherings).toBe(2);
  });

  it('counts the window from the start of a gathering, and a failure does not open the gates', async () => {
    let fail = true;
    const cache = new RateLimitedGather(
      async () => {
        if (fail) throw new Error('members unreachable');
        return 'ok';
      },
      10_000,
      clock,
    );
    await expect(cache.get(true)).rejects.toThrow('members unreachable');
    await expect(cache.get(true)).rejects.toThrow(/next try in 10 s/);
    fail = false;
    now += 10_000;
    expect((await cache.get(true)).value).toBe('ok');
    expect(cache.gatherings).toBe(2);
  });

  it('relays a gathering to another replica under the same rate limit, adopts newer ones only, and tells listeners of its own gatherings alone', async () => {
    let n = 0;
    const cache = new RateLimitedGather(async () => `here-${++n}`, 10_000, clock);
    const own: string[] = [];
    cache.onGathered((g) => own.push(g.value));
    expect((await cache.get(true)).value).toBe('here-1');
    const relay = vi.fn(async () => ({ value: 'there', at: 500 }));
    cache.relayTo(relay);
    now += 10_000;
    // Relayed, but older than the one held: the held one stays (a gathering's age is its own time).
    expect(await cache.get(true)).toEqual({ value: 'here-1', at: 1_000 });
    expect(relay).toHaveBeenCalledTimes(1);
    // Inside the window nobody is asked, here or there.
    expect((await cache.get(true)).value).toBe('here-1');
    expect(relay).toHaveBeenCalledTimes(1);
    cache.adopt({ value: 'published', at: 5_000 });
    expect(cache.cached).toEqual({ value: 'published', at: 5_000 });
    cache.adopt({ value: 'stale', at: 4_000 });
    expect(cache.cached?.value).toBe('published');
    cache.relayTo(null);
    now += 10_000;
    expect((await cache.get(true)).value).toBe('here-2');
    expect(own).toEqual(['here-1', 'here-2']);
  });

  it('holds the last result only while its holder says so, and still keeps to the rate', async () => {
    let n = 0;
    const cache = new RateLimitedGather(async () => `whole-${++n}`, 10_000, clock);
    cache.holdWhile = () => cache.told;
    // Nobody publishes: the caller gets the result, the cache does not keep it.
    expect((await cache.get(true)).value).toBe('whole-1');
    expect(cache.cached).toBeNull();
    now += 4_000;
    await expect(cache.get(true)).rejects.toThrow(/not held; next try in 6 s/);
    cache.adopt({ value: 'published', at: 4_500 });
    expect(cache.cached).toBeNull();
    // A relayed one is still answered, though not held.
    cache.relayTo(async () => ({ value: 'there', at: 11_000 }));
    now += 6_000;
    expect((await cache.get(true)).value).toBe('there');
    expect(cache.cached).toBeNull();
    cache.relayTo(null);
    // Someone publishes each gathering: it is held for them.
    const told: string[] = [];
    const stop = cache.onGathered((g) => told.push(g.value));
    now += 10_000;
    expect((await cache.get(true)).value).toBe('whole-2');
    expect(cache.cached?.value).toBe('whole-2');
    expect(told).toEqual(['whole-2']);
    stop();
    now += 10_000;
    expect((await cache.get(true)).value).toBe('whole-3');
    expect(cache.cached).toBeNull();
    expect(cache.gatherings).toBe(4);
  });

  it('gathers at once when it stops relaying (it now polls for the others), though its last relay was moments ago', async () => {
    let n = 0;
    const cache = new RateLimitedGather(async () => `whole-${++n}`, 10_000, clock);
    cache.holdWhile = () => cache.told;
    // Following: its last round asked the polling replica, which then went silent.
    cache.relayTo(async () => {
      throw new Error('the replica that polls the members did not answer');
    });
    await expect(cache.get(true)).rejects.toThrow(/did not answer/);
    now += 2_000;
    await expect(cache.get(true)).rejects.toThrow(/gathering failed; next try in 8 s/);
    // Elected: the others' asks come at once, and are answered by a gathering here, not refused.
    cache.relayTo(null);
    cache.onGathered(() => undefined);
    expect((await cache.get(true)).value).toBe('whole-1');
    // Its own window holds from here on.
    now += 2_000;
    expect((await cache.get(true)).value).toBe('whole-1');
    expect(cache.gatherings).toBe(2);
    // A window opened by a gathering here is not reset by following and leading again.
    cache.relayTo(async () => ({ value: 'there', at: now }));
    cache.relayTo(null);
    expect((await cache.get(true)).value).toBe('whole-1');
    expect(cache.gatherings).toBe(2);
  });
});
