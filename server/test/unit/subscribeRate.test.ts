/**
 * Subscribe frames rate-limited per socket and per person (issue 25, item 1): ten `subscribe
 * locks` frames from one viewer blocked the event loop for 14.5 s, each answered with the whole
 * locks list computed and serialized afresh. A subscribe costs one unit plus one per 16 KiB of
 * state serialized afresh for it; past the burst, frames are refused with a `rateLimited` error
 * saying when to retry, before anything of them is read or any producer opened.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TopicEvent } from '@keeper/shared';
import type { Identity } from '../../src/auth/identity.js';
import type { TopicProducer } from '../../src/topics/topicProducer.js';
import { TokenBucket, BURST_SECONDS } from '../../src/hub/subscribeRate.js';
import { HubHarness, settle } from './support/hubHarness.js';

const viewer = (session: string): Identity => ({ name: 'viewer-token', role: 'viewer', via: 'cookie', signInId: session });
const subscribeLocks = (id: string) => ({ type: 'subscribe', topic: 'locks', ensemble: 'prod', params: {}, id }) as const;

type LocksEvent = TopicEvent<'locks'>;

/** A locks answer of about `bytes` (as JSON; its size in the roots it lists): a fresh object each call (computed afresh). */
function locksList(bytes: number): LocksEvent {
  const root = `/locks/${'d'.repeat(1_000)}`;
  const roots = Array.from({ length: Math.ceil(bytes / root.length) }, (_, i) => `${root}${i}`);
  return {
    kind: 'locks',
    locks: {
      ensemble: 'prod',
      root: '/',
      q: '',
      locks: [],
      offset: 0,
      limit: 100,
      total: 0,
      counts: { leaked: 0, persistent: 0, waiting: 0, holder: 0, empty: 0 },
      ownersHidden: false,
      herds: [],
      leakCheck: { gatherings: 2, spanMs: 15_000, ready: true, sentence: 'ready' },
      roots,
      tracked: roots.length,
      trackLimit: 1_000,
      opened: 0,
      openedLimit: 100,
      lastScan: null,
      at: 1,
    },
  };
}

function countingLocks(next: () => LocksEvent) {
  let opened = 0;
  const producer: TopicProducer<'locks'> = {
    topic: 'locks',
    open({ emit }) {
      opened++;
      emit(next());
      return () => {};
    },
  };
  return {
    producer,
    get opened() {
      return opened;
    },
  };
}

let harness: HubHarness | null = null;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
});
afterEach(() => {
  harness?.dispose();
  harness = null;
  vi.useRealTimers();
});

describe('subscribe rate', () => {
  it('refuses a flood of locks subscribes after the burst with rateLimited and a retry time, opening nothing for refused frames; another person is served', async () => {
    // 160 KiB of locks list built afresh per subscribe: 11 units each; 20 units a second per socket (a burst of 100).
    const locks = countingLocks(() => locksList(160 * 1024));
    harness = new HubHarness({ subscribesPerSecond: 20, subscribesPerSecondPerPerson: 40 }, { locks: locks.producer });
    const { socket } = harness.connect(viewer('greedy'), 'greedy');
    for (let i = 0; i < 50; i++) socket.deliver(subscribeLocks(`l${i}`));
    const refused = socket.errors().filter((e) => e.code === 'rateLimited');
    // Before: all 50 were answered, each with the list built afresh.
    expect(locks.opened).toBeLessThanOrEqual(11);
    expect(refused.length).toBe(50 - locks.opened);
    expect(refused[0]).toMatchObject({ retryAfterMs: expect.any(Number), message: expect.stringMatching(/too many subscribes .* retry in [\d.]+ s/) });
    expect(refused[0]?.retryAfterMs).toBeGreaterThan(0);

    // Another person holding the same token is not held back by the greedy one.
    const other = harness.connect(viewer('other'), 'other');
    other.socket.deliver(subscribeLocks('o1'));
    expect(other.socket.received).toContainEqual({ type: 'ack', id: 'o1' });

    // After the wait, the greedy socket may subscribe again.
    vi.setSystemTime(Date.now() + (refused.at(-1)?.retryAfterMs ?? 0) + 1);
    socket.deliver(subscribeLocks('later'));
    expect(socket.received).toContainEqual({ type: 'ack', id: 'later' });
    await settle();
  });

  it("shares a person's budget between its tabs", () => {
    const locks = countingLocks(() => locksList(160 * 1024));
    harness = new HubHarness({ subscribesPerSecond: 20, subscribesPerSecondPerPerson: 20 }, { locks: locks.producer });
    const a = harness.connect(viewer('same'), 'same');
    const b = harness.connect(viewer('same'), 'same');
    for (let i = 0; i < 20; i++) a.socket.deliver(subscribeLocks(`a${i}`));
    b.socket.deliver(subscribeLocks('b'));
    expect(b.socket.errors()).toEqual([expect.objectContaining({ code: 'rateLimited', id: 'b' })]);
  });

  it('charges nothing more for state already serialized for another browser', () => {
    const cached = locksList(160 * 1024);
    const locks = countingLocks(() => cached);
    harness = new HubHarness({ subscribesPerSecond: 20, subscribesPerSecondPerPerson: 40 }, { locks: locks.producer });
    const { socket } = harness.connect(viewer('cheap'), 'cheap');
    for (let i = 0; i < 80; i++) socket.deliver(subscribeLocks(`c${i}`));
    expect(socket.errors()).toEqual([]);
    expect(locks.opened).toBe(80);
  });

  it('refuses before reading anything else of the frame', () => {
    harness = new HubHarness({ subscribesPerSecond: 1 });
    const { socket } = harness.connect(viewer('v'), 'v');
    for (let i = 0; i < BURST_SECONDS - 1; i++)
      socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: `/p${i}` }, id: `ok${i}` });
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'nosuch', params: { path: 'bad' }, id: 'flood' });
    expect(socket.errors()).toEqual([expect.objectContaining({ code: 'rateLimited', id: 'flood' })]);
  });
});

describe('TokenBucket', () => {
  it('holds BURST_SECONDS of its rate, refills with time and says how long to wait', () => {
    let now = 0;
    const bucket = new TokenBucket(10, () => now);
    expect(bucket.capacity).toBe(10 * BURST_SECONDS);
    bucket.charge(10 * BURST_SECONDS + 2);
    expect(bucket.waitMs()).toBe(300);
    now += 300;
    expect(bucket.waitMs()).toBe(0);
    expect(bucket.full).toBe(false);
    now += 10_000;
    expect(bucket.full).toBe(true);
  });
});
