/** The hub's caps per identity and in total, and its limits from the config file. */
import { describe, expect, it } from 'vitest';
import { OPEN_IDENTITY, type Identity } from '../../src/auth/identity.js';
import { CappedCounter } from '../../src/hub/cappedCounter.js';
import { DEFAULT_HUB_LIMITS, hubLimitsFromConfig } from '../../src/hub/hubLimits.js';

const viewer: Identity = { name: 'viewer-token', role: 'viewer', via: 'bearer' };
const alice: Identity = { name: 'alice', role: 'viewer', via: 'cookie' };

describe('CappedCounter', () => {
  it('refuses past the per-identity cap, saying which cap', () => {
    const counter = new CappedCounter(2, 10);
    expect(counter.take(viewer)).toEqual({ ok: true });
    expect(counter.take(viewer)).toEqual({ ok: true });
    expect(counter.take(viewer)).toEqual({ ok: false, cap: 'identity', limit: 2 });
    expect(counter.take(alice)).toEqual({ ok: true });
    expect(counter.countFor(viewer)).toBe(2);
    expect(counter.count).toBe(3);
    counter.give(viewer);
    expect(counter.take(viewer)).toEqual({ ok: true });
  });

  it('refuses past the total, whoever asks', () => {
    const counter = new CappedCounter(5, 3);
    counter.take(viewer);
    counter.take(alice);
    counter.take(alice);
    expect(counter.take({ name: 'bob', role: 'admin', via: 'cookie' })).toEqual({ ok: false, cap: 'total', limit: 3 });
  });

  it('does not apply the per-identity cap to the open development mode, only the total', () => {
    const counter = new CappedCounter(1, 3);
    expect([counter.take(OPEN_IDENTITY), counter.take(OPEN_IDENTITY), counter.take(OPEN_IDENTITY)].every((v) => v.ok)).toBe(true);
    expect(counter.take(OPEN_IDENTITY)).toEqual({ ok: false, cap: 'total', limit: 3 });
  });

  it('never goes below zero on a give without a take', () => {
    const counter = new CappedCounter(1, 1);
    counter.give(viewer);
    expect(counter.count).toBe(0);
    expect(counter.take(viewer)).toEqual({ ok: true });
  });

  it('tells a viewer and an admin of the same name apart', () => {
    const counter = new CappedCounter(1, 10);
    counter.take({ name: 'x', role: 'viewer', via: 'cookie' });
    expect(counter.take({ name: 'x', role: 'admin', via: 'cookie' })).toEqual({ ok: true });
  });
});

describe('hubLimitsFromConfig', () => {
  it('has bounded defaults', () => {
    expect(hubLimitsFromConfig(undefined)).toEqual(DEFAULT_HUB_LIMITS);
    expect(DEFAULT_HUB_LIMITS.maxBufferedBytes).toBe(4 * 1024 * 1024);
    expect(DEFAULT_HUB_LIMITS.maxSockets).toBe(500);
  });

  it('maps the config file names and units', () => {
    const limits = hubLimitsFromConfig({
      sockets: 20,
      socketsPerIdentity: 2,
      socketBufferKiB: 512,
      socketBuffersTotalMiB: 8,
      watchedPaths: 7,
      subscriptionsPerSocket: 3,
    });
    expect(limits).toMatchObject({
      maxSockets: 20,
      maxSocketsPerIdentity: 2,
      maxBufferedBytes: 512 * 1024,
      maxBufferedBytesTotal: 8 * 1024 * 1024,
      maxWatchedPaths: 7,
      maxSubscriptions: 3,
    });
    expect(limits.maxSubscriptionsTotal).toBe(DEFAULT_HUB_LIMITS.maxSubscriptionsTotal);
  });
});
