/**
 * Single sign-on and roles by group down to a subtree (issue 20 items 1 and 2), with a REAL
 * OpenID Connect provider (npm oidc-provider, started here on loopback, its own login and consent
 * pages) and a real ensemble:
 *  - a sign-in through it (authorization code + PKCE, discovery) gives exactly the rights the
 *    person's groups are granted; sign-out ends Keeper's session;
 *  - a bad state, a replayed code, another issuer, a token for another audience and an expired ID
 *    token are each refused with a clear message and an audit entry;
 *  - a person in no granted group is told so, with the groups that would give access;
 *  - a writer of /app/billing changes znodes there and nowhere else: every attack from it (another
 *    subtree, a name that only starts alike, another ensemble, the parent, ACLs, locks, upgrades,
 *    share links, the audit trail, path tricks) is refused before its body is read, audited, and
 *    kazoo confirms nothing changed.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, MeAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { KeeperOptions } from '../src/config/types.js';
import { readAuditFile } from '../src/audit/auditLog.js';
import { PORT_OFFSETS, ensembleConfigOf, startTestEnsemble } from './support/testEnsemble.js';
import { testLogger } from './support/logger.js';
import { call, type Who } from './support/http.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { kazoo, kazooGet, kazooSnapshot } from '../../scripts/lib/kazoo/index.js';
import { consentAtProvider, CookieJar, startOidcProvider, visit, type RunningOidcProvider } from '../../scripts/lib/oidc/index.js';

const ADMIN = 'admin-token-for-oidc-tests-0123456789';
const SECRET = 'keeper-client-secret-for-tests';

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let provider: RunningOidcProvider;
let keeper: RunningKeeper;
let options: KeeperOptions;
let stateDir: string;

const audit = (): AuditEntry[] => readAuditFile(stateDir);
const lastLogin = (since: number) =>
  audit()
    .slice(since)
    .filter((e) => e.action === 'login');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A browser of one person: Keeper's cookies and the provider's. */
class Person {
  readonly keeperJar = new CookieJar();
  readonly providerJar = new CookieJar();
  constructor(readonly login: string) {}

  /** Presses "Sign in with …" and consents: the provider's answer, not yet delivered to Keeper. */
  async startAndConsent(next = '/'): Promise<string> {
    const started = await visit(this.keeperJar, `${keeper.url}/auth/oidc/login?next=${encodeURIComponent(next)}`);
    expect(started.status).toBe(302);
    const authorization = started.headers.get('location')!;
    expect(authorization.startsWith(provider.issuer)).toBe(true);
    return consentAtProvider(authorization, this.login, this.providerJar);
  }

  /** Delivers the provider's answer to Keeper's callback. */
  async deliver(callback: string): Promise<{ status: number; location: string | null; text: string }> {
    const res = await visit(this.keeperJar, callback);
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }

  async signIn(next = '/'): Promise<Who & { me: MeAnswer }> {
    const done = await this.deliver(await this.startAndConsent(next));
    expect(done.status, done.text).toBe(302);
    const cookie = `keeper_session=${this.keeperJar.get('keeper_session')}`;
    const me = (await call(keeper.url, 'GET', '/api/me', { cookie })).body as MeAnswer;
    return { cookie, csrf: me.csrfToken!, me };
  }
}

/** A genuine ID token the provider issues to another application ("other-app"), through its real pages. */
async function idTokenForOtherApp(login: string): Promise<string> {
  const verifier = 'v'.repeat(43) + 'other';
  const { createHash } = await import('node:crypto');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const auth = new URL(`${provider.issuer}/auth`);
  auth.search = new URLSearchParams({
    client_id: 'other-app',
    response_type: 'code',
    scope: 'openid profile groups',
    redirect_uri: 'http://127.0.0.1:9/other/callback',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'other-state',
    nonce: 'other-nonce',
  }).toString();
  const back = new URL(await consentAtProvider(auth.href, login));
  const token = await fetch(`${provider.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('other-app:other-secret').toString('base64')}` },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: 'http://127.0.0.1:9/other/callback',
      code_verifier: verifier,
    }),
  });
  const body = (await token.json()) as { id_token: string };
  return body.id_token;
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.oidcTest);
  await kazoo(ensemble.connectionString, [
    { op: 'create', path: '/app/billing/cfg', data: 'billing-v1' },
    { op: 'create', path: '/app/billingx/cfg', data: 'billingx-v1' },
    { op: 'create', path: '/app/payments/cfg', data: 'payments-v1' },
    { op: 'create', path: '/second/app/billing/cfg', data: 'second-v1' },
  ]);
  const port = await freePort();
  provider = await startOidcProvider({
    clients: [
      { client_id: 'keeper', client_secret: SECRET, redirect_uris: [`http://127.0.0.1:${port}/auth/oidc/callback`] },
      { client_id: 'other-app', client_secret: 'other-secret', redirect_uris: ['http://127.0.0.1:9/other/callback'] },
    ],
    accounts: {
      alice: { preferred_username: 'alice', email: 'alice@example.com', groups: ['zk-admins'] },
      bob: { preferred_username: 'bob', email: 'bob@example.com', groups: ['billing', 'staff'] },
      carol: { preferred_username: 'carol', groups: ['oncall'] },
      mallory: { preferred_username: 'mallory', groups: ['marketing', 'staff'] },
    },
  });
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-oidc-'));
  options = {
    host: '127.0.0.1',
    port,
    ensembles: [ensembleConfigOf(ensemble), { name: 'it2', connectionString: `${ensemble.connectionString}/second` }],
    auth: {
      stateDir,
      adminToken: ADMIN,
      oidc: {
        issuer: provider.issuer,
        clientId: 'keeper',
        clientSecret: SECRET,
        scopes: ['openid', 'profile', 'email', 'groups'],
        groupsClaim: 'groups',
        name: 'Test IdP',
      },
      grants: [
        { group: 'zk-admins', role: 'admin' },
        { group: 'oncall', role: 'viewer' },
        { group: 'billing', role: 'writer', ensemble: 'it', paths: ['/app/billing'] },
      ],
    },
  };
  keeper = await startKeeper(options, { logger: testLogger, rateLimits: { api: 100_000 } });
}, 120_000);

afterAll(async () => {
  await keeper?.close();
  await provider?.stop();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('sign-in through a real OpenID Connect provider', () => {
  it('offers the provider on the sign-in page and uses the code flow with PKCE', async () => {
    expect((await call(keeper.url, 'GET', '/api/sign-in-methods')).body).toMatchObject({ token: true, oidc: { name: 'Test IdP', url: '/auth/oidc/login' } });
    const started = await visit(new CookieJar(), `${keeper.url}/auth/oidc/login?next=/ensembles/it/znodes/app`);
    const url = new URL(started.headers.get('location')!);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(`${keeper.url}/auth/oidc/callback`);
    expect(started.headers.get('set-cookie')).toMatch(/keeper_oidc=[^;]+; Path=\/auth\/oidc; HttpOnly; SameSite=Lax; Max-Age=600/);
  });

  it('signs a person in with the rights their groups give, and sign-out ends Keeper’s session', async () => {
    const before = audit().length;
    const alice = new Person('alice');
    const done = await alice.deliver(await alice.startAndConsent('/ensembles/it/znodes/app'));
    expect(done.status).toBe(302);
    expect(done.location).toBe('/ensembles/it/znodes/app');
    const cookie = `keeper_session=${alice.keeperJar.get('keeper_session')}`;
    const me = (await call(keeper.url, 'GET', '/api/me', { cookie })).body as MeAnswer;
    expect(me).toMatchObject({
      name: 'alice',
      role: 'admin',
      via: 'cookie',
      groups: ['zk-admins'],
      signedInWith: 'Test IdP',
      rights: { role: 'admin', grantedBy: ['zk-admins'] },
    });
    const login = lastLogin(before).find((e) => e.outcome === 'ok')!;
    expect(login).toMatchObject({ actor: { name: 'alice', role: 'admin' }, details: { method: 'oidc', provider: 'Test IdP', groups: ['zk-admins'] } });

    const socket = await TestBrowser.open(keeper.url, { headers: { cookie } });
    expect((await call(keeper.url, 'POST', '/api/logout', { cookie, csrf: me.csrfToken! })).status).toBe(204);
    expect((await call(keeper.url, 'GET', '/api/me', { cookie })).status).toBe(401);
    expect(await waitFor(() => socket.closeCode, { what: 'the socket closed' })).toBe(4003);
  });

  it('keeps the bearer token for scripts beside single sign-on', async () => {
    expect((await call(keeper.url, 'GET', '/api/me', { token: ADMIN })).body).toMatchObject({ name: 'admin-token', role: 'admin', via: 'bearer' });
  });

  it('refuses a bad state, a replayed code, another issuer, a token for another audience and an expired ID token: each said and audited', async () => {
    const refusedWith = async (person: Person, callback: string, code: string, words: RegExp) => {
      const before = audit().length;
      const res = await person.deliver(callback);
      expect(res.status, res.text).toBe(code === 'OIDC_UNAVAILABLE' ? 503 : 400);
      expect(res.text).toMatch(words);
      expect(res.text).toContain(code);
      expect(person.keeperJar.get('keeper_session')).toBeUndefined();
      const entry = lastLogin(before).find((e) => e.outcome === 'failed');
      expect(entry, `an audit entry for ${code}`).toMatchObject({ error: { code }, details: { method: 'oidc' } });
      return entry!;
    };

    // A state that is not the one this browser started with.
    const p1 = new Person('bob');
    const answer = new URL(await p1.startAndConsent());
    answer.searchParams.set('state', 'forged-state');
    await refusedWith(p1, answer.href, 'OIDC_STATE', /state does not match/);
    // An answer delivered to a browser that never started a sign-in (login CSRF): refused too.
    const p1b = new Person('bob');
    const elsewhere = await new Person('mallory').startAndConsent();
    await refusedWith(p1b, elsewhere, 'OIDC_STATE', /does not belong to a sign-in this browser started/);

    // A replayed code: a code already exchanged, delivered again with a fresh sign-in's state.
    const p2 = new Person('bob');
    const first = await p2.startAndConsent();
    expect((await p2.deliver(first)).status).toBe(302);
    const p3 = new Person('bob');
    const fresh = new URL(await p3.startAndConsent());
    const replay = new URL(fresh.href);
    replay.searchParams.set('code', new URL(first).searchParams.get('code')!);
    await refusedWith(p3, replay.href, 'OIDC_CODE_REFUSED', /refused the sign-in code \(invalid_grant/);

    // Another issuer in the answer (a mix-up): refused before any code is exchanged.
    const p4 = new Person('bob');
    const mixed = new URL(await p4.startAndConsent());
    mixed.searchParams.set('iss', 'http://127.0.0.1:9/evil-issuer');
    await refusedWith(p4, mixed.href, 'OIDC_ISSUER', /came back from another issuer \(http:\/\/127\.0\.0\.1:9\/evil-issuer\)/);

    // A genuine ID token the provider issued to another application, swapped in on the way.
    const foreign = await idTokenForOtherApp('bob');
    const p5 = new Person('bob');
    const answer5 = await p5.startAndConsent();
    await provider.swapNextIdToken(foreign);
    await refusedWith(p5, answer5, 'OIDC_AUDIENCE', /issued for another application \(audience other-app\), not Keeper \(client id keeper\)/);

    // The provider's clock is 3 hours behind: its ID token arrives long expired.
    await provider.skewClock(-3 * 3600_000);
    try {
      const p6 = new Person('bob');
      await refusedWith(p6, await p6.startAndConsent(), 'OIDC_EXPIRED', /ID token had expired when Keeper received it/);
    } finally {
      await provider.skewClock(0);
    }
    // And the same person, with nothing tampered, signs in.
    expect((await new Person('bob').signIn()).me.name).toBe('bob');
  });

  it('tells a person in no granted group so, naming the groups that would give access, and audits it', async () => {
    const before = audit().length;
    const mallory = new Person('mallory');
    const res = await mallory.deliver(await mallory.startAndConsent());
    expect(res.status).toBe(403);
    expect(res.text).toContain('No access to this Keeper');
    expect(res.text).toContain('marketing');
    for (const would of ['zk-admins (admin)', 'oncall (viewer)', 'billing (writer of it: /app/billing)']) expect(res.text).toContain(would);
    expect(mallory.keeperJar.get('keeper_session')).toBeUndefined();
    expect(lastLogin(before).find((e) => e.outcome === 'refused')).toMatchObject({
      actor: { name: 'mallory' },
      error: { code: 'NO_ACCESS' },
      details: { groups: ['marketing', 'staff'] },
    });
  });
});

describe('a writer of /app/billing', () => {
  let bob: Who & { me: MeAnswer };
  let carol: Who & { me: MeAnswer };
  const api = (who: Who, method: string, path: string, body?: unknown) => call(keeper.url, method, path, who, body);

  beforeAll(async () => {
    bob = await new Person('bob').signIn();
    carol = await new Person('carol').signIn();
  });

  it('sees its effective rights', () => {
    expect(bob.me).toMatchObject({ role: 'writer', rights: { role: 'writer', write: [{ ensemble: 'it', paths: ['/app/billing'] }], grantedBy: ['billing'] } });
    expect(carol.me).toMatchObject({ role: 'viewer', rights: { role: 'viewer', write: [] } });
  });

  it('creates, edits, deletes and imports under /app/billing (kazoo reads it)', async () => {
    expect((await api(bob, 'POST', '/api/ensembles/it/znodes/app/billing/new', { data: 'by bob' })).status).toBe(201);
    expect((await api(bob, 'PUT', '/api/ensembles/it/znodes/app/billing/cfg', { data: 'billing-v2', version: 0 })).status).toBe(200);
    expect((await kazooGet(ensemble.connectionString, '/app/billing/new'))?.data).toBe('by bob');
    expect((await kazooGet(ensemble.connectionString, '/app/billing/cfg'))?.data).toBe('billing-v2');
    expect((await api(bob, 'DELETE', '/api/ensembles/it/znodes/app/billing/new?version=0')).status).toBe(200);
    const exported = (await api(bob, 'GET', '/api/ensembles/it/export/app/billing/cfg')).body;
    expect((await api(bob, 'POST', '/api/ensembles/it/import/app/billing/copy?dryRun=true', exported)).status).toBe(200);
  });

  it("may not give imported nodes an ACL: setting ACLs is an admin's, and the import is refused with nothing written", async () => {
    const exported = (await api(bob, 'GET', '/api/ensembles/it/export/app/billing/cfg')).body;
    const doc = { ...exported, nodes: [{ ...exported.nodes[0], acl: [{ scheme: 'digest', id: 'carol:aGFzaGhhc2hoYXNoaGFzaGhhc2g=', permissions: 31 }] }] };
    const dry = await api(bob, 'POST', '/api/ensembles/it/import/app/billing/acl-copy?dryRun=true', doc);
    expect(dry.status).toBe(200);
    expect(dry.body.plan.problems).toEqual([expect.objectContaining({ path: '/app/billing/acl-copy', reason: 'aclNotGranted' })]);
    const run = await api(bob, 'POST', '/api/ensembles/it/import/app/billing/acl-copy', doc);
    expect(run.status).toBe(400);
    expect(run.body.error.code).toBe('IMPORT_REFUSED');
    expect(await kazooGet(ensemble.connectionString, '/app/billing/acl-copy')).toBeNull();
  });

  it('is refused everywhere else, before its body is read, audited, with nothing changed', async () => {
    const before = await kazooSnapshot(ensemble.connectionString, '/');
    const auditBefore = audit().length;
    const doc = (await api(bob, 'GET', '/api/ensembles/it/export/app/billing/cfg')).body;
    const attacks: [string, string, unknown?][] = [
      ['POST', '/api/ensembles/it/znodes/app/billingx/evil', { data: 'x' }],
      ['PUT', '/api/ensembles/it/znodes/app/billingx/cfg', { data: 'x', version: 0 }],
      ['POST', '/api/ensembles/it/znodes/app/payments/evil', { data: 'x' }],
      ['PUT', '/api/ensembles/it/znodes/app/payments/cfg', { data: 'x', version: 0 }],
      ['DELETE', '/api/ensembles/it/znodes/app/payments/cfg?version=0'],
      ['DELETE', '/api/ensembles/it/znodes/app?version=0&recursive=true'],
      ['POST', '/api/ensembles/it/znodes/app/evil', { data: 'x' }],
      ['POST', '/api/ensembles/it/znodes/evil', { data: 'x' }],
      ['POST', '/api/ensembles/it/import/app?dryRun=true', doc],
      ['POST', '/api/ensembles/it/import/app/payments', doc],
      // The same path in another ensemble.
      ['POST', '/api/ensembles/it2/znodes/app/billing/evil', { data: 'x' }],
      ['PUT', '/api/ensembles/it2/znodes/app/billing/cfg', { data: 'x', version: 0 }],
      // Admin-only, even inside its own subtree.
      ['PUT', '/api/ensembles/it/acl/app/billing/cfg', { acl: [{ scheme: 'world', id: 'anyone', perms: 'r' }], version: 0 }],
      ['POST', '/api/ensembles/it/locks/scan', { path: '/app/billing' }],
      ['POST', '/api/ensembles/it/locks/clean', { path: '/app/billing', dryRun: true }],
      ['POST', '/api/ensembles/it/locks/delete', { path: '/app/billing/cfg', owner: '0x1', version: 0 }],
      ['POST', '/api/ensembles/it/upgrades', { mode: 'rolling' }],
      ['POST', '/api/share-links', { path: '/ensembles/it/znodes/app/billing', expiresInMinutes: 5 }],
      ['GET', '/api/audit'],
      ['DELETE', '/api/jobs/not-bobs-job'],
    ];
    for (const [method, path, body] of attacks) {
      const res = await api(bob, method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(403);
      expect(res.body.error.code, `${method} ${path}`).toBe('FORBIDDEN');
    }
    // A writer is told where it may write.
    const told = await api(bob, 'POST', '/api/ensembles/it/znodes/app/billingx/evil', { data: 'x' });
    expect(told.body.error.message).toBe('bob is a writer of /app/billing in it only: /app/billingx/evil in it is outside');
    // Spellings that would step out are not paths at all.
    for (const path of ['/api/ensembles/it/znodes/app/billing/../payments/cfg', '/api/ensembles/it/znodes/app/billing/%2E%2E/payments/evil']) {
      const res = await api(bob, 'POST', path, { data: 'x' });
      expect([400, 403], path).toContain(res.status);
    }
    // A 5 MB body to a refused path is answered at once, unread.
    const big = await api(bob, 'PUT', '/api/ensembles/it/znodes/app/payments/cfg', { data: 'x'.repeat(5 * 1024 * 1024), version: 0 });
    expect(big.status).toBe(403);

    // The viewer changes nothing anywhere, its own groups' reach included.
    for (const [method, path, body] of [
      ['POST', '/api/ensembles/it/znodes/app/billing/by-carol', { data: 'x' }],
      ['PUT', '/api/ensembles/it/znodes/app/billing/cfg', { data: 'x', version: 1 }],
    ] as const) {
      expect((await api(carol, method, path, body)).status).toBe(403);
    }

    expect(await kazooSnapshot(ensemble.connectionString, '/')).toEqual(before);
    const refusals = audit()
      .slice(auditBefore)
      .filter((e) => e.outcome === 'refused' && e.actor.name === 'bob');
    expect(refusals.length).toBeGreaterThanOrEqual(16);
    expect(refusals.find((e) => e.path === '/app/billingx/evil')).toMatchObject({ action: 'create', ensemble: 'it', error: { code: 'FORBIDDEN' } });
  });

  it('keeps its sign-in through a restart, and loses it (saying why) once its group is no longer granted', async () => {
    await keeper.close();
    keeper = await startKeeper(options, { logger: testLogger, rateLimits: { api: 100_000 } });
    expect((await api(bob, 'GET', '/api/me')).body).toMatchObject({ name: 'bob', role: 'writer' });
    await keeper.close();
    const withoutBilling: KeeperOptions = { ...options, auth: { ...options.auth!, grants: options.auth!.grants!.filter((g) => g.group !== 'billing') } };
    keeper = await startKeeper(withoutBilling, { logger: testLogger, rateLimits: { api: 100_000 } });
    try {
      const refused = await api(bob, 'GET', '/api/me');
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toMatch(/bob is in no group that the grants give access to any more/);
      expect((await api(carol, 'GET', '/api/me')).body).toMatchObject({ name: 'carol', role: 'viewer' });
    } finally {
      await keeper.close();
      keeper = await startKeeper(options, { logger: testLogger, rateLimits: { api: 100_000 } });
    }
  });
});
