/** The pure pieces of access control: sessions, CSRF, cookies, origins, share links, credentials. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { checkCsrf } from '../../src/auth/csrf.js';
import { clearedSessionCookie, readCookie, sessionCookie } from '../../src/auth/cookies.js';
import { Credentials } from '../../src/auth/credentials.js';
import { loadOrCreateAdminToken } from '../../src/auth/generatedToken.js';
import { OPEN_IDENTITY, canMutate, type Identity } from '../../src/auth/identity.js';
import { isLoopbackHost, originAllowed } from '../../src/auth/origin.js';
import { SessionStore } from '../../src/auth/sessionStore.js';
import { MAX_SHARE_LINKS, ShareLinkStore, TooManyShareLinksError } from '../../src/auth/shareLinks.js';
import { testLogger } from '../support/logger.js';
import { checkAuthOptions } from '../../src/auth/authOptions.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'keeper-auth-unit-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SessionStore', () => {
  it('expires sessions, and a share session never outlives its link', () => {
    let now = 1_000;
    const store = new SessionStore(60_000, () => now);
    const s = store.create({ name: 'ann', role: 'admin', via: 'cookie' });
    const share = store.create({ name: 'share:x', role: 'viewer', via: 'share', shareLinkId: 'x', expiresAt: 11_000 });
    expect(store.get(s.cookie)).toBe(s.session);
    expect(s.session.csrfToken).not.toBe(s.cookie);
    // Only the cookie's hash is kept: the id is not the cookie.
    expect(s.session.id).not.toBe(s.cookie);
    expect(store.get(s.session.id)).toBeNull();
    now = 11_000;
    expect(store.get(share.cookie)).toBeNull();
    expect(store.endOf(share.cookie)).toMatchObject({ reason: 'session expired' });
    expect(store.get(s.cookie)).toBe(s.session);
    now = 61_000;
    expect(store.sweep()).toEqual([s.session.id]);
    expect(store.get(s.cookie)).toBeNull();
    expect(store.get(undefined)).toBeNull();
  });

  it('ends every session of a share link', () => {
    const store = new SessionStore(60_000);
    const a = store.create({ name: 'share:x', role: 'viewer', via: 'share', shareLinkId: 'x' });
    const b = store.create({ name: 'share:x', role: 'viewer', via: 'share', shareLinkId: 'x' });
    const c = store.create({ name: 'share:y', role: 'viewer', via: 'share', shareLinkId: 'y' });
    expect(store.deleteForShareLink('x').sort()).toEqual([a.session.id, b.session.id].sort());
    expect(store.get(c.cookie)).toBe(c.session);
  });

  it('bounds sessions per name, so one credential signing in again and again evicts only its own', () => {
    const store = new SessionStore({ ttlMs: 60_000, maxSessions: 10, maxPerName: 3 });
    const ann = store.create({ name: 'ann', role: 'admin', via: 'cookie' });
    const flood = Array.from({ length: 20 }, () => store.create({ name: 'viewer-token', role: 'viewer', via: 'cookie' }));
    expect(store.get(ann.cookie)).toBe(ann.session);
    expect(flood.filter((f) => store.get(f.cookie) !== null)).toHaveLength(3);
    expect(store.endOf(flood[0]!.cookie)?.reason).toMatch(/replaced by a newer sign-in/);
    expect(store.size).toBe(4);
  });

  it('survives a restart through its journal, keeps why sessions ended, and writes no cookie to disk', async () => {
    const dir = tempDir();
    let now = 1_000;
    const first = await SessionStore.open(dir, { ttlMs: 60_000 }, testLogger, () => now);
    const ann = first.create({ name: 'ann', role: 'admin', via: 'cookie', method: 'password', credential: 'fp' });
    const bob = first.create({ name: 'bob', role: 'viewer', via: 'cookie' });
    const short = first.create({ name: 'share:x', role: 'viewer', via: 'share', shareLinkId: 'x', expiresAt: 5_000 });
    first.delete(bob.session.id, 'signed out');
    await first.persisted();
    await first.close();
    const file = join(dir, 'sessions.jsonl');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    for (const issued of [ann, bob, short]) {
      expect(text).not.toContain(issued.cookie);
      expect(text).not.toContain(issued.hint);
    }

    now = 6_000;
    const second = await SessionStore.open(dir, { ttlMs: 60_000 }, testLogger, () => now);
    expect(second.get(ann.cookie)).toEqual(ann.session);
    expect(second.byHintValue(ann.hint)?.id).toBe(ann.session.id);
    expect(second.get(bob.cookie)).toBeNull();
    expect(second.endOf(bob.cookie)).toMatchObject({ reason: 'signed out' });
    // Expired while no Keeper ran: remembered as expired, at its expiry.
    expect(second.endOf(short.cookie)).toEqual({ id: short.session.id, reason: 'session expired', at: 5_000 });
    await second.close();
  });

  it('skips a torn last line after a crash and compacts the journal when it grows', async () => {
    const dir = tempDir();
    const store = await SessionStore.open(dir, { ttlMs: 60_000, maxPerName: 1, maxEnded: 10 }, testLogger);
    const keep = store.create({ name: 'ann', role: 'admin', via: 'cookie' });
    for (let i = 0; i < 1_500; i++) store.create({ name: 'viewer-token', role: 'viewer', via: 'cookie' });
    await store.persisted();
    await store.close();
    const lines = readFileSync(join(dir, 'sessions.jsonl'), 'utf8').trim().split('\n');
    // 1,500 sessions of one name replace each other (~3,000 changes), 2 live and 10 ends remembered:
    // the file is rewritten past 2 x 12 + 1,000 lines.
    expect(lines.length).toBeLessThanOrEqual(1_024);
    writeFileSync(join(dir, 'sessions.jsonl'), `${lines.join('\n')}\n{"put":{"id":"tor`);
    const again = await SessionStore.open(dir, { ttlMs: 60_000 }, testLogger);
    expect(again.get(keep.cookie)?.name).toBe('ann');
    await again.close();
  });
});

describe('checkCsrf', () => {
  const store = new SessionStore(60_000);
  const { session } = store.create({ name: 'ann', role: 'admin', via: 'cookie' });
  const cookieIdentity: Identity = { name: 'ann', role: 'admin', via: 'cookie', signInId: session.id };

  it('lets reads through and exempts bearer and open identities', () => {
    expect(checkCsrf('GET', cookieIdentity, session, undefined)).toEqual({ ok: true });
    expect(checkCsrf('POST', { name: 't', role: 'admin', via: 'bearer' }, null, undefined)).toEqual({ ok: true });
    expect(checkCsrf('DELETE', OPEN_IDENTITY, null, undefined)).toEqual({ ok: true });
  });

  it('requires the session token on cookie writes', () => {
    expect(checkCsrf('POST', cookieIdentity, session, undefined)).toMatchObject({ ok: false, reason: expect.stringMatching(/missing/) });
    expect(checkCsrf('PUT', cookieIdentity, session, 'wrong')).toMatchObject({ ok: false, reason: expect.stringMatching(/does not match/) });
    expect(checkCsrf('delete', cookieIdentity, session, session.csrfToken)).toEqual({ ok: true });
    expect(checkCsrf('POST', { ...cookieIdentity, via: 'share' }, session, [session.csrfToken])).toEqual({ ok: true });
    expect(checkCsrf('POST', cookieIdentity, null, session.csrfToken)).toMatchObject({ ok: false });
  });
});

describe('cookies', () => {
  it('writes a strict, HttpOnly cookie, Secure only over https', () => {
    expect(sessionCookie('abc', { maxAgeSeconds: 60, secure: false })).toBe('keeper_session=abc; Path=/; HttpOnly; SameSite=Strict; Max-Age=60');
    expect(sessionCookie('abc', { maxAgeSeconds: 60, secure: true })).toMatch(/; Secure$/);
    expect(clearedSessionCookie(false)).toMatch(/Max-Age=0/);
  });

  it('reads the session cookie among others and survives junk', () => {
    expect(readCookie('a=1; keeper_session=xyz; b=2')).toBe('xyz');
    expect(readCookie('keeper_session="q"')).toBe('q');
    expect(readCookie('keeper_session=%E0%A4%A')).toBeNull();
    expect(readCookie('other=1')).toBeNull();
    expect(readCookie(undefined)).toBeNull();
  });
});

describe('origins', () => {
  it("accepts the console's own host and configured origins only", () => {
    expect(originAllowed(undefined, 'x:1', [])).toBe(true);
    expect(originAllowed('http://127.0.0.1:8080', '127.0.0.1:8080', [])).toBe(true);
    expect(originAllowed('https://keeper.example', 'keeper.example', [])).toBe(true);
    expect(originAllowed('http://127.0.0.1:8081', '127.0.0.1:8080', [])).toBe(false);
    expect(originAllowed('https://evil.example', 'keeper.example', [])).toBe(false);
    expect(originAllowed('null', 'keeper.example', [])).toBe(false);
    expect(originAllowed('https://ops.example', 'internal:8080', ['https://ops.example'])).toBe(true);
    expect(originAllowed('file://', 'x', [])).toBe(false);
  });

  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', 'keeper.example']) expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('ShareLinkStore', () => {
  it('keeps at most MAX_SHARE_LINKS: past it the link that ended first is forgotten, and with none ended a new one is refused', () => {
    let now = 1_000_000;
    const store = new ShareLinkStore(null, () => now);
    const made = Array.from({ length: MAX_SHARE_LINKS }, (_, i) => store.create({ path: `/ensembles/x/znodes/${i}`, expiresInMinutes: 60, createdBy: 'ann' }));
    expect(() => store.create({ path: '/ensembles/x', expiresInMinutes: 60, createdBy: 'ann' })).toThrow(TooManyShareLinksError);
    expect(store.list()).toHaveLength(MAX_SHARE_LINKS);
    now += 1_000;
    store.revoke(made[7]!.link.id);
    now += 1_000;
    store.revoke(made[3]!.link.id);
    store.create({ path: '/ensembles/x', expiresInMinutes: 60, createdBy: 'ann' });
    expect(store.list()).toHaveLength(MAX_SHARE_LINKS);
    // The first to end (7) made room; 3, revoked later, is still listed as revoked.
    expect(store.get(made[7]!.link.id)).toBeNull();
    expect(store.get(made[3]!.link.id)?.revokedAt).toBe(now);
  });

  it('stores only hashes, persists, and announces revocation and expiry once', () => {
    const dir = tempDir();
    let now = 1_000_000;
    const store = new ShareLinkStore(dir, () => now);
    const ended: string[] = [];
    store.on('ended', (link, reason) => ended.push(`${link.id}:${reason}`));
    const a = store.create({ path: '/ensembles/x', expiresInMinutes: 1, createdBy: 'ann' });
    const b = store.create({ path: '/ensembles/y', expiresInMinutes: 10, createdBy: 'ann' });
    const file = readFileSync(join(dir, 'share-links.json'), 'utf8');
    expect(file).not.toContain(a.token);
    expect(statSync(join(dir, 'share-links.json')).mode & 0o777).toBe(0o600);
    expect(store.resolve(a.token)).toMatchObject({ ok: true, link: { id: a.link.id } });
    expect(store.resolve('nope')).toEqual({ ok: false, reason: 'unknown' });

    now += 61_000;
    store.sweep();
    store.sweep();
    expect(store.resolve(a.token)).toEqual({ ok: false, reason: 'expired' });
    store.revoke(b.link.id);
    store.revoke(b.link.id);
    expect(ended).toEqual([`${a.link.id}:expired`, `${b.link.id}:revoked`]);

    const reopened = new ShareLinkStore(dir, () => now);
    expect(reopened.resolve(b.token)).toEqual({ ok: false, reason: 'revoked' });
    expect(
      reopened
        .list()
        .map((l) => l.id)
        .sort(),
    ).toEqual([a.link.id, b.link.id].sort());
  });
});

describe('credentials', () => {
  it('verifies tokens and bcrypt passwords', async () => {
    const creds = new Credentials({
      adminToken: 'a'.repeat(20),
      viewerToken: 'v'.repeat(20),
      users: [{ name: 'vic', passwordHash: bcrypt.hashSync('pw-vic-123', 4), role: 'viewer' }],
    });
    expect(creds.verifyToken('a'.repeat(20))).toMatchObject({ name: 'admin-token', rights: { role: 'admin' } });
    expect(creds.verifyToken('v'.repeat(20))).toMatchObject({ name: 'viewer-token', rights: { role: 'viewer' } });
    expect(creds.verifyToken('a'.repeat(19))).toBeNull();
    expect(await creds.verifyPassword('vic', 'pw-vic-123')).toMatchObject({ name: 'vic', rights: { role: 'viewer' } });
    expect(await creds.verifyPassword('vic', 'wrong')).toBeNull();
    expect(await creds.verifyPassword('nobody', 'pw-vic-123')).toBeNull();
    expect(new Credentials({}).configured).toBe(false);
    expect(canMutate({ name: 'v', role: 'viewer', via: 'bearer' })).toBe(false);
    expect(canMutate(null)).toBe(false);
  });

  it('generates an admin token once, mode 0600, and keeps it', () => {
    const dir = join(tempDir(), 'state');
    const first = loadOrCreateAdminToken(dir);
    expect(first.created).toBe(true);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const second = loadOrCreateAdminToken(dir);
    expect(second).toEqual({ ...first, created: false });
  });
});

describe('checkAuthOptions', () => {
  const ensembles = [{ name: 'prod', connectionString: 'zk:2181' }];
  it('refuses at start what no one could use: a grant of an unknown ensemble, a user no grant lets in, http off loopback', () => {
    const bad = () =>
      checkAuthOptions(
        {
          stateDir: '/tmp/x',
          grants: [{ group: 'billing', role: 'writer', ensemble: 'prd', paths: ['/app'] }],
          users: [{ name: 'bob', passwordHash: 'x', groups: ['nobody-grants-this'] }],
          oidc: { issuer: 'http://id.example.com', clientId: 'k', scopes: ['openid'], groupsClaim: 'groups', name: 'id' },
        },
        ensembles,
      );
    expect(bad).toThrow(/auth\.grants\[0\]\.ensemble: no ensemble is named "prd" \(configured: prod\)/);
    expect(bad).toThrow(/auth\.users\[0\] \(bob\): no role, and none of its groups is in auth\.grants/);
    expect(bad).toThrow(/must be https \(http is allowed on loopback only\)/);
    expect(() =>
      checkAuthOptions(
        { stateDir: '/tmp/x', oidc: { issuer: 'http://127.0.0.1:17100', clientId: 'k', scopes: ['openid'], groupsClaim: 'groups', name: 'id' } },
        ensembles,
      ),
    ).not.toThrow();
  });
});
