/** The hub's caps per person, per identity, for share links and in total with the admins' reserve, and its limits from the config file. */
import { describe, expect, it } from 'vitest';
import { OPEN_IDENTITY, type Identity } from '../../src/auth/identity.js';
import { personOf } from '../../src/auth/socketGate.js';
import { CappedCounter, type Caps, type Holder } from '../../src/hub/cappedCounter.js';
import { DEFAULT_HUB_LIMITS, hubLimitsFromConfig } from '../../src/hub/hubLimits.js';

const viewerToken: Identity = { name: 'viewer-token', role: 'viewer', via: 'cookie' };
const adminToken: Identity = { name: 'admin-token', role: 'admin', via: 'cookie' };
const alice: Identity = { name: 'alice', role: 'viewer', via: 'cookie' };
const link = (id: string): Identity => ({ name: `share:${id}`, role: 'viewer', via: 'share', shareLinkId: id });

/** One browser signed in with an identity: its own session, so its own person. */
const browser = (identity: Identity, session: string): Holder => ({ identity, person: personOf({ ...identity, signInId: session }, '10.0.0.1') });
const caps = (c: Partial<Caps>): Caps => ({ perPerson: 1_000, perIdentity: 1_000, shareLinks: 1_000, reservedForAdmins: 0, total: 1_000, ...c });

function fill(counter: CappedCounter, holder: Holder, n: number): void {
  for (let i = 0; i < n; i++) expect(counter.take(holder)).toEqual({ ok: true });
}

describe('CappedCounter', () => {
  it('counts per person: one holder of the viewer token at its cap leaves every other person with that token served', () => {
    const counter = new CappedCounter(caps({ perPerson: 50, perIdentity: 1_500 }));
    const greedy = browser(viewerToken, 's1');
    fill(counter, greedy, 50);
    expect(counter.take(greedy)).toMatchObject({ ok: false, cap: 'person', limit: 50 });
    // Before: the token was the only key, and everyone else holding it was refused (close 4004).
    for (let i = 2; i < 20; i++) expect(counter.take(browser(viewerToken, `s${i}`))).toEqual({ ok: true });
    expect(counter.countFor(viewerToken)).toBe(68);
  });

  it('still caps a token (an identity) over all the people who hold it', () => {
    const counter = new CappedCounter(caps({ perPerson: 2, perIdentity: 3 }));
    fill(counter, browser(viewerToken, 'a'), 2);
    fill(counter, browser(viewerToken, 'b'), 1);
    expect(counter.take(browser(viewerToken, 'c'))).toMatchObject({ ok: false, cap: 'identity', limit: 3 });
    expect(counter.take(browser(alice, 'd'))).toEqual({ ok: true });
  });

  it('keeps a reserve for admins: viewers and share links fill the rest, an admin still gets in', () => {
    const counter = new CappedCounter(caps({ perPerson: 100, total: 500, reservedForAdmins: 20, shareLinks: 1_000 }));
    // Ten share links of 48 tabs each (before: 10 links filled the 500 and locked the admin out).
    for (let l = 0; l < 10; l++) fill(counter, browser(link(`l${l}`), `p${l}`), 48);
    expect(counter.take(browser(link('l10'), 'p10'))).toMatchObject({ ok: false, cap: 'total', limit: 480, reservedForAdmins: 20 });
    expect(counter.take(browser(viewerToken, 'v'))).toMatchObject({ ok: false, cap: 'total', limit: 480 });
    fill(counter, browser(adminToken, 'admin'), 20);
    expect(counter.take(browser(adminToken, 'admin2'))).toMatchObject({ ok: false, cap: 'total', limit: 500 });
  });

  it('pools share links: all links together stop at their cap, other identities do not', () => {
    const counter = new CappedCounter(caps({ shareLinks: 30 }));
    for (let l = 0; l < 3; l++) fill(counter, browser(link(`l${l}`), `p${l}`), 10);
    expect(counter.take(browser(link('l3'), 'p3'))).toMatchObject({ ok: false, cap: 'shareLinks', limit: 30 });
    expect(counter.take(browser(viewerToken, 'v'))).toEqual({ ok: true });
    counter.give(browser(link('l0'), 'p0'));
    expect(counter.take(browser(link('l3'), 'p3'))).toEqual({ ok: true });
  });

  it('does not apply per-person or per-identity caps to the open development mode, only the total', () => {
    const counter = new CappedCounter(caps({ perPerson: 1, perIdentity: 1, total: 3, reservedForAdmins: 2 }));
    const open: Holder = { identity: OPEN_IDENTITY, person: 'open' };
    fill(counter, open, 3);
    expect(counter.take(open)).toMatchObject({ ok: false, cap: 'total', limit: 3 });
  });

  it('never goes below zero on a give without a take, and gives back per person', () => {
    const counter = new CappedCounter(caps({ perPerson: 1 }));
    const a = browser(alice, 'a');
    counter.give(a);
    expect(counter.count).toBe(0);
    expect(counter.take(a)).toEqual({ ok: true });
    expect(counter.take(a)).toMatchObject({ ok: false, cap: 'person' });
    counter.give(a);
    expect(counter.countForPerson(a.person)).toBe(0);
    expect(counter.take(a)).toEqual({ ok: true });
  });

  it('tells a viewer and an admin of the same name apart', () => {
    const counter = new CappedCounter(caps({ perIdentity: 1 }));
    counter.take(browser({ name: 'x', role: 'viewer', via: 'cookie' }, '1'));
    expect(counter.take(browser({ name: 'x', role: 'admin', via: 'cookie' }, '2'))).toEqual({ ok: true });
  });
});

describe('personOf', () => {
  it('is the sign-in session for cookies and share links, and the token with its address for a bearer', () => {
    expect(personOf({ ...viewerToken, signInId: 'abc' }, '10.0.0.1')).toBe(personOf({ ...viewerToken, signInId: 'abc' }, '10.0.0.2'));
    expect(personOf({ ...viewerToken, signInId: 'abc' }, '10.0.0.1')).not.toBe(personOf({ ...viewerToken, signInId: 'def' }, '10.0.0.1'));
    const bearer: Identity = { name: 'viewer-token', role: 'viewer', via: 'bearer' };
    expect(personOf(bearer, '10.0.0.1')).not.toBe(personOf(bearer, '10.0.0.2'));
    expect(personOf(OPEN_IDENTITY, 'x')).toBe('open');
  });
});

describe('hubLimitsFromConfig', () => {
  it('has bounded defaults that let 1,000 people connect with a reserve for admins', () => {
    expect(hubLimitsFromConfig(undefined)).toEqual(DEFAULT_HUB_LIMITS);
    expect(DEFAULT_HUB_LIMITS.maxBufferedBytes).toBe(4 * 1024 * 1024);
    expect(DEFAULT_HUB_LIMITS.maxSockets - DEFAULT_HUB_LIMITS.socketsReservedForAdmins).toBeGreaterThanOrEqual(1_000);
    expect(DEFAULT_HUB_LIMITS.maxSocketsPerIdentity).toBeGreaterThanOrEqual(1_000);
    expect(DEFAULT_HUB_LIMITS.socketsReservedForAdmins).toBeGreaterThan(0);
    expect(DEFAULT_HUB_LIMITS.maxSocketsForShareLinks).toBeLessThan(DEFAULT_HUB_LIMITS.maxSockets - DEFAULT_HUB_LIMITS.socketsReservedForAdmins);
    // 1,000 people each following 50 znodes.
    expect(DEFAULT_HUB_LIMITS.maxSubscriptionsPerIdentity).toBeGreaterThanOrEqual(50_000);
    expect(DEFAULT_HUB_LIMITS.maxSubscriptionsTotal - DEFAULT_HUB_LIMITS.subscriptionsReservedForAdmins).toBeGreaterThanOrEqual(50_000);
  });

  it('maps the config file names and units', () => {
    const limits = hubLimitsFromConfig({
      sockets: 20,
      socketsPerPerson: 3,
      socketsPerIdentity: 2,
      socketsForShareLinks: 5,
      socketsReservedForAdmins: 4,
      socketBufferKiB: 512,
      socketBuffersTotalMiB: 8,
      watchedPaths: 7,
      subscriptionsPerSocket: 3,
      subscriptionsPerPerson: 9,
      subscriptionsForShareLinks: 11,
      subscriptionsReservedForAdmins: 12,
      subscribesPerSecond: 13,
      subscribesPerSecondPerPerson: 14,
      socketStallSeconds: 3,
    });
    expect(limits).toMatchObject({
      maxSockets: 20,
      maxSocketsPerPerson: 3,
      maxSocketsPerIdentity: 2,
      maxSocketsForShareLinks: 5,
      socketsReservedForAdmins: 4,
      maxBufferedBytes: 512 * 1024,
      maxBufferedBytesTotal: 8 * 1024 * 1024,
      maxWatchedPaths: 7,
      maxSubscriptions: 3,
      maxSubscriptionsPerPerson: 9,
      maxSubscriptionsForShareLinks: 11,
      subscriptionsReservedForAdmins: 12,
      subscribesPerSecond: 13,
      subscribesPerSecondPerPerson: 14,
      stallMs: 3_000,
    });
    expect(limits.maxSubscriptionsTotal).toBe(DEFAULT_HUB_LIMITS.maxSubscriptionsTotal);
  });
});
