/**
 * Issue 10's security findings, each attacked as the finding did (bounded floods, 127.0.0.1 only):
 *  - authorization before validation and parsing (a viewer's DELETE without a version, a viewer's
 *    38.7 MB import answered before its body is sent);
 *  - the audit trail cannot fill the disk (300 refused DELETEs with 15 KB names);
 *  - login CSRF by top-level navigation (share link and ?token= into a signed-in browser);
 *  - token guessing over the socket and over HTTP (limited and audited);
 *  - malformed percent-encoding (400 JSON, no stack, no error-level log line);
 *  - behind a TLS proxy: Secure cookie and https share URL, per-identity rate limits, the
 *    sign-in limit per user name, the Host check;
 *  - `?version=` and `?version=0x0` are not versions.
 * Keeper trusts loopback as its proxy here, so each attack comes from its own X-Forwarded-For
 * address and no test's limit spills into another's. kazoo is the independent witness.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { createLogger } from '../src/logger.js';
import { AUDIT_FILE, readAuditFile } from '../src/audit/auditLog.js';
import { hashPassword } from '../src/auth/credentials.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { waitFor } from './support/waitFor.js';
import { kazoo, kazooGet } from '../../scripts/lib/kazoo/index.js';
import { call, cookieFrom, type ApiResponse, type Who } from './support/http.js';

const ADMIN = 'security-admin-token-0123456789';
const VIEWER = 'security-viewer-token-0123456789';
const ROOT = '/sec';
const API_LIMIT = 2_000;

let ensemble: SharedEnsemble;
let keeper: RunningKeeper;
let stateDir: string;
const logLines: string[] = [];
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };

const api = (method: string, path: string, who: Who = admin, body?: unknown) => call(keeper.url, method, path, who, body);
const audit = (): AuditEntry[] => readAuditFile(stateDir);

/** A raw request (headers fetch will not send: Host, X-Forwarded-*, Sec-Fetch-Site). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${keeper.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A socket upgrade; resolves with the HTTP status (101 when accepted). */
function upgrade(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${keeper.url}/ws`, {
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

async function inBatches<T>(count: number, width: number, run: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < count; start += width)
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, k) => run(start + k)))));
  return out;
}

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-security-'));
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      ensembles: [{ name: 'it', connectionString: ensemble.connectionString }],
      auth: {
        stateDir,
        adminToken: ADMIN,
        viewerToken: VIEWER,
        users: [
          { name: 'ann', passwordHash: await hashPassword('ann-password', 4), role: 'admin' },
          { name: 'bob', passwordHash: await hashPassword('bob-password', 4), role: 'viewer' },
        ],
      },
      trustProxy: ['loopback'],
      allowedHosts: ['keeper.example.com'],
    },
    {
      logger: createLogger('debug', { write: (line: string) => void logLines.push(line) }),
      // One window for the whole file: the limiter's windows are fixed, and one that ended in the
      // middle of the flood below let it through (2,250 requests over 29 s at load 23: no 429).
      rateLimits: { api: API_LIMIT, loginFailures: 10, loginFailuresPerAddress: 100, windowMs: 15 * 60_000 },
    },
  );
  await kazoo(ensemble.connectionString, [{ op: 'create', path: `${ROOT}/keep`, data: 'kept' }]);
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
}, 120_000);

afterAll(async () => {
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('authorization before validation and parsing', () => {
  it('answers a viewer DELETE without a version (or with a bad one) 403, not 400, and audits it', async () => {
    for (const query of ['', '?version=', '?version=0x0', '?version=abc&recursive=maybe']) {
      const res = await api('DELETE', `/api/ensembles/it/znodes${ROOT}/keep${query}`, viewer);
      expect(res.status, query).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect(audit().filter((e) => e.path === `${ROOT}/keep` && e.action === 'delete' && e.outcome === 'refused')).toHaveLength(4);
    expect(await kazooGet(ensemble.connectionString, `${ROOT}/keep`)).toMatchObject({ data: 'kept' });
  });

  it('refuses an admin `?version=` (empty) and `?version=0x0` with 400 instead of reading them as 0', async () => {
    for (const query of ['?version=', '?version=0x0', '?version=1e0', '?version=%200']) {
      const res = await api('DELETE', `/api/ensembles/it/znodes${ROOT}/keep${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('INVALID_QUERY');
    }
    expect(await kazooGet(ensemble.connectionString, `${ROOT}/keep`)).toMatchObject({ data: 'kept' });
  });

  it("answers a viewer's 38.7 MB import 403 before the body is sent, and never reads it", async () => {
    const total = 38_700_000;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const rssBefore = process.memoryUsage().rss;
    // A raw socket: the answer is read as soon as it comes, whatever happens to the rest of the upload.
    const outcome = await new Promise<{ status: number; sentWhenAnswered: number }>((resolve, reject) => {
      const { port } = keeper;
      let sent = 0;
      let answered = false;
      let reply = '';
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /api/ensembles/it/import${ROOT}?dryRun=true HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${VIEWER}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`,
        );
        // Slowly (a chunk every 5 ms): the answer must come long before the end of the body.
        const pump = () => {
          if (answered || socket.destroyed || sent >= total) return;
          const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
          sent += piece.length;
          socket.write(piece, () => setTimeout(pump, 5));
        };
        pump();
      });
      socket.setEncoding('latin1');
      socket.on('data', (text: string) => {
        reply += text;
        const status = /^HTTP\/1\.1 (\d{3})/.exec(reply);
        if (status && !answered) {
          answered = true;
          resolve({ status: Number(status[1]), sentWhenAnswered: sent });
          socket.destroy();
        }
      });
      // The server closing on an unread upload is expected (EPIPE, ECONNRESET) once it has answered.
      socket.on('error', (error) => (answered ? undefined : reject(error)));
      socket.on('close', () => (answered ? undefined : reject(new Error(`closed without an answer after ${sent} bytes: ${reply.slice(0, 200)}`))));
    });
    expect(outcome.status).toBe(403);
    expect(outcome.sentWhenAnswered).toBeLessThan(total / 4);
    // The server (this process) did not take the body in.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(30 * 1024 * 1024);
    const refused = audit().filter((e) => e.action === 'import' && e.outcome === 'refused');
    expect(refused.at(-1)).toMatchObject({ actor: { name: 'viewer-token', role: 'viewer' }, path: ROOT });
  });

  it('refuses an admin body over the route limit with 413 BODY_TOO_LARGE', async () => {
    const res = await call(keeper.url, 'PUT', `/api/ensembles/it/acl${ROOT}/keep`, admin, JSON.stringify({ acl: [], version: 0, pad: 'x'.repeat(70 * 1024) }), {
      raw: true,
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('BODY_TOO_LARGE');
  });
});

describe('the audit trail cannot fill the disk', () => {
  it('keeps 300 refused DELETEs with 15 KB names small, each entry marked truncated', async () => {
    const before = statSync(join(stateDir, AUDIT_FILE)).size;
    const name = 'n'.repeat(15_000);
    const statuses = await inBatches(300, 30, async (i) => (await api('DELETE', `/api/ensembles/it/znodes${ROOT}/${name}${i}?version=0`, viewer)).status);
    expect(statuses.every((s) => s === 403)).toBe(true);
    const grown = statSync(join(stateDir, AUDIT_FILE)).size - before;
    // Unbounded, this wrote 4.6 MB; a path is kept to 1,024 characters.
    expect(grown).toBeLessThan(300 * 1_600);
    const entries = audit().filter((e) => e.action === 'delete' && e.outcome === 'refused' && e.path?.startsWith(`${ROOT}/nnn`));
    expect(entries).toHaveLength(300);
    expect(entries.every((e) => e.truncated?.includes('path') && e.path!.length <= 1_025)).toBe(true);
  });

  it('caps the name of a failed sign-in', async () => {
    const res = await raw(
      'POST',
      '/api/login',
      { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.40' },
      JSON.stringify({ username: 'u'.repeat(200), password: 'x' }),
    );
    expect(res.status).toBe(401);
    const entry = audit()
      .filter((e) => e.action === 'login' && e.remoteAddress === '198.51.100.40')
      .at(-1);
    expect(entry?.actor.name.length).toBeLessThanOrEqual(65);
  });
});

describe('login CSRF by top-level navigation', () => {
  async function signedInAdmin(): Promise<{ session: string; hint: string; res: ApiResponse }> {
    const res = await call(keeper.url, 'POST', '/api/login', {}, { username: 'ann', password: 'ann-password' });
    expect(res.status).toBe(200);
    const cookies = res.headers.getSetCookie();
    const hint = cookies.map((c) => /keeper_signed_in=[^;]*/.exec(c)?.[0]).find(Boolean);
    expect(cookies.find((c) => c.startsWith('keeper_signed_in='))).toMatch(/SameSite=Lax/);
    return { session: cookieFrom(res), hint: hint!, res };
  }

  async function shareToken(): Promise<string> {
    const created = await api('POST', '/api/share-links', admin, { path: '/ensembles/it/znodes/sec/keep', expiresInMinutes: 30 });
    expect(created.status).toBe(201);
    return String(created.body.url).split('/share/')[1]!;
  }

  it('shows a confirmation page, not a new session, when another site navigates a signed-in browser to /share/<token>', async () => {
    const { session, hint } = await signedInAdmin();
    const token = await shareToken();
    // A cross-site top-level navigation carries the Lax hint but not the Strict session cookie.
    const visit = await raw('GET', `/share/${token}`, { cookie: hint, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' });
    expect(visit.status).toBe(200);
    expect(visit.headers['set-cookie']).toBeUndefined();
    expect(visit.text).toContain('You are signed in as <strong>ann</strong>');
    expect(visit.text).toContain(`action="/share/${token}"`);
    // Another site's page cannot press the button for the user.
    const forgeries: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      {},
    ];
    for (const from of forgeries) {
      const forged = await raw('POST', `/share/${token}`, { cookie: hint, ...from });
      expect(forged.status, JSON.stringify(from)).toBe(403);
      expect(forged.headers['set-cookie']).toBeUndefined();
    }
    expect((await call(keeper.url, 'GET', '/api/me', { cookie: session })).body.name).toBe('ann');
    // The user's own click (same origin): switched, and the old session is over.
    const confirmed = await raw('POST', `/share/${token}`, { cookie: `${session}; ${hint}`, origin: keeper.url });
    expect(confirmed.status).toBe(303);
    expect(String(confirmed.headers['set-cookie'])).toMatch(/keeper_session=/);
    expect((await call(keeper.url, 'GET', '/api/me', { cookie: session })).status).toBe(401);
  });

  it('does the same for /?token=<viewer token>, and records one sign-in per session, not per page load', async () => {
    const { session, hint } = await signedInAdmin();
    const visit = await raw('GET', `/?token=${VIEWER}`, { cookie: hint, 'sec-fetch-site': 'cross-site' });
    expect(visit.status).toBe(200);
    expect(visit.headers['set-cookie']).toBeUndefined();
    expect(visit.text).toContain('Continue as viewer-token');
    expect((await call(keeper.url, 'GET', '/api/me', { cookie: session })).body.name).toBe('ann');

    // A browser with no session is signed in at once; reloading the URL adds nothing.
    const logins = () => audit().filter((e) => e.action === 'login' && e.outcome === 'ok' && e.actor.name === 'viewer-token').length;
    const before = logins();
    const first = await raw('GET', `/explore?token=${VIEWER}`, { 'x-forwarded-for': '198.51.100.50' });
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe('/explore');
    const viewerSession = /keeper_session=[^;]*/.exec(String(first.headers['set-cookie']))![0];
    for (let i = 0; i < 5; i++) {
      const again = await raw('GET', `/explore?token=${VIEWER}`, { cookie: viewerSession });
      expect(again.status).toBe(302);
      expect(again.headers['set-cookie']).toBeUndefined();
    }
    expect(logins()).toBe(before + 1);
  });
});

describe('token guessing', () => {
  it('limits and audits 3,000 wrong-bearer socket upgrades', async () => {
    const from = '198.51.100.60';
    const before = audit().length;
    const statuses = await inBatches(3_000, 50, (i) => upgrade({ authorization: `Bearer guess-${i}-000000000000`, 'x-forwarded-for': from }));
    expect(statuses.every((s) => s === 403)).toBe(true);
    await waitFor(() => audit().length >= before + 11, { what: 'the refusals recorded' });
    const socketEntries = audit()
      .slice(before)
      .filter((e) => e.remoteAddress === from && e.details?.transport === 'socket');
    // Ten failures are recorded, then one refusal for the limit: not 3,000 lines.
    expect(socketEntries.filter((e) => e.outcome === 'failed')).toHaveLength(10);
    expect(socketEntries.filter((e) => e.outcome === 'refused' && e.error?.code === 'RATE_LIMITED')).toHaveLength(1);
    // Within the window the right token still passes from there (a correct credential always does), ...
    expect(await upgrade({ authorization: `Bearer ${ADMIN}`, 'x-forwarded-for': from })).toBe(101);
    // ... wrong ones stay refused unverified, and another address is not affected.
    expect(await upgrade({ authorization: 'Bearer guess-after-000000000000', 'x-forwarded-for': from })).toBe(403);
    expect(await upgrade({ authorization: `Bearer ${ADMIN}`, 'x-forwarded-for': '198.51.100.61' })).toBe(101);
  });

  it('limits and audits wrong bearer tokens over HTTP', async () => {
    const from = '198.51.100.70';
    const statuses = await inBatches(
      40,
      10,
      async () => (await raw('GET', '/api/me', { authorization: 'Bearer not-the-token-000000000', 'x-forwarded-for': from })).status,
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    const entries = audit().filter((e) => e.remoteAddress === from);
    expect(entries.filter((e) => e.outcome === 'failed' && e.details?.transport === 'http')).toHaveLength(10);
    expect(entries.filter((e) => e.outcome === 'refused')).toHaveLength(1);
  });

  it('keys the sign-in limit per user name: bad passwords for one name do not block another from the same address', async () => {
    const from = { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.80' };
    for (let i = 0; i < 10; i++) expect((await raw('POST', '/api/login', from, JSON.stringify({ username: 'ann', password: `wrong-${i}` }))).status).toBe(401);
    // ann is now limited from there (even with the right password), bob is not.
    expect((await raw('POST', '/api/login', from, JSON.stringify({ username: 'ann', password: 'ann-password' }))).status).toBe(429);
    expect((await raw('POST', '/api/login', from, JSON.stringify({ username: 'bob', password: 'bob-password' }))).status).toBe(200);
  });
});

describe('malformed percent-encoding', () => {
  it('answers /%zz and /api/...%zz 400 as JSON, with no stack and no error-level log line', async () => {
    for (const path of ['/%zz', '/api/ensembles/it/znodes/a%zz', '/share/%zz', '/api/ensembles/it/znodes/%E0%A4%A']) {
      const res = await raw('GET', path, {});
      expect(res.status, path).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(JSON.parse(res.text).error.code).toBe('MALFORMED_URL');
      expect(res.text).not.toMatch(/\bat \w|\/src\/|node_modules|\.ts:/);
    }
    const errors = logLines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);
    expect(errors.filter((l) => l.includes('%zz') || l.includes('URIError'))).toEqual([]);
  });
});

describe('behind a TLS proxy', () => {
  it('sets a Secure cookie and makes https share URLs from X-Forwarded-Proto', async () => {
    const login = await raw(
      'POST',
      '/api/login',
      { 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.90' },
      JSON.stringify({ token: ADMIN }),
    );
    expect(login.status).toBe(200);
    const cookies = login.headers['set-cookie'] ?? [];
    expect(cookies.find((c) => c.startsWith('keeper_session='))).toMatch(/; Secure/);
    expect(cookies.find((c) => c.startsWith('keeper_signed_in='))).toMatch(/; Secure/);
    const plain = await raw('POST', '/api/login', { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.90' }, JSON.stringify({ token: ADMIN }));
    expect(plain.headers['set-cookie']?.find((c) => c.startsWith('keeper_session='))).not.toMatch(/Secure/);
    const link = await raw(
      'POST',
      '/api/share-links',
      { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'keeper.example.com' },
      JSON.stringify({ path: '/ensembles/it/znodes/', expiresInMinutes: 5 }),
    );
    expect(JSON.parse(link.text).url).toMatch(/^https:\/\/keeper\.example\.com\/share\//);
  });

  it("keeps an admin served while one viewer's flood is over its limit", async () => {
    const statuses = await inBatches(API_LIMIT + 250, 25, async () => (await api('GET', '/api/me', viewer)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    // The window before recovery: the viewer is still limited, the admin is served.
    expect((await api('GET', '/api/me', viewer)).status).toBe(429);
    const adminNow = await api('GET', `/api/ensembles/it/znodes${ROOT}/keep`);
    expect(adminNow.status).toBe(200);
    expect(adminNow.body.data.value).toBe('kept');
  });

  it('refuses a Host this console is not served as (DNS rebinding), on pages, the API and the socket', async () => {
    for (const path of ['/', '/api/health', `/api/ensembles/it/znodes${ROOT}/keep`]) {
      const res = await raw('GET', path, { host: 'rebind.evil.example:8080', authorization: `Bearer ${ADMIN}` });
      expect(res.status, path).toBe(421);
      expect(JSON.parse(res.text).error.code).toBe('HOST_NOT_ALLOWED');
    }
    expect(await upgrade({ host: 'rebind.evil.example', authorization: `Bearer ${ADMIN}`, 'x-forwarded-for': '198.51.100.95' })).toBe(403);
    expect((await raw('GET', '/api/health', { host: 'keeper.example.com' })).status).toBe(200);
    expect((await raw('GET', '/api/health', { host: `localhost:${keeper.port}` })).status).toBe(200);
  });
});
