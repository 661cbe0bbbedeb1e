/**
 * Two Keeper replicas in one process sharing one real home ensemble (docs/operating/replicas.md): each
 * registers an ephemeral znode of its own state session and lists the other; a forced expiry of
 * one's state session removes it and it registers again; the root carries an ACL no other client
 * passes (not even Keeper's own console session); writes are compare-and-set; GET /api/replicas
 * refuses what the other admin routes refuse.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { replicasAnswerSchema, type Replica } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { KeeperOptions } from '../src/config/types.js';
import { Replicas } from '../src/replicas/replicas.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { connectRaw, forceExpire, type RawClient } from './support/rawClient.js';
import { call, cookieFrom, type Who } from './support/http.js';
import { TestBrowser } from './support/wsClient.js';
import { SessionStore } from '../src/auth/sessionStore.js';
import { SharedSessions } from '../src/replicas/sharedSessions.js';
import { SharedShareLinks } from '../src/replicas/sharedShareLinks.js';
import { ShareLinkStore } from '../src/auth/shareLinks.js';
import { testLogger } from './support/logger.js';
import { waitFor } from './support/waitFor.js';

const ADMIN = 'replicas-admin-token-0123456789';
const VIEWER = 'replicas-viewer-token-0123456789';
const SECRET = 'replicas-cluster-secret-0123456789-abcdef';
const ROOT = '/keeper/replicas';
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let a: RunningKeeper;
let b: RunningKeeper;
let raw: RawClient;
const stateDirs: string[] = [];

function options(extra: Partial<KeeperOptions> = {}): KeeperOptions {
  const stateDir = mkdtempSync(join(tmpdir(), 'keeper-replicas-it-'));
  stateDirs.push(stateDir);
  return {
    host: '127.0.0.1',
    port: 0,
    ensembles: [ensembleConfigOf(ensemble, { name: 'home' })],
    auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
    replicas: { stateEnsemble: 'home', root: ROOT, secret: SECRET, sharedPolling: false },
    ...extra,
  };
}

const start = (extra: Partial<KeeperOptions> = {}) => startKeeper(options(extra), { logger: testLogger, gatewayDefaults: { sessionTimeoutMs: 4_000 } });

async function listed(keeper: RunningKeeper): Promise<Replica[]> {
  const res = await call(keeper.url, 'GET', '/api/replicas', admin);
  expect(res.status).toBe(200);
  return replicasAnswerSchema.parse(res.body).replicas;
}

const idOf = (keeper: RunningKeeper) => keeper.replicas!.id;

function rawCall<T>(run: (cb: (error: unknown, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error as Error) : resolve(value as T))));
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.replicasTest);
  [a, b] = await Promise.all([start(), start()]);
  raw = await connectRaw(ensemble.connectionString);
}, 180_000);

afterAll(async () => {
  raw?.close();
  await Promise.all([a?.close(), b?.close()]);
  await ensemble?.dispose();
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

describe('the replica registry', () => {
  it('lists both replicas on each, with their address, version, start time and ZooKeeper registration time', async () => {
    const both = (list: Replica[]) => list.length === 2 && list;
    const fromA = await waitFor(async () => both(await listed(a)), { what: 'A lists both', timeoutMs: 30_000 });
    const fromB = await waitFor(async () => both(await listed(b)), { what: 'B lists both', timeoutMs: 30_000 });
    for (const [keeper, list] of [
      [a, fromA],
      [b, fromB],
    ] as const) {
      const self = list.find((r) => r.self);
      expect(self?.id).toBe(idOf(keeper));
      expect(self?.url).toBe(keeper.url);
      expect(list.filter((r) => r.self)).toHaveLength(1);
    }
    const bOnA = fromA.find((r) => r.id === idOf(b))!;
    expect(bOnA).toMatchObject({ url: b.url, version: '0.1.0', pid: process.pid, self: false });
    // registeredAt is ZooKeeper's ctime of the ephemeral znode; its owner is B's state session, not its console session.
    const stat = await rawCall<zookeeper.Stat>((cb) => raw.client.exists(`${ROOT}/replicas/${idOf(b)}`, (e, s) => cb(e, s)));
    expect(bOnA.registeredAt).toBe(Number(stat.ctime.readBigInt64BE()));
    await waitFor(() => b.replicas!.registeredSession === bOnA.sessionId, { what: "B's registration confirmed", timeoutMs: 5_000 });
    expect(bOnA.sessionId).not.toBe(b.ensembles.get('home')!.gateway.session.sessionId);
  });

  it('drops a replica whose state session expired and lists it again once it has registered on its new session', async () => {
    const before = await waitFor(async () => (await listed(a)).find((r) => r.id === idOf(b)), { what: 'A lists B', timeoutMs: 30_000 });
    const credentials = b.replicas!.gateway.sessionCredentials()!;
    const expiredAt = Date.now();
    await forceExpire(ensemble.connectionString, credentials.sessionId, credentials.password);
    const again = await waitFor(
      async () => {
        const r = (await listed(a)).find((x) => x.id === idOf(b));
        return r && r.sessionId !== before.sessionId && r;
      },
      { what: 'B registered again on a new session', timeoutMs: 30_000 },
    );
    expect(again.startedAt).toBe(before.startedAt);
    // A new znode (ZooKeeper's ctime after the expiry, owned by the new session): the old one went with its session.
    expect(again.registeredAt).toBeGreaterThanOrEqual(expiredAt - 1_000);
    expect(again.registeredAt).toBeGreaterThan(before.registeredAt);
    // B counts itself registered once it has read back that its new session owns the znode (a stat after the create).
    await waitFor(() => b.replicas!.registeredSession === again.sessionId, { what: "B's registration confirmed on its new session", timeoutMs: 5_000 });
    // B's console session was not touched: only the state session expired.
    expect(b.ensembles.get('home')!.gateway.session.state).toBe('connected');
  });

  it('removes a replica that closes at once, on the other', async () => {
    const c = await start();
    await waitFor(async () => (await listed(a)).some((r) => r.id === idOf(c)), { what: 'A lists C', timeoutMs: 30_000 });
    await c.close();
    await waitFor(async () => !(await listed(a)).some((r) => r.id === idOf(c)), { what: 'C gone from A', timeoutMs: 5_000 });
  });
});

describe("the root's ACL", () => {
  it("lets no other client read the state, not even Keeper's own console session browsing the home ensemble", async () => {
    const refused = await rawCall((cb) => raw.client.getChildren(`${ROOT}/replicas`, (e, c) => cb(e, c))).catch((e: { code?: number }) => e.code);
    expect(refused).toBe(zookeeper.Exception.NO_AUTH);
    const browse = await call(a.url, 'GET', '/api/ensembles/home/znodes/keeper/replicas/replicas', admin);
    expect(browse.status).toBe(403);
    expect(browse.body.error.code).toBe('NO_AUTH');
    // The identity marker and the upgrade lock's parent stay open to every Keeper.
    // Read by a client with no credentials: the ensemble's id (a UUID Keeper wrote) comes back, not NO_AUTH.
    expect(await raw.get('/keeper/ensemble-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const acl = await rawCall<zookeeper.ACL[]>((cb) => raw.client.getACL('/keeper', (e, l) => cb(e, l)));
    expect(acl.map((x) => x.id.scheme)).toEqual(['world']);
  });

  it('is refused to a replica with another secret, which says so rather than taking the root over', async () => {
    const stranger = new Replicas(
      { stateEnsemble: 'home', root: ROOT, secret: 'another-secret-of-enough-length-0123456789', sharedPolling: false },
      ensembleConfigOf(ensemble, { name: 'home' }),
      testLogger,
    );
    stranger.gateway.start();
    try {
      await expect(stranger.store.ensureRoot()).rejects.toThrow(/cluster secret does not match/);
    } finally {
      stranger.close();
    }
  });
});

describe('a replica with another secret', () => {
  it('answers 503 NOT_READY saying why, and is not listed by the others', async () => {
    const stranger = await start({
      replicas: { stateEnsemble: 'home', root: ROOT, secret: 'another-secret-of-enough-length-0123456789', sharedPolling: false },
    });
    try {
      const res = await waitFor(
        async () => {
          const r = await call(stranger.url, 'GET', '/api/replicas', admin);
          return r.status === 503 && /cluster secret does not match/.test(r.body.error.message) && r;
        },
        { what: 'the stranger says why', timeoutMs: 15_000 },
      );
      expect(res.body.error.code).toBe('NOT_READY');
      expect((await listed(a)).map((r) => r.id)).not.toContain(idOf(stranger));
    } finally {
      await stranger.close();
    }
  });
});

describe('compare-and-set writes', () => {
  it('lose no update when two replicas change one record at once', async () => {
    const counter = z.object({ n: z.number() });
    const path = a.replicas!.store.path('cas-test');
    const bump = (keeper: RunningKeeper) => keeper.replicas!.store.update(path, counter, (current) => ({ n: (current?.n ?? 0) + 1 }));
    const runs = Array.from({ length: 5 }, () => [bump(a), bump(b)]).flat();
    await Promise.all(runs);
    const stored = await b.replicas!.store.read(path, counter);
    expect(stored?.value.n).toBe(10);
    expect(stored?.stat.version).toBe(9);
    expect(await a.replicas!.store.remove(path, stored!.stat.version)).toBe(true);
  });

  it('refuses a value over the 64 KiB cap before sending it', async () => {
    const path = a.replicas!.store.path('too-big');
    await expect(a.replicas!.store.create(path, 'x'.repeat(70_000))).rejects.toMatchObject({ code: 'DATA_TOO_LARGE' });
    expect(await a.replicas!.store.stat(path)).toBeNull();
  });
});

describe('share links across replicas', () => {
  async function openOn(keeper: RunningKeeper, url: string): Promise<string | null> {
    const opened = await fetch(`${keeper.url}${new URL(url).pathname}`, { redirect: 'manual' });
    return /keeper_session=[^;]+/.exec(opened.headers.get('set-cookie') ?? '')?.[0] ?? null;
  }

  it('honours on B a link made on A, and refuses it on A within 2 s of its revocation on B (a watch, not polling)', async () => {
    await raw.mkdirp('/shared/app');
    const created = await call(a.url, 'POST', '/api/share-links', admin, { path: '/ensembles/home/znodes/shared/app', expiresInMinutes: 30 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // A answered once the link was in the home ensemble; B learns of it from its child watch.
    const onB = await waitFor(() => openOn(b, created.body.url), { what: 'the link opens on B', timeoutMs: 2_000 });
    const onA = await openOn(a, created.body.url);
    // A session cookie for the link, set by A as by B.
    expect(onA).toMatch(/^keeper_session=.+/);
    if (onA === null) throw new Error('A set no session cookie for the link');
    for (const [keeper, cookie] of [
      [a, onA],
      [b, onB],
    ] as const) {
      expect((await call(keeper.url, 'GET', '/api/ensembles/home/znodes/shared/app', { cookie })).status).toBe(200);
    }

    const revoked = await call(b.url, 'DELETE', `/api/share-links/${created.body.id}`, admin);
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    await waitFor(async () => (await call(a.url, 'GET', '/api/ensembles/home/znodes/shared/app', { cookie: onA })).status === 401, {
      what: "A refuses the holder's session",
      timeoutMs: 2_000,
      intervalMs: 20,
    });
    expect(Date.now() - revokedAt).toBeLessThan(2_000);
    expect((await call(b.url, 'GET', '/api/ensembles/home/znodes/shared/app', { cookie: onB })).status).toBe(401);
    expect(await openOn(a, created.body.url)).toBeNull();
    const onAList = (await call(a.url, 'GET', '/api/share-links', admin)).body.links as { id: string; revokedAt?: number }[];
    expect(onAList.find((l) => l.id === created.body.id)?.revokedAt).toBe(revoked.body.revokedAt);
  });
});

describe('a share link used on a replica before its watch brought the link in', () => {
  it('is read from the home ensemble on the miss, and an unknown token still is not', async () => {
    // A replica whose watch has not fired: a store that follows nothing, only looks up on a miss.
    const links = new ShareLinkStore(null);
    const shared = new SharedShareLinks(b.replicas!.store, links, testLogger);
    links.setShared({ lookup: () => shared.lookup(), forgotten: () => undefined });
    await raw.mkdirp('/shared/miss');
    const created = await call(a.url, 'POST', '/api/share-links', admin, { path: '/ensembles/home/znodes/shared/miss', expiresInMinutes: 30 });
    expect(created.status).toBe(201);
    const token = new URL(created.body.url).pathname.split('/').at(-1)!;
    expect(links.resolve(token)).toEqual({ ok: false, reason: 'unknown' });
    expect(await links.resolveFresh(token)).toMatchObject({ ok: true, link: { id: created.body.id } });
    expect(await links.resolveFresh('not-a-token')).toEqual({ ok: false, reason: 'unknown' });
    shared.close();
  });
});

describe('GET /api/replicas refusals', () => {
  it('refuses a viewer and no identity as /api/audit does, and gives another origin nothing it may read', async () => {
    for (const route of ['/api/audit', '/api/replicas']) {
      const asViewer = await call(a.url, 'GET', route, viewer);
      expect(asViewer.status, route).toBe(403);
      expect(asViewer.body.error.code, route).toBe('FORBIDDEN');
      const anonymous = await call(a.url, 'GET', route, {});
      expect(anonymous.status, route).toBe(401);
      expect(anonymous.body.error.code, route).toBe('UNAUTHENTICATED');
      const crossSite = await call(a.url, 'GET', route, { ...admin, origin: 'https://evil.example' });
      expect(crossSite.headers.get('access-control-allow-origin'), route).toBeNull();
    }
  });

  it('answers enabled: false on a Keeper without "replicas", which writes nothing under the root', async () => {
    const { replicas: _none, ...withoutReplicas } = options();
    const alone = await startKeeper(withoutReplicas, { logger: testLogger });
    try {
      const res = await call(alone.url, 'GET', '/api/replicas', admin);
      expect(res.status).toBe(200);
      expect(replicasAnswerSchema.parse(res.body)).toMatchObject({ enabled: false, replicas: [] });
      expect(alone.replicas).toBeNull();
      expect((await listed(a)).map((r) => r.id).sort()).toEqual([idOf(a), idOf(b)].sort());
    } finally {
      await alone.close();
    }
  });
});

describe('sign-in sessions across replicas', () => {
  async function signIn(keeper: RunningKeeper, token = ADMIN): Promise<{ cookie: string; csrf: string }> {
    const res = await call(keeper.url, 'POST', '/api/login', {}, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { cookie: cookieFrom(res), csrf: res.body.csrfToken };
  }
  const me = (keeper: RunningKeeper, cookie: string) => call(keeper.url, 'GET', '/api/me', { cookie });
  /** The home-ensemble reads a replica's state session makes while `work` runs. */
  async function readsDuring(keeper: RunningKeeper, work: () => Promise<void>): Promise<number> {
    let reads = 0;
    const count = (op: string) => void (op === 'getData' && reads++);
    keeper.replicas!.gateway.on('call', count);
    try {
      await work();
    } finally {
      keeper.replicas!.gateway.off('call', count);
    }
    return reads;
  }

  it('serves on B a browser signed in on A (HTTP and its socket), and ends it on B within 2 s of its sign-out on A', async () => {
    const { cookie, csrf } = await signIn(a);
    expect(cookie).toMatch(/^keeper_session=[\w-]+\.[\w-]{22}$/);
    const onB = await me(b, cookie);
    expect(onB.status).toBe(200);
    expect(onB.body).toMatchObject({ name: 'admin-token', role: 'admin', csrfToken: csrf });
    const browser = await TestBrowser.open(b.url, { headers: { cookie } });
    try {
      // Read once from the home ensemble, then held: the next requests cost B no read.
      expect(await readsDuring(b, async () => void expect((await me(b, cookie)).status).toBe(200))).toBe(0);

      expect((await call(a.url, 'POST', '/api/logout', { cookie, csrf })).status).toBe(204);
      const outAt = Date.now();
      await waitFor(() => browser.closeCode !== null, { what: "B closes the signed-out browser's socket", timeoutMs: 2_000, intervalMs: 20 });
      const refused = await me(b, cookie);
      expect(Date.now() - outAt).toBeLessThan(2_000);
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toMatch(/signed out/);
    } finally {
      browser.close();
    }
  });

  it('refuses on B a session that expired on A, by the expiry stored with it', async () => {
    const short = await start({ auth: { stateDir: stateDirs[0]!, adminToken: ADMIN, viewerToken: VIEWER, sessionTtlMs: 1_500 } });
    try {
      const { cookie } = await signIn(short);
      expect((await me(b, cookie)).status).toBe(200);
      await waitFor(async () => (await me(b, cookie)).status === 401, { what: 'B refuses the expired session', timeoutMs: 3_000, intervalMs: 50 });
    } finally {
      await short.close();
    }
  });

  it('never looks up a cookie without a valid signature, and refuses a signed one the home ensemble does not hold', async () => {
    const { cookie } = await signIn(a);
    const random = cookie.slice('keeper_session='.length).split('.')[0]!;
    const forged = [`keeper_session=${random}.${'A'.repeat(22)}`, `keeper_session=${random}`, `keeper_session=${random}.`];
    for (const c of forged) {
      const reads = await readsDuring(b, async () => void expect((await me(b, c)).status, c).toBe(401));
      expect(reads, c).toBe(0);
    }
    // Signed with the cluster secret (as a replica of another home ensemble with the same secret would) but never stored: read, not found, refused.
    const signer = new SharedSessions({
      store: a.replicas!.store,
      sessions: new SessionStore(60_000),
      secret: SECRET,
      onEnded: () => undefined,
      log: testLogger,
    });
    const stray = `keeper_session=fresh${random}.${signer.sign(`fresh${random}`)}`;
    expect(await readsDuring(b, async () => void expect((await me(b, stray)).status).toBe(401))).toBe(1);
    // A socket is refused the same way.
    await expect(TestBrowser.open(b.url, { headers: { cookie: forged[0]! } })).rejects.toThrow();
  });

  it('keeps at most maxSessions records: a full bucket loses its expired records first, then the oldest of its busiest name', async () => {
    const shared = new SharedSessions({
      store: a.replicas!.store,
      sessions: new SessionStore(60_000),
      secret: SECRET,
      maxSessions: 512,
      onEnded: () => undefined,
      log: testLogger,
    });
    expect(shared.perBucket).toBe(2);
    // Started, so its sign-ins do not wait 10 s each for directories it would otherwise never be told exist.
    await shared.start();
    const bucket = a.replicas!.store.path('sessions', 'ee');
    for (const name of await a.replicas!.store.children(bucket)) await a.replicas!.store.remove(`${bucket}/${name}`, -1);
    const now = Date.now();
    const session = (n: number, name: string, expiresAt: number) => ({
      id: `ee${String(n).padStart(62, '0')}`,
      hintId: 'f'.repeat(64),
      name,
      role: 'viewer' as const,
      via: 'cookie' as const,
      csrfToken: 'x',
      createdAt: now + n,
      expiresAt,
    });
    await shared.put(session(1, 'alice', now - 1));
    await shared.put(session(2, 'bob', now + 60_000));
    await shared.put(session(3, 'bob', now + 60_000));
    expect((await a.replicas!.store.children(bucket)).sort()).toEqual([session(2, '', 0).id, session(3, '', 0).id]);
    await shared.put(session(4, 'carol', now + 60_000));
    expect((await a.replicas!.store.children(bucket)).sort()).toEqual([session(3, '', 0).id, session(4, '', 0).id]);
    const ends = a.replicas!.store.path('session-ends');
    const names = (await a.replicas!.store.children(ends)).sort();
    const last = await a.replicas!.store.read(`${ends}/${names.at(-1)}`, z.object({ ids: z.array(z.string()), reason: z.string() }));
    expect(last?.value).toMatchObject({ ids: [session(2, '', 0).id], reason: expect.stringMatching(/at most 512 sessions/) });
    shared.close();
  });

  it('keeps a browser signed in across a restart of both replicas', async () => {
    const { cookie } = await signIn(b);
    await Promise.all([a.close(), b.close()]);
    [a, b] = await Promise.all([start(), start()]);
    for (const keeper of [a, b]) expect((await me(keeper, cookie)).status).toBe(200);
  });
});
