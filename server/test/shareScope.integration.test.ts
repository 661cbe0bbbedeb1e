/**
 * Share links reach what their scope says and nothing else, on a real ensemble: a link scoped
 * to /s/a reads /s/a and below, and gets OUT_OF_SCOPE (403, over HTTP) or `outOfScope` (on the
 * socket) for the parent, a sibling, a name that merely starts the same (/s/ab), the ensemble
 * views, an export of the parent, and another ensemble. A link that allows the ensemble views
 * reads the members and sessions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { kazoo } from '../../scripts/lib/kazoo/index.js';
import { call, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-share-scope-0123456789';
const VIEWER = 'viewer-token-for-share-scope-0123456789';
const admin: Who = { token: ADMIN };

let ensemble: SharedEnsemble;
let keeper: RunningKeeper;
let stateDir: string;
const browsers: TestBrowser[] = [];

const api = (method: string, path: string, who: Who = {}, body?: unknown) => call(keeper.url, method, path, who, body);

/** Makes a link as the admin, opens it as a browser with no identity, and returns that browser's cookie. */
async function holderOf(path: string, scope?: { root?: string; ensembleViews?: boolean }): Promise<{ who: Who; link: Record<string, unknown> }> {
  const created = await api('POST', '/api/share-links', admin, { path, expiresInMinutes: 30, ...(scope ? { scope } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const opened = await fetch(created.body.url, { redirect: 'manual' });
  expect(opened.status).toBe(302);
  const cookie = /keeper_session=[^;]*/.exec(opened.headers.get('set-cookie') ?? '')![0];
  return { who: { cookie }, link: created.body };
}

async function open(who: Who): Promise<TestBrowser> {
  const b = await TestBrowser.open(keeper.url, { headers: { cookie: who.cookie! } });
  browsers.push(b);
  return b;
}

function expectOutOfScope(res: { status: number; body: any }, what: string): void {
  expect(res.status, what).toBe(403);
  expect(res.body.error.code, what).toBe('OUT_OF_SCOPE');
  expect(res.body.error.message, what).toMatch(
    /^this share link reaches \/s\/a and below of it(, plus members, sessions and watches)?, read-only; .+ is outside it$/,
  );
}

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-share-scope-'));
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      // A second name for the same ensemble: a holder of an "it" link must not see "twin".
      ensembles: [
        { name: 'it', connectionString: ensemble.connectionString },
        { name: 'twin', connectionString: ensemble.connectionString },
      ],
      auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
    },
    { logger: testLogger, rateLimits: { api: 100_000, loginFailures: 1_000 } },
  );
  await kazoo(ensemble.connectionString, [
    { op: 'create', path: '/s/a/x', data: 'inside' },
    { op: 'create', path: '/s/ab', data: 'prefix, not inside' },
    { op: 'create', path: '/s/b', data: 'sibling' },
  ]);
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
}, 120_000);

afterAll(async () => {
  for (const b of browsers) b.close();
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('a link scoped to /s/a', () => {
  it('is stored and shown with its scope, defaulting to the opened znode, ensemble views off', async () => {
    const { link } = await holderOf('/ensembles/it/znodes/s/a/x', { root: '/s/a' });
    expect(link.scope).toEqual({ ensemble: 'it', root: '/s/a', ensembleViews: false });
    const plain = await holderOf('/ensembles/it/znodes/s/a/x');
    expect(plain.link.scope).toEqual({ ensemble: 'it', root: '/s/a/x', ensembleViews: false });
    const me = await api('GET', '/api/me', plain.who);
    expect(me.body.shareLink.scope).toEqual({ ensemble: 'it', root: '/s/a/x', ensembleViews: false });
  });

  it('refuses a scope that is not the opened znode or one of its ancestors', async () => {
    for (const root of ['/s/b', '/s/a/x/y', '/s/a/']) {
      const res = await api('POST', '/api/share-links', admin, { path: '/ensembles/it/znodes/s/a/x', expiresInMinutes: 5, scope: { root } });
      expect(res.status, root).toBe(400);
      expect(res.body.error.code, root).toBe('INVALID_SCOPE');
    }
  });

  it('reads /s/a and /s/a/x on every read route', async () => {
    const { who } = await holderOf('/ensembles/it/znodes/s/a', { root: '/s/a' });
    const node = await api('GET', '/api/ensembles/it/znodes/s/a/x', who);
    expect(node.status).toBe(200);
    expect(node.body.data.value).toBe('inside');
    expect((await api('GET', '/api/ensembles/it/znodes/s/a', who)).body.children.names).toEqual(['x']);
    for (const route of ['stat', 'acl', 'subtree', 'export']) {
      expect((await api('GET', `/api/ensembles/it/${route}/s/a`, who)).status, route).toBe(200);
      expect((await api('GET', `/api/ensembles/it/${route}/s/a/x`, who)).status, route).toBe(200);
    }
    // The ensembles list names the link's ensemble, and nothing else.
    expect((await api('GET', '/api/ensembles', who)).body.ensembles.map((e: { name: string }) => e.name)).toEqual(['it']);
    expect((await api('GET', '/api/ensembles', admin)).body.ensembles.map((e: { name: string }) => e.name)).toEqual(['it', 'twin']);
  });

  it('gets OUT_OF_SCOPE for the parent, siblings, prefixes, the ensemble views, jobs and other ensembles', async () => {
    const { who } = await holderOf('/ensembles/it/znodes/s/a', { root: '/s/a' });
    const refused = [
      '/api/ensembles/it/znodes/s',
      '/api/ensembles/it/znodes/s/ab',
      '/api/ensembles/it/znodes/s/b',
      '/api/ensembles/it/znodes',
      '/api/ensembles/it/znodes/s/a/..%2Fb',
      '/api/ensembles/it/ZNODES/s/b',
      '/api/ensembles/it/stat/s/b',
      '/api/ensembles/it/acl/s',
      '/api/ensembles/it/subtree/s',
      '/api/ensembles/it/export/s',
      '/api/ensembles/it/sessions',
      '/api/ensembles/it/members',
      '/api/ensembles/it/watches',
      '/api/ensembles/it/sizing',
      '/api/ensembles/twin/znodes/s/a',
      '/api/ensembles/twin',
      '/api/jobs',
    ];
    for (const path of refused) expectOutOfScope(await api('GET', path, who), path);
    // Refused before the query is even read: a bad query still answers OUT_OF_SCOPE, not 400.
    expectOutOfScope(await api('GET', '/api/ensembles/it/sessions?refresh=nonsense', who), 'sessions?refresh=nonsense');
    // The same requests by an admin are answered (so the refusals above are the scope's doing).
    expect((await api('GET', '/api/ensembles/it/znodes/s/b', admin)).status).toBe(200);
    expect((await api('GET', '/api/ensembles/it/export/s', admin)).status).toBe(200);
  });

  it('on the socket: subscribes within /s/a, gets outOfScope for /s/b, /s and the ensemble health, hears only its ensemble', async () => {
    const { who } = await holderOf('/ensembles/it/znodes/s/a', { root: '/s/a' });
    const b = await open(who);
    const welcome = b.messages.find((m) => m.type === 'welcome');
    expect(welcome?.type === 'welcome' && welcome.ensembles.map((e) => e.name)).toEqual(['it']);
    b.subscribe('znode', 'it', { path: '/s/a/x' }, 'in');
    await b.next((m) => m.type === 'ack' && m.id === 'in');
    await waitFor(
      () => {
        const z = b.lastZnode('it', '/s/a/x');
        return z?.node.exists && z.node.data.value === 'inside';
      },
      { what: 'the value inside the scope' },
    );
    // The console's session with its own ensemble is part of any page of it.
    await b.subscribed('consoleSession', 'it', {});
    const refusals: [Record<string, unknown>, string][] = [
      [{ type: 'subscribe', topic: 'znode', ensemble: 'it', params: { path: '/s/b' }, id: 'sib' }, '/s/b'],
      [{ type: 'subscribe', topic: 'znode', ensemble: 'it', params: { path: '/s/ab' }, id: 'pre' }, '/s/ab'],
      [{ type: 'subscribe', topic: 'znode', ensemble: 'it', params: { path: '/s' }, id: 'up' }, '/s'],
      [{ type: 'subscribe', topic: 'znode', ensemble: 'twin', params: { path: '/s/a' }, id: 'twin' }, 'twin'],
      [{ type: 'subscribe', topic: 'consoleSession', ensemble: 'twin', params: {}, id: 'twin-session' }, 'twin session'],
      [{ type: 'subscribe', topic: 'ensembleHealth', ensemble: 'it', params: {}, id: 'health' }, 'health'],
    ];
    for (const [message, what] of refusals) {
      b.send(message);
      const reply = await b.next((m) => 'id' in m && m.id === message.id);
      expect(reply, what).toMatchObject({ type: 'error', code: 'outOfScope', message: expect.stringContaining('/s/a and below') });
    }
    expect(b.lastZnode('it', '/s/b')).toBeUndefined();
    expect(b.events.every((e) => e.ensemble === 'it')).toBe(true);
    expect(b.topicEvents('ensembleHealth')).toEqual([]);
    // The socket still works after the refusals.
    b.send({ type: 'ping', id: 'still' });
    await b.next((m) => m.type === 'pong' && m.id === 'still');
  });
});

describe("what each audience sees of the console's own session (sessionView.ts)", () => {
  it('a link without the ensemble views: no member address, session id or identity, over HTTP, in the welcome and on consoleSession; a viewer: no identity', async () => {
    const live = keeper.ensembles.get('it').gateway.session;
    // What the admin sees, so the absences below are the masks' doing.
    const adminView = (await api('GET', '/api/ensembles/it', admin)).body;
    expect(adminView.session.sessionId).toBe(live.sessionId);
    expect(adminView.session.connection.identity).not.toBeNull();
    const memberAddresses = ensemble.members.map((m) => `${m.host}:${m.clientPort}`);
    const secrets = [...memberAddresses, live.sessionId!, ...adminView.session.connection.identity.map((i: { id: string }) => i.id)];
    const leaks = (payload: unknown) => secrets.filter((s) => JSON.stringify(payload).includes(s));

    const { who } = await holderOf('/ensembles/it/znodes/s/a', { root: '/s/a' });
    const list = await api('GET', '/api/ensembles', who);
    const one = await api('GET', '/api/ensembles/it', who);
    expect(list.status).toBe(200);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: 'it', connectionString: '', session: { state: live.state, sessionId: null, member: null } });
    const b = await open(who);
    const welcome = b.messages.find((m) => m.type === 'welcome');
    await b.subscribed('consoleSession', 'it', {});
    await waitFor(() => b.topicEvents('consoleSession', 'it').length > 0, { what: 'the console session on the socket' });
    for (const [what, payload] of [
      ['GET /api/ensembles', list.body],
      ['GET /api/ensembles/it', one.body],
      ['welcome', welcome],
      ['consoleSession', b.topicEvents('consoleSession', 'it')],
    ] as const) {
      expect(leaks(payload), what).toEqual([]);
    }

    // A viewer reads the members anyway (the ensemble views), but not who Keeper is to ZooKeeper.
    const viewerView = (await api('GET', '/api/ensembles/it', { token: VIEWER })).body;
    expect(viewerView.connectionString).toBe(adminView.connectionString);
    expect(viewerView.session.connection).toMatchObject({ identity: null, identityNote: null });
  });

  it('a link with the ensemble views reads the resizes as it may subscribe to them; one without is refused both', async () => {
    const withViews = await holderOf('/ensembles/it/znodes/s/a', { root: '/s/a', ensembleViews: true });
    // Once the resizes are read (they are kept by the ensemble's identity: 503 NOT_READY until it is
    // known, a state that holds once left), the link reads them as the admin does, never OUT_OF_SCOPE.
    // Compared after that moment, not across it: an admin's 503 then a holder's 200 was no refusal.
    const asAdmin = await waitFor(
      async () => {
        const answer = await api('GET', '/api/ensembles/it/reconfig', admin);
        return answer.status === 200 && answer;
      },
      { what: "the ensemble's resizes read", timeoutMs: 30_000, intervalMs: 200 },
    );
    const asHolder = await api('GET', '/api/ensembles/it/reconfig', withViews.who);
    expect(asHolder.status, JSON.stringify(asHolder.body)).toBe(200);
    expect(asHolder.body.reconfigs.length).toBe(asAdmin.body.reconfigs.length);
    const b = await open(withViews.who);
    await b.subscribed('reconfig', 'it', {});
    const without = await holderOf('/ensembles/it/znodes/s/a', { root: '/s/a' });
    expectOutOfScope(await api('GET', '/api/ensembles/it/reconfig', without.who), 'the resize view');
  });
});

describe('a link that allows the ensemble views', () => {
  it('reads members and sessions, and the ensemble health on the socket, but still not outside its subtree', async () => {
    const { who, link } = await holderOf('/ensembles/it/znodes/s/a', { root: '/s/a', ensembleViews: true });
    expect(link.scope).toEqual({ ensemble: 'it', root: '/s/a', ensembleViews: true });
    const members = await api('GET', '/api/ensembles/it/members', who);
    expect(members.status).toBe(200);
    expect(members.body.members.length).toBeGreaterThan(0);
    const sessions = await api('GET', '/api/ensembles/it/sessions', who);
    expect(sessions.status, JSON.stringify(sessions.body)).toBe(200);
    expectOutOfScope(await api('GET', '/api/ensembles/it/znodes/s/b', who), '/s/b');
    const b = await open(who);
    b.subscribe('ensembleHealth', 'it', {}, 'health');
    await b.next((m) => m.type === 'ack' && m.id === 'health');
    await waitFor(() => b.topicEvents('ensembleHealth', 'it').some((e) => e.event.kind === 'history'), { what: 'the health history' });
  });

  it('is what a link to an ensemble page gets without asking', async () => {
    const { who, link } = await holderOf('/ensembles/it/members');
    expect(link.scope).toEqual({ ensemble: 'it', root: '/', ensembleViews: true });
    expect((await api('GET', '/api/ensembles/it/members', who)).status).toBe(200);
  });
});
