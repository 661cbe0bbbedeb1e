/**
 * Access control end to end, on a real ensemble: admins write (over HTTP, the one write path),
 * viewers and share-link holders read, anonymous callers get nothing; on the socket, viewers are
 * refused the admin topic. kazoo, a client that shares none of our code, is the witness that a
 * refused mutation changed nothing.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_ACCESS_ENDED, meAnswerSchema, type AuditEntry } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { KeeperOptions } from '../src/config/types.js';
import { readAuditFile } from '../src/audit/auditLog.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { kazoo, kazooGet, kazooSnapshot, type Snapshot } from '../../scripts/lib/kazoo/index.js';
import { call, cookieFrom, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-tests-0123456789';
const VIEWER = 'viewer-token-for-tests-0123456789';
const ROOT = '/acc';

let ensemble: SharedEnsemble;
let keeper: RunningKeeper;
let stateDir: string;
let options: KeeperOptions;
const browsers: TestBrowser[] = [];

const api = (method: string, path: string, who: Who = {}, body?: unknown, opts?: { raw?: boolean; contentType?: string }) =>
  call(keeper.url, method, path, who, body, opts);
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };

async function open(headers: Record<string, string>): Promise<TestBrowser> {
  const b = await TestBrowser.open(keeper.url, { headers });
  browsers.push(b);
  return b;
}

async function signIn(username: string, password: string): Promise<{ cookie: string; csrf: string }> {
  const res = await api('POST', '/api/login', {}, { username, password });
  expect(res.status).toBe(200);
  return { cookie: cookieFrom(res), csrf: res.body.csrfToken };
}

async function shareSession(path: string): Promise<{ cookie: string; id: string; csrf: string }> {
  const created = await api('POST', '/api/share-links', admin, { path, expiresInMinutes: 30 });
  expect(created.status).toBe(201);
  const opened = await fetch(created.body.url, { redirect: 'manual' });
  expect(opened.status).toBe(302);
  expect(opened.headers.get('location')).toBe(path);
  const cookie = /keeper_session=[^;]*/.exec(opened.headers.get('set-cookie') ?? '')![0];
  const me = await api('GET', '/api/me', { cookie });
  return { cookie, id: created.body.id, csrf: me.body.csrfToken };
}

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** Every mutation the API offers, aimed at the test subtree, as HTTP requests. */
function httpMutations(base: string): [string, string, unknown?][] {
  const doc = {
    format: 'keeper-export',
    version: 1,
    ensemble: 'it',
    root: '/x',
    exportedAt: 1,
    nodes: [
      {
        rel: '',
        data: 'eA==',
        encoding: 'utf8',
        acl: [],
        stat: { version: 0, aversion: 0, cversion: 0, ctime: 0, mtime: 0, dataLength: 1, numChildren: 0, ephemeral: false },
      },
    ],
  };
  return [
    ['POST', `/api/ensembles/it/znodes${base}/new`, { data: 'x' }],
    ['PUT', `/api/ensembles/it/znodes${base}/target`, { data: 'changed', version: 0 }],
    ['DELETE', `/api/ensembles/it/znodes${base}/target?version=0`],
    ['DELETE', `/api/ensembles/it/znodes${base}?version=0&recursive=true`],
    ['PUT', `/api/ensembles/it/acl${base}/target`, { acl: [{ scheme: 'world', id: 'anyone', perms: 'r' }], version: 0 }],
    ['POST', `/api/ensembles/it/import${base}/imported`, doc],
    ['POST', `/api/ensembles/it/import${base}/imported?dryRun=true`, doc],
    ['DELETE', '/api/jobs/some-job'],
  ];
}

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-access-'));
  options = {
    host: '127.0.0.1',
    port: 0,
    ensembles: [{ name: 'it', connectionString: ensemble.connectionString }],
    auth: {
      stateDir,
      adminToken: ADMIN,
      viewerToken: VIEWER,
      users: [
        { name: 'ann', passwordHash: bcrypt.hashSync('ann-password', 4), role: 'admin' },
        { name: 'vic', passwordHash: bcrypt.hashSync('vic-password', 4), role: 'viewer' },
      ],
    },
  };
  keeper = await startKeeper(options, { logger: testLogger, rateLimits: { api: 100_000, loginFailures: 1_000 } });
  await kazoo(ensemble.connectionString, [
    { op: 'create', path: `${ROOT}/guarded/target`, data: 'original' },
    { op: 'create', path: `${ROOT}/guarded/other`, data: 'other' },
  ]);
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
}, 120_000);

afterAll(async () => {
  for (const b of browsers) b.close();
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('identity', () => {
  it('answers 401 to anonymous API calls, but health is public', async () => {
    for (const path of ['/api/ensembles', '/api/me', '/api/ensembles/it/znodes/acc', '/api/audit', '/api/share-links', '/api/jobs']) {
      const res = await api('GET', path);
      expect(res.status, path).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    }
    expect((await api('GET', '/api/health')).status).toBe(200);
    expect((await api('GET', '/api/me', { token: 'not-a-valid-token-at-all' })).status).toBe(401);
  });

  it('knows bearer, password and URL-token identities', async () => {
    const rights = (role: 'admin' | 'viewer') => ({ role, write: [], grantedBy: [] });
    expect(meAnswerSchema.parse((await api('GET', '/api/me', admin)).body)).toEqual({
      name: 'admin-token',
      role: 'admin',
      via: 'bearer',
      rights: rights('admin'),
    });
    expect((await api('GET', '/api/me', viewer)).body).toEqual({ name: 'viewer-token', role: 'viewer', via: 'bearer', rights: rights('viewer') });

    const { cookie, csrf } = await signIn('vic', 'vic-password');
    const me = await api('GET', '/api/me', { cookie });
    expect(me.body).toEqual({
      name: 'vic',
      role: 'viewer',
      via: 'cookie',
      rights: rights('viewer'),
      signedInWith: 'password',
      csrfToken: csrf,
      expiresAt: expect.any(Number),
    });

    const wrong = await api('POST', '/api/login', {}, { username: 'vic', password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect((await api('POST', '/api/login', {}, { username: 'nobody', password: 'nope' })).status).toBe(401);
    expect((await api('POST', '/api/login', {}, { token: VIEWER })).body).toMatchObject({ name: 'viewer-token', role: 'viewer' });
  });

  it('signs a browser in from ?token= and redirects to the same URL without it', async () => {
    const res = await fetch(`${keeper.url}/ensembles/it/znodes/acc?token=${ADMIN}&tab=data`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/ensembles/it/znodes/acc?tab=data');
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toMatch(/Secure/); // plain http here
    const cookie = /keeper_session=[^;]*/.exec(setCookie)![0];
    expect((await api('GET', '/api/me', { cookie })).body).toMatchObject({ name: 'admin-token', role: 'admin', via: 'cookie' });

    const bad = await fetch(`${keeper.url}/?token=wrong-token-0000000000`, { redirect: 'manual' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();
    // No open redirect through a protocol-relative path.
    const sneaky = await fetch(`${keeper.url}//evil.example/?token=${ADMIN}`, { redirect: 'manual' });
    expect(sneaky.headers.get('location')).toBe('/');
  });

  it('signs out: the session and its sockets end', async () => {
    const { cookie, csrf } = await signIn('ann', 'ann-password');
    const b = await open({ cookie });
    expect((await api('POST', '/api/logout', { cookie, csrf })).status).toBe(204);
    await waitFor(() => b.closeCode === CLOSE_ACCESS_ENDED, { what: 'socket closed on sign-out' });
    expect((await api('GET', '/api/me', { cookie })).status).toBe(401);
  });

  it('sends security headers with a CSP', async () => {
    const res = await fetch(`${keeper.url}/api/health`);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('never shows ZooKeeper credentials or tokens in API answers', async () => {
    const list = await api('GET', '/api/ensembles', admin);
    expect(Object.keys(list.body.ensembles[0]).sort()).toEqual(['connectionString', 'name', 'session']);
    const text = JSON.stringify([list.body, (await api('GET', '/api/me', admin)).body, (await api('GET', '/api/share-links', admin)).body]);
    expect(text).not.toContain(ADMIN);
    expect(text).not.toContain(VIEWER);
  });
});

describe('viewers, share-link holders and anonymous callers change nothing', () => {
  let before: Snapshot;

  beforeAll(async () => {
    before = await kazooSnapshot(ensemble.connectionString, `${ROOT}/guarded`);
    expect(Object.keys(before).length).toBe(3);
  });

  it('refuses every HTTP mutation: 403 for viewers and share links, 401 for anonymous', async () => {
    const vic = await signIn('vic', 'vic-password');
    const share = await shareSession(`/ensembles/it/znodes${ROOT}/guarded`);
    const callers: [string, Who, number][] = [
      ['viewer bearer', viewer, 403],
      ['viewer cookie', { cookie: vic.cookie, csrf: vic.csrf }, 403],
      ['share link', { cookie: share.cookie, csrf: share.csrf }, 403],
      ['anonymous', {}, 401],
    ];
    for (const [label, who, status] of callers) {
      for (const [method, path, body] of httpMutations(`${ROOT}/guarded`)) {
        const res = await api(method, path, who, body);
        expect(res.status, `${label} ${method} ${path}`).toBe(status);
        expect(res.body.error.code, `${label} ${method} ${path}`).toBe(status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN');
      }
    }
    // A share link also refuses share-link management and the audit trail.
    expect((await api('POST', '/api/share-links', { cookie: share.cookie, csrf: share.csrf }, { path: '/', expiresInMinutes: 5 })).status).toBe(403);
    expect((await api('GET', '/api/audit', viewer)).status).toBe(403);
  });

  it('refuses the admin topic (jobs) to viewers and share links with `forbidden`, before reading what they sent, and anonymous sockets cannot even open', async () => {
    const share = await shareSession(`/ensembles/it/znodes${ROOT}/guarded`);
    const vic = await signIn('vic', 'vic-password');
    const identities: Record<string, string>[] = [{ authorization: `Bearer ${VIEWER}` }, { cookie: share.cookie }, { cookie: vic.cookie }];
    for (const headers of identities) {
      const b = await open(headers);
      // Parameters jobs does not take, and an ensemble that does not exist: the role is checked
      // first, so neither is even looked at (else these would be invalidParams and unknownEnsemble).
      b.send({ type: 'subscribe', topic: 'jobs', ensemble: 'it', params: { path: 'not-a-path', junk: 'x'.repeat(1_000) }, id: 'jobs' });
      b.send({ type: 'subscribe', topic: 'jobs', ensemble: 'nope', params: 42, id: 'jobs-elsewhere' });
      for (const id of ['jobs', 'jobs-elsewhere']) {
        const reply = await b.next((m) => 'id' in m && m.id === id);
        expect(reply, `${JSON.stringify(headers)} ${id}`).toMatchObject({
          type: 'error',
          code: 'forbidden',
          message: expect.stringMatching(/only admins may follow jobs/),
        });
      }
      // Reads still work on the same socket.
      await b.subscribed('znode', 'it', { path: `${ROOT}/guarded/target` });
      await waitFor(() => b.lastZnode('it', `${ROOT}/guarded/target`)?.node.exists, { what: 'the znode read' });
      expect(b.topicEvents('jobs')).toEqual([]);
      b.close();
    }
    await expect(TestBrowser.open(keeper.url)).rejects.toMatchObject({ status: 403 });
    await expect(TestBrowser.open(keeper.url, { headers: { authorization: 'Bearer wrong-token-000000000' } })).rejects.toMatchObject({ status: 403 });
  });

  it('left the znodes exactly as they were (kazoo)', async () => {
    expect(await kazooSnapshot(ensemble.connectionString, `${ROOT}/guarded`)).toEqual(before);
  });

  it('recorded the refusals in the audit trail', async () => {
    const refused = readAuditFile(stateDir).filter((e) => e.outcome === 'refused' && e.actor.role === 'viewer');
    expect(refused.some((e) => e.action === 'setData' && e.path === `${ROOT}/guarded/target` && e.actor.name === 'viewer-token')).toBe(true);
    expect(refused.some((e) => e.action === 'setData' && e.actor.via === 'share')).toBe(true);
    expect(refused.some((e) => e.action === 'create' && e.actor.via === 'cookie' && e.actor.name === 'vic')).toBe(true);
  });
});

describe('the socket gate', () => {
  it('refuses a foreign Origin before the handshake, even with a valid identity', async () => {
    await expect(TestBrowser.open(keeper.url, { headers: { authorization: `Bearer ${ADMIN}`, origin: 'https://evil.example' } })).rejects.toMatchObject({
      status: 403,
    });
    await expect(TestBrowser.open(keeper.url, { headers: { authorization: `Bearer ${ADMIN}`, origin: 'null' } })).rejects.toMatchObject({ status: 403 });
    const host = new URL(keeper.url).host;
    const same = await open({ authorization: `Bearer ${ADMIN}`, origin: `http://${host}` });
    expect(same.messages.some((m) => m.type === 'welcome')).toBe(true);
  });
});

describe('CSRF', () => {
  it('refuses a cookie-authenticated write without the token, accepts it with the token', async () => {
    await kazoo(ensemble.connectionString, [{ op: 'create', path: `${ROOT}/csrf`, data: 'v0' }]);
    const { cookie, csrf } = await signIn('ann', 'ann-password');
    const body = { data: 'v1', version: 0 };
    const without = await api('PUT', `/api/ensembles/it/znodes${ROOT}/csrf`, { cookie }, body);
    expect(without.status).toBe(403);
    expect(without.body.error.code).toBe('CSRF');
    const wrong = await api('PUT', `/api/ensembles/it/znodes${ROOT}/csrf`, { cookie, csrf: 'x'.repeat(32) }, body);
    expect(wrong.status).toBe(403);
    expect(await kazooGet(ensemble.connectionString, `${ROOT}/csrf`)).toMatchObject({ data: 'v0', version: 0 });
    const withToken = await api('PUT', `/api/ensembles/it/znodes${ROOT}/csrf`, { cookie, csrf }, body);
    expect(withToken.status).toBe(200);
    expect(await kazooGet(ensemble.connectionString, `${ROOT}/csrf`)).toMatchObject({ data: 'v1', version: 1 });
    // Bearer requests carry no cookie: exempt.
    expect((await api('PUT', `/api/ensembles/it/znodes${ROOT}/csrf`, admin, { data: 'v2', version: 1 })).status).toBe(200);
  });
});

describe('admin operations and their audit trail', () => {
  it('creates, sets and deletes with before/after fingerprints in the audit trail', async () => {
    const path = `${ROOT}/audited`;
    const created = await api('POST', `/api/ensembles/it/znodes${path}`, admin, { data: 'first' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ path, stat: { version: 0, dataLength: 5 } });
    const set = await api('PUT', `/api/ensembles/it/znodes${path}`, admin, { data: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64', version: 0 });
    expect(set.status).toBe(200);
    expect(set.body.stat.version).toBe(1);
    const gone = await api('DELETE', `/api/ensembles/it/znodes${path}?version=1`, admin);
    expect(gone.status).toBe(200);
    expect(await kazooGet(ensemble.connectionString, path)).toBeNull();

    const entries = (await api('GET', '/api/audit?limit=50', admin)).body.entries as AuditEntry[];
    const mine = entries.filter((e) => e.path === path).reverse();
    expect(mine.map((e) => [e.action, e.outcome])).toEqual([
      ['create', 'ok'],
      ['setData', 'ok'],
      ['delete', 'ok'],
    ]);
    expect(mine[0]!.after).toEqual({ version: 0, size: 5, sha256: sha('first') });
    expect(mine[1]!.before).toEqual({ version: 0, size: 5, sha256: sha('first') });
    expect(mine[1]!.after).toEqual({ version: 1, size: 3, sha256: sha(Buffer.from([0, 1, 2])) });
    expect(mine[2]!.before).toEqual({ version: 1, size: 3, sha256: sha(Buffer.from([0, 1, 2])) });
    expect(mine[2]!.after).toBeNull();
    for (const e of mine) expect(e.actor).toEqual({ name: 'admin-token', role: 'admin', via: 'bearer' });
    // Newest first, paged with `before`.
    expect(entries[0]!.seq).toBeGreaterThan(entries[1]!.seq);
    const page = (await api('GET', `/api/audit?limit=2&before=${entries[0]!.seq}`, admin)).body;
    expect(page.entries.map((e: AuditEntry) => e.seq)).toEqual([entries[1]!.seq, entries[2]!.seq]);
  });

  it('records sign-ins, successful and failed, without secrets', async () => {
    await signIn('ann', 'ann-password');
    await api('POST', '/api/login', {}, { username: 'ann', password: 'wrong-password' });
    const all = readAuditFile(stateDir);
    const logins = all.filter((e) => e.action === 'login');
    expect(logins.some((e) => e.outcome === 'ok' && e.actor.name === 'ann')).toBe(true);
    expect(logins.some((e) => e.outcome === 'failed' && e.actor.name === 'ann')).toBe(true);
    const text = JSON.stringify(all);
    for (const secret of ['ann-password', 'wrong-password', 'vic-password', ADMIN, VIEWER]) expect(text).not.toContain(secret);
    expect(statSync(join(stateDir, 'audit.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('answers a stale version with 409 and the current value, overwriting nothing', async () => {
    const path = `${ROOT}/conflict`;
    await kazoo(ensemble.connectionString, [{ op: 'create', path, data: 'mine' }]);
    expect((await api('PUT', `/api/ensembles/it/znodes${path}`, admin, { data: 'theirs', version: 0 })).status).toBe(200);
    const stale = await api('PUT', `/api/ensembles/it/znodes${path}`, admin, { data: 'stale write', version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('BAD_VERSION');
    expect(stale.body.current).toMatchObject({ stat: { version: 1 }, data: { encoding: 'utf8', value: 'theirs' } });
    const staleDelete = await api('DELETE', `/api/ensembles/it/znodes${path}?version=0`, admin);
    expect(staleDelete.status).toBe(409);
    expect(await kazooGet(ensemble.connectionString, path)).toMatchObject({ data: 'theirs', version: 1 });
  });

  it.each([
    ['malformed JSON', 'PUT', '/znodes/acc/conflict', '{"data": "x", "version": ', 400, 'MALFORMED_JSON'],
    ['missing version', 'PUT', '/znodes/acc/conflict', '{"data": "x"}', 400, 'INVALID_BODY'],
    ['bad base64', 'PUT', '/znodes/acc/conflict', '{"data": "!!!", "encoding": "base64", "version": 1}', 400, 'INVALID_DATA'],
    ['invalid path', 'POST', '/znodes/acc//x', '{}', 400, 'INVALID_PATH'],
    ['missing node', 'PUT', '/znodes/acc/missing', '{"data": "x", "version": 0}', 404, 'NO_NODE'],
    ['missing parent', 'POST', '/znodes/acc/no/parent', '{}', 404, 'NO_NODE'],
    ['existing node', 'POST', '/znodes/acc/conflict', '{}', 409, 'NODE_EXISTS'],
    ['protected path', 'DELETE', '/znodes/zookeeper?version=0', undefined, 400, 'PROTECTED_PATH'],
    ['delete without version', 'DELETE', '/znodes/acc/conflict', undefined, 400, 'INVALID_QUERY'],
    ['unknown ensemble', 'PUT', '/znodes/acc/conflict'.replace('/znodes', '/znodes'), '{"data": "x", "version": 0}', 404, 'UNKNOWN_ENSEMBLE'],
  ])('%s: %s %s', async (label, method, route, raw, status, code) => {
    const ens = label === 'unknown ensemble' ? 'nope' : 'it';
    const res = await api(method, `/api/ensembles/${ens}${route}`, admin, raw, { raw: true });
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  });

  it('refuses data over 1,048,576 bytes with 400, and accepts a large value under it', async () => {
    const tooBig = Buffer.alloc(1_048_577, 7).toString('base64');
    const res = await api('POST', `/api/ensembles/it/znodes${ROOT}/big`, admin, { data: tooBig, encoding: 'base64' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('DATA_TOO_LARGE');
    const fine = await api('POST', `/api/ensembles/it/znodes${ROOT}/big`, admin, { data: 'x'.repeat(1_000_000) });
    expect(fine.status).toBe(201);
    expect(fine.body.stat.dataLength).toBe(1_000_000);
  });

  it('creates ephemeral nodes with a warning, and sequential ones with their real name', async () => {
    const eph = await api('POST', `/api/ensembles/it/znodes${ROOT}/eph`, admin, { mode: 'ephemeral' });
    expect(eph.status).toBe(201);
    expect(eph.body.warning).toMatch(/console's own ZooKeeper session/);
    expect(eph.body.stat.ephemeralOwner).not.toBe('0x0');
    const seq = await api('POST', `/api/ensembles/it/znodes${ROOT}/seq-`, admin, { mode: 'persistent_sequential', data: 's' });
    expect(seq.body.path).toMatch(/^\/acc\/seq-\d{10}$/);
  });

  it('reads and writes ACLs with letters or bits, version-checked', async () => {
    const path = `${ROOT}/acl`;
    await kazoo(ensemble.connectionString, [{ op: 'create', path }]);
    const got = await api('GET', `/api/ensembles/it/acl${path}`, viewer);
    expect(got.body.acl).toEqual([{ scheme: 'world', id: 'anyone', perms: 'cdrwa', permissions: 31 }]);
    const set = await api('PUT', `/api/ensembles/it/acl${path}`, admin, {
      acl: [
        { scheme: 'world', id: 'anyone', perms: 'r' },
        { scheme: 'ip', id: '127.0.0.1', permissions: 31 },
      ],
      version: 0,
    });
    expect(set.status).toBe(200);
    expect(set.body.stat.aversion).toBe(1);
    const snap = await kazooSnapshot(ensemble.connectionString, path);
    expect(snap[path]!.acl).toEqual(['ip:127.0.0.1:31', 'world:anyone:1']);
    const stale = await api('PUT', `/api/ensembles/it/acl${path}`, admin, { acl: [{ scheme: 'world', id: 'anyone', perms: 'cdrwa' }], version: 0 });
    expect(stale.status).toBe(409);
    const bad = await api('PUT', `/api/ensembles/it/acl${path}`, admin, { acl: [{ scheme: 'world', id: 'anyone', perms: 'rx' }], version: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_ACL');
    expect((await kazooSnapshot(ensemble.connectionString, path))[path]!.acl).toEqual(['ip:127.0.0.1:31', 'world:anyone:1']);
  });
});

describe('share links', () => {
  it('give a live, read-only view that ends at once on revocation', async () => {
    const path = `${ROOT}/shared`;
    await kazoo(ensemble.connectionString, [{ op: 'create', path, data: 'v0' }]);
    const share = await shareSession(`/ensembles/it/znodes${path}`);
    const me = (await api('GET', '/api/me', { cookie: share.cookie })).body;
    expect(me).toMatchObject({ role: 'viewer', via: 'share', shareLink: { id: share.id, path: `/ensembles/it/znodes${path}` } });

    const b = await open({ cookie: share.cookie });
    b.subscribe('znode', 'it', { path }, 'sub');
    await waitFor(
      () => {
        const z = b.lastZnode('it', path);
        return z?.node.exists && z.node.data.value === 'v0';
      },
      { what: 'initial value' },
    );
    // An admin edits; the share-link holder sees it live.
    expect((await api('PUT', `/api/ensembles/it/znodes${path}`, admin, { data: 'v1', version: 0 })).status).toBe(200);
    await waitFor(
      () => {
        const z = b.lastZnode('it', path);
        return z?.node.exists && z.node.data.value === 'v1';
      },
      { what: 'live update', timeoutMs: 3_000 },
    );

    const listed = (await api('GET', '/api/share-links', admin)).body.links.find((l: { id: string }) => l.id === share.id);
    expect(listed).toMatchObject({ id: share.id, createdBy: 'admin-token', activeSockets: 1 });
    // Neither the token nor its hash is ever listed.
    expect(Object.keys(listed).sort()).toEqual(['activeSockets', 'createdAt', 'createdBy', 'expiresAt', 'id', 'path', 'scope']);

    expect((await api('DELETE', `/api/share-links/${share.id}`, admin)).status).toBe(200);
    await waitFor(() => b.closeCode === CLOSE_ACCESS_ENDED, { what: 'socket closed on revocation', timeoutMs: 2_000 });
    expect((await api('GET', '/api/me', { cookie: share.cookie })).status).toBe(401);
    const audit = readAuditFile(stateDir).filter((e) => (e.details as { linkId?: string } | undefined)?.linkId === share.id);
    expect(audit.map((e) => e.action)).toEqual(['shareLink.create', 'shareLink.use', 'shareLink.revoke']);
  });

  it('survive a restart (hashed in the state dir), and revoked ones stay revoked', async () => {
    const created = await api('POST', '/api/share-links', admin, { path: '/ensembles/it/members', expiresInMinutes: 10 });
    const revoked = await api('POST', '/api/share-links', admin, { path: '/ensembles/it/members', expiresInMinutes: 10 });
    await api('DELETE', `/api/share-links/${revoked.body.id}`, admin);
    const token = created.body.url.split('/share/')[1];
    const file = JSON.stringify(readAuditFile(stateDir)) + (await import('node:fs')).readFileSync(join(stateDir, 'share-links.json'), 'utf8');
    expect(file).not.toContain(token);
    expect(statSync(join(stateDir, 'share-links.json')).mode & 0o777).toBe(0o600);

    await keeper.close();
    keeper = await startKeeper(options, { logger: testLogger, rateLimits: { api: 100_000, loginFailures: 1_000 } });
    const again = await fetch(created.body.url.replace(/^http:\/\/[^/]+/, keeper.url), { redirect: 'manual' });
    expect(again.status).toBe(302);
    const dead = await fetch(revoked.body.url.replace(/^http:\/\/[^/]+/, keeper.url), { redirect: 'manual' });
    expect(dead.status).toBe(410);
    const unknown = await fetch(`${keeper.url}/share/not-a-link`, { redirect: 'manual' });
    expect(unknown.status).toBe(404);
    // The audit trail goes on numbering after the restart.
    const seqs = readAuditFile(stateDir).map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
  });
});

describe('rate limits and binding', () => {
  it('throttles failed sign-ins', async () => {
    const strict = await startKeeper({ ...options, port: 0 }, { logger: testLogger, rateLimits: { loginFailures: 3 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(strict.url, 'POST', '/api/login', {}, { username: 'ann', password: 'bad' })).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await strict.close();
    }
  });

  it('refuses to listen beyond loopback without authentication', async () => {
    await expect(startKeeper({ host: '0.0.0.0', port: 0, ensembles: [] }, { logger: testLogger })).rejects.toThrow(/without authentication/);
  });
});
