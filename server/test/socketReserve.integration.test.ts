/**
 * Socket caps that lock out nobody legitimate, on a real Keeper (issue 25, item 5):
 *  - one holder of the viewer token at its cap no longer locks out everyone else holding it
 *    (sockets count per person: a browser's sign-in, a bearer token from one address);
 *  - share links together stop at their pool, viewers stop short of the total by the admins'
 *    reserve, and an admin still gets in (10 share links used to fill the 500 and lock him out);
 *  - subscribe floods are refused with a time to retry (item 1), the socket itself unharmed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_TOO_MANY_SOCKETS, PROTOCOL_VERSION, serverMessageSchema, type ServerMessage } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { PORT_OFFSETS, ensembleConfigOf, startTestEnsemble } from './support/testEnsemble.js';
import { call, cookieFrom, type Who } from './support/http.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

const ADMIN = 'admin-token-for-socket-reserve-0123456789';
const VIEWER = 'viewer-token-for-socket-reserve-0123456789';
const LIMITS = {
  sockets: 40,
  socketsReservedForAdmins: 5,
  socketsForShareLinks: 20,
  socketsPerPerson: 8,
  socketsPerIdentity: 30,
  subscribesPerSecond: 2,
  subscribesPerSecondPerPerson: 4,
};

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let keeper: RunningKeeper;
let stateDir: string;
const open: Tab[] = [];

const api = (method: string, path: string, who: Who = {}, body?: unknown) => call(keeper.url, method, path, who, body);

/** A browser tab: welcomed, or refused with a close code and reason. */
class Tab {
  readonly messages: ServerMessage[] = [];
  closed: { code: number; reason: string } | null = null;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.messages.push(serverMessageSchema.parse(JSON.parse(data.toString()))));
    socket.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
  }

  static async open(headers: Record<string, string>): Promise<Tab> {
    const tab = new Tab(new WebSocket(`${keeper.url.replace(/^http/, 'ws')}/ws`, { headers }));
    open.push(tab);
    await new Promise<void>((resolve, reject) => {
      tab.socket.once('open', () => resolve());
      tab.socket.once('error', reject);
    });
    tab.socket.send(JSON.stringify({ type: 'hello', protocolVersion: PROTOCOL_VERSION }));
    await waitFor(() => tab.welcomed || tab.closed, { what: 'welcome or refusal' });
    return tab;
  }

  get welcomed(): boolean {
    return this.messages.some((m) => m.type === 'welcome');
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cookie = (who: Who) => ({ cookie: who.cookie! });

/** A browser signed in with a token: its own session, so its own person. */
async function signIn(token: string): Promise<Who> {
  const res = await api('POST', '/api/login', {}, { token });
  expect(res.status).toBe(200);
  return { cookie: cookieFrom(res) };
}

/** A share link made by the admin and opened in a fresh browser. */
async function shareLinkBrowser(): Promise<Who> {
  const created = await api('POST', '/api/share-links', { token: ADMIN }, { path: '/ensembles/it/znodes/', expiresInMinutes: 30 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const opened = await fetch(created.body.url, { redirect: 'manual' });
  return { cookie: /keeper_session=[^;]*/.exec(opened.headers.get('set-cookie') ?? '')![0] };
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.socketReserveTest, { size: 1 });
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-socket-reserve-'));
  keeper = await startKeeper(
    { host: '127.0.0.1', port: 0, ensembles: [ensembleConfigOf(ensemble)], auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER }, limits: LIMITS },
    { logger: testLogger, rateLimits: { api: 100_000, loginFailures: 1_000 } },
  );
}, 120_000);

afterEach(async () => {
  for (const tab of open.splice(0)) tab.socket.terminate();
  await waitFor(() => keeper.hub.stats.sockets === 0, { what: 'every socket closed' });
});

afterAll(async () => {
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('sockets per person', () => {
  it('refuses one viewer-token holder past its own cap, and still lets in every other person holding the token', async () => {
    const greedy = await signIn(VIEWER);
    for (let i = 0; i < LIMITS.socketsPerPerson; i++) expect((await Tab.open(cookie(greedy))).welcomed).toBe(true);
    const over = await Tab.open(cookie(greedy));
    await waitFor(() => over.closed, { what: 'the refusal' });
    expect(over.closed).toEqual({
      code: CLOSE_TOO_MANY_SOCKETS,
      reason: `too many tabs: at most ${LIMITS.socketsPerPerson} open in one browser for viewer-token; close one`,
    });
    // Before: the token was the only key, so this other person was refused with close 4004 too.
    const other = await Tab.open(cookie(await signIn(VIEWER)));
    expect(other.welcomed).toBe(true);
    const script = await Tab.open(bearer(VIEWER));
    expect(script.welcomed).toBe(true);
  }, 60_000);
});

describe('share links and the admins’ reserve', () => {
  it('stops share links at their pool and viewers short of the reserve, and lets an admin in', async () => {
    const links = await Promise.all(Array.from({ length: 4 }, () => shareLinkBrowser()));
    let shared = 0;
    for (let i = 0; ; i++) {
      const tab = await Tab.open(cookie(links[i % links.length]!));
      if (!tab.welcomed) {
        await waitFor(() => tab.closed, { what: 'the refusal' });
        expect(tab.closed).toEqual({
          code: CLOSE_TOO_MANY_SOCKETS,
          reason: `share links have their maximum of ${LIMITS.socketsForShareLinks} open tabs; try again later`,
        });
        break;
      }
      shared++;
    }
    expect(shared).toBe(LIMITS.socketsForShareLinks);

    // Viewers fill the rest but the reserve.
    const viewers = await Promise.all(Array.from({ length: 3 }, () => signIn(VIEWER)));
    let viewing = 0;
    for (let i = 0; ; i++) {
      const tab = await Tab.open(cookie(viewers[i % viewers.length]!));
      if (!tab.welcomed) {
        await waitFor(() => tab.closed, { what: 'the refusal' });
        const limit = LIMITS.sockets - LIMITS.socketsReservedForAdmins;
        expect(tab.closed).toEqual({
          code: CLOSE_TOO_MANY_SOCKETS,
          reason: `the server has its maximum of ${limit} open tabs (${LIMITS.socketsReservedForAdmins} more kept for admins); try again later`,
        });
        break;
      }
      viewing++;
    }
    expect(shared + viewing).toBe(LIMITS.sockets - LIMITS.socketsReservedForAdmins);

    // Before: share links and viewers took every socket and the admin was refused.
    for (let i = 0; i < LIMITS.socketsReservedForAdmins; i++) expect((await Tab.open(bearer(ADMIN))).welcomed).toBe(true);
    const over = await Tab.open(bearer(ADMIN));
    await waitFor(() => over.closed, { what: 'the refusal' });
    expect(over.closed?.reason).toBe(`the server has its maximum of ${LIMITS.sockets} open tabs; try again later`);
    expect(keeper.hub.stats.sockets).toBe(LIMITS.sockets);
  }, 90_000);
});

describe('subscribe floods', () => {
  it('refuses subscribes past the rate with rateLimited and the time to wait; the socket is served again after it', async () => {
    const tab = await Tab.open(bearer(VIEWER));
    for (let i = 0; i < 30; i++) tab.send({ type: 'subscribe', topic: 'locks', ensemble: 'it', params: {}, id: `l${i}` });
    await waitFor(() => tab.messages.filter((m) => (m.type === 'ack' || m.type === 'error') && m.id?.startsWith('l')).length === 30, { what: '30 answers' });
    const refused = tab.messages.filter((m): m is Extract<ServerMessage, { type: 'error' }> => m.type === 'error' && m.code === 'rateLimited');
    const acked = tab.messages.filter((m) => m.type === 'ack');
    expect(acked.length).toBeGreaterThan(0);
    expect(acked.length).toBeLessThanOrEqual(LIMITS.subscribesPerSecond * 5 + 1);
    expect(refused.length).toBe(30 - acked.length);
    const wait = Math.max(...refused.map((e) => e.retryAfterMs ?? 0));
    expect(wait).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, wait + 50));
    tab.send({ type: 'subscribe', topic: 'znode', ensemble: 'it', params: { path: '/' }, id: 'after' });
    await waitFor(() => tab.messages.some((m) => m.type === 'ack' && m.id === 'after'), { what: 'served after the wait' });
    expect(tab.closed).toBeNull();
  }, 60_000);
});
