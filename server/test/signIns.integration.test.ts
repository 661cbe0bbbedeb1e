/**
 * Sign-ins on a real ensemble (issue 22 item 5, issue 25 item 5):
 *  - they survive a Keeper restart, graceful or SIGKILL: the same cookie still reads, writes (its
 *    CSRF token unchanged; kazoo sees the znode) and opens the socket;
 *  - a session that had to end says why (a rotated token, a sign-out, an expiry);
 *  - wrong guesses from one address (or everyone behind a proxy) never refuse a correct credential,
 *    while the wrong ones stay limited and audited once.
 */
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { KeeperOptions } from '../src/config/types.js';
import { readAuditFile } from '../src/audit/auditLog.js';
import { PORT_OFFSETS, ensembleConfigOf, startTestEnsemble } from './support/testEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { call, cookieFrom } from './support/http.js';
import { kazooGet } from '../../scripts/lib/kazoo/index.js';
import { launchKeeper, type KeeperProcess } from '../../scripts/lib/keeperProcess.js';

const ADMIN = 'admin-token-for-sign-ins-0123456789';
const VIEWER = 'viewer-token-for-sign-ins-0123456789';
const ROOT = '/signins';

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let stateDir: string;
let options: KeeperOptions;
let keeper: RunningKeeper;
const cleanups: (() => Promise<void> | void)[] = [];

const start = (opts: KeeperOptions = options) => startKeeper(opts, { logger: testLogger, rateLimits: { api: 100_000 } });
const audit = (): AuditEntry[] => readAuditFile(stateDir);

async function passwordSignIn(url: string, username: string, password: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username, password }),
  });
  return res;
}

/** A raw request (fetch will not send X-Forwarded-For). */
function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function upgrade(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/ws`, {
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.authTests);
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-signins-'));
  options = {
    host: '127.0.0.1',
    port: 0,
    ensembles: [ensembleConfigOf(ensemble)],
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
  keeper = await start();
  await call(keeper.url, 'POST', `/api/ensembles/it/znodes${ROOT}`, { token: ADMIN }, { data: '' });
}, 120_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('sign-ins survive a Keeper restart', () => {
  it('keeps password, token, URL and share-link sign-ins through a restart: read, write with the same CSRF token, socket', async () => {
    const ann = await passwordSignIn(keeper.url, 'ann', 'ann-password');
    expect(ann.status).toBe(200);
    const annCookie = /keeper_session=[^;]*/.exec(ann.headers.get('set-cookie') ?? '')![0];
    const annCsrf = ((await ann.json()) as { csrfToken: string }).csrfToken;
    const tokenLogin = await call(keeper.url, 'POST', '/api/login', {}, { token: VIEWER });
    const viewerCookie = cookieFrom(tokenLogin);
    const urlLogin = await raw(keeper.url, 'GET', `/?token=${ADMIN}`, {});
    expect(urlLogin.status).toBe(302);
    const urlCookie = /keeper_session=[^;]*/.exec(String(urlLogin.headers['set-cookie']))![0];
    const link = await call(keeper.url, 'POST', '/api/share-links', { token: ADMIN }, { path: `/ensembles/it/znodes${ROOT}`, expiresInMinutes: 30 });
    const opened = await fetch(link.body.url, { redirect: 'manual' });
    const shareCookie = /keeper_session=[^;]*/.exec(opened.headers.get('set-cookie') ?? '')![0];
    // The state file holds no cookie.
    const file = join(stateDir, 'sessions.jsonl');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    for (const c of [annCookie, viewerCookie, urlCookie, shareCookie]) expect(text).not.toContain(c.split('=')[1]);

    await keeper.close();
    keeper = await start();

    const me = await call(keeper.url, 'GET', '/api/me', { cookie: annCookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'ann', role: 'admin', via: 'cookie', csrfToken: annCsrf });
    const created = await call(keeper.url, 'POST', `/api/ensembles/it/znodes${ROOT}/after-restart`, { cookie: annCookie, csrf: annCsrf }, { data: 'kept' });
    expect(created.status).toBe(201);
    expect((await kazooGet(ensemble.connectionString, `${ROOT}/after-restart`))?.data).toBe('kept');
    expect((await call(keeper.url, 'GET', '/api/me', { cookie: viewerCookie })).body).toMatchObject({ name: 'viewer-token', role: 'viewer' });
    expect((await call(keeper.url, 'GET', '/api/me', { cookie: urlCookie })).body).toMatchObject({ name: 'admin-token', role: 'admin' });
    expect((await call(keeper.url, 'GET', '/api/me', { cookie: shareCookie })).body).toMatchObject({ via: 'share' });
    const socket = await TestBrowser.open(keeper.url, { headers: { cookie: annCookie } });
    cleanups.push(() => socket.close());
  });

  it('ends, and says why, the sessions whose token was rotated, whose password was changed or that signed out', async () => {
    const viewer = cookieFrom(await call(keeper.url, 'POST', '/api/login', {}, { token: VIEWER }));
    const admin = cookieFrom(await call(keeper.url, 'POST', '/api/login', {}, { token: ADMIN }));
    const vic = await passwordSignIn(keeper.url, 'vic', 'vic-password');
    const vicCookie = /keeper_session=[^;]*/.exec(vic.headers.get('set-cookie') ?? '')![0];
    const leaving = await call(keeper.url, 'POST', '/api/login', {}, { token: ADMIN });
    const leavingCookie = cookieFrom(leaving);
    expect((await call(keeper.url, 'POST', '/api/logout', { cookie: leavingCookie, csrf: leaving.body.csrfToken })).status).toBe(204);

    await keeper.close();
    // The viewer token is rotated and vic's password changed while Keeper is down.
    const rotated: KeeperOptions = {
      ...options,
      auth: {
        ...options.auth!,
        viewerToken: 'a-new-viewer-token-0123456789abcdef',
        users: [options.auth!.users![0]!, { name: 'vic', passwordHash: bcrypt.hashSync('vic-new-password', 4), role: 'viewer' }],
      },
    };
    keeper = await start(rotated);
    try {
      expect((await call(keeper.url, 'GET', '/api/me', { cookie: admin })).status).toBe(200);
      const refused = await call(keeper.url, 'GET', '/api/me', { cookie: viewer });
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toMatch(/the viewer token was changed since this browser signed in/);
      // The sign-in page asks the same question without an identity, and shows the answer.
      const methods = await call(keeper.url, 'GET', '/api/sign-in-methods', { cookie: viewer });
      expect(methods.body.ended).toMatchObject({ reason: 'the viewer token was changed since this browser signed in' });
      expect((await call(keeper.url, 'GET', '/api/sign-in-methods', { cookie: vicCookie })).body.ended.reason).toBe('the password of vic was changed');
      expect((await call(keeper.url, 'GET', '/api/sign-in-methods', { cookie: leavingCookie })).body.ended.reason).toBe('signed out');
      expect((await call(keeper.url, 'GET', '/api/sign-in-methods', { cookie: 'keeper_session=never-issued' })).body.ended).toBeUndefined();
      expect((await call(keeper.url, 'GET', '/api/me', { cookie: 'keeper_session=never-issued' })).body.error.message).toMatch(/not known to Keeper/);
    } finally {
      await keeper.close();
      keeper = await start();
    }
  });

  it('keeps a sign-in through a SIGKILL of the Keeper process, and sends the audit trail to stdout when asked', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'keeper-signins-kill-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const configFile = join(dataDir, 'keeper.json');
    writeFileSync(configFile, JSON.stringify({ ensembles: [ensembleConfigOf(ensemble)], audit: { stdout: true } }));
    const args = ['--config', configFile, '--port', '0', '--data-dir', dataDir];
    const env = { KEEPER_ADMIN_TOKEN: ADMIN, KEEPER_WEB_DIST: join(dataDir, 'no-web') };
    let running: KeeperProcess = await launchKeeper(args, env);
    cleanups.push(() => running.stop('SIGKILL'));
    const login = await call(running.url, 'POST', '/api/login', {}, { token: ADMIN });
    expect(login.status).toBe(200);
    const cookie = cookieFrom(login);
    const csrf = login.body.csrfToken as string;
    // Killed the instant the sign-in was answered: nothing flushed on the way out.
    await running.stop('SIGKILL');
    running = await launchKeeper(args, env);
    const me = await call(running.url, 'GET', '/api/me', { cookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'admin-token', csrfToken: csrf });
    const created = await call(running.url, 'POST', `/api/ensembles/it/znodes${ROOT}/after-kill`, { cookie, csrf }, { data: 'after kill' });
    expect(created.status).toBe(201);
    expect((await kazooGet(ensemble.connectionString, `${ROOT}/after-kill`))?.data).toBe('after kill');

    // Item 5 of issue 20: each audit entry is also a JSON line on stdout, beside the logs.
    const lines = await waitFor(
      () => {
        const found = running
          .stdout()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => l.kind === 'audit');
        return found.some((l) => l.action === 'create') ? found : null;
      },
      { what: 'the create on stdout' },
    );
    const create = lines.find((l) => l.action === 'create')!;
    expect(create).toMatchObject({ action: 'create', outcome: 'ok', ensemble: 'it', path: `${ROOT}/after-kill`, actor: { name: 'admin-token' } });
    expect(typeof create.seq).toBe('number');
    // ...the same entry as in the file.
    const inFile = readAuditFile(dataDir).find((e) => e.seq === create.seq);
    expect(inFile).toMatchObject({ action: 'create', path: `${ROOT}/after-kill` });
    await running.stop('SIGTERM');
  }, 120_000);
});

describe('the guess limiter never refuses a correct credential', () => {
  it('lets the right admin token through every door after 10 wrong ones from the same address, while the wrong ones stay limited', async () => {
    // No trustProxy: every caller here is 127.0.0.1, as everyone behind a proxy would be.
    const before = audit().length;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await call(keeper.url, 'POST', '/api/login', {}, { token: `wrong-guess-${i}-000000000000` })).status);
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
    // Wrong ones on every other door are refused too, unverified...
    expect((await call(keeper.url, 'GET', '/api/me', { token: 'another-wrong-guess-0000000' })).status).toBe(429);
    expect(await upgrade(keeper.url, { authorization: 'Bearer another-wrong-guess-0000000' })).toBe(403);
    expect((await raw(keeper.url, 'GET', '/?token=another-wrong-guess-0000000', {})).status).toBe(429);

    // ...and the right one passes each of them.
    expect((await call(keeper.url, 'POST', '/api/login', {}, { token: ADMIN })).status).toBe(200);
    expect((await call(keeper.url, 'GET', '/api/me', { token: ADMIN })).status).toBe(200);
    expect((await call(keeper.url, 'GET', '/api/me', { token: VIEWER })).status).toBe(200);
    expect(await upgrade(keeper.url, { authorization: `Bearer ${ADMIN}` })).toBe(101);
    const url = await raw(keeper.url, 'GET', `/?token=${ADMIN}`, {});
    expect(url.status).toBe(302);
    expect(String(url.headers['set-cookie'])).toMatch(/keeper_session=/);
    const link = await call(keeper.url, 'POST', '/api/share-links', { token: ADMIN }, { path: `/ensembles/it/znodes${ROOT}`, expiresInMinutes: 5 });
    expect((await fetch(link.body.url, { redirect: 'manual' })).status).toBe(302);

    // The flood wrote 10 failures and one refusal, not a line per guess.
    const entries = audit()
      .slice(before)
      .filter((e) => e.action === 'login' && e.outcome !== 'ok');
    expect(entries.filter((e) => e.outcome === 'failed')).toHaveLength(10);
    expect(entries.filter((e) => e.outcome === 'refused' && e.error?.code === 'RATE_LIMITED')).toHaveLength(1);
  });

  it('keeps passwords limited from a new browser, but not from one where the user signed in before', async () => {
    const known = await passwordSignIn(keeper.url, 'vic', 'vic-password');
    expect(known.status).toBe(200);
    const device = /keeper_device=[^;]*/.exec(known.headers.get('set-cookie') ?? '')![0];
    expect(known.headers.get('set-cookie')).toMatch(/keeper_device=[^;]*; Path=\/api\/login; HttpOnly; SameSite=Strict/);
    for (let i = 0; i < 10; i++) expect((await passwordSignIn(keeper.url, 'vic', `guess-${i}`)).status).toBe(401);
    // A guessable password from an unknown browser is refused unverified past the limit...
    expect((await passwordSignIn(keeper.url, 'vic', 'vic-password')).status).toBe(429);
    // ...while vic's own browser signs in, and its typos count against it alone.
    expect((await passwordSignIn(keeper.url, 'vic', 'vic-password', { cookie: device })).status).toBe(200);
    expect((await passwordSignIn(keeper.url, 'vic', 'typo', { cookie: device })).status).toBe(401);
    // A device cookie of another user, or a forged one, gives no budget.
    expect((await passwordSignIn(keeper.url, 'ann', 'x', { cookie: device })).status).toBe(401);
    expect((await passwordSignIn(keeper.url, 'vic', 'vic-password', { cookie: `${device.slice(0, -3)}abc` })).status).toBe(429);
  });
});
