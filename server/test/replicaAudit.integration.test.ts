/**
 * One audit trail across replicas (issue 21, item 4; docs/operating/replicas.md): every replica writes its
 * own file and the home ensemble's bounded recent window; GET /api/audit on any replica shows
 * every replica's entries, each marked with its replica. And sign-in guesses counted across
 * replicas: two replicas allow about what one allows. A is a process of its own (killed with
 * SIGKILL), B runs in this process; one real 3-member home ensemble.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPageSchema, replicasAnswerSchema, type AuditEntry, type AuditPage } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { KeeperOptions } from '../src/config/types.js';
import { readAuditFile } from '../src/audit/auditLog.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { launchKeeper, type KeeperProcess } from './support/keeperProcess.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { call, type Who } from './support/http.js';
import { testLogger } from './support/logger.js';
import { waitFor } from './support/waitFor.js';

const ADMIN = 'replica-audit-admin-token-0123456789';
const VIEWER = 'replica-audit-viewer-token-0123456789';
const SECRET = 'replica-audit-cluster-secret-0123456789-abcdef';
const ROOT = '/keeper/replicas';
const WINDOW = 100;
/** Failed sign-ins per address and name a minute (a wrong token is the name "token"). */
const GUESSES = 4;
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let dir: string;
let a: KeeperProcess;
let b: RunningKeeper;
let bStateDir: string;
let raw: RawClient;

function options(stateDir: string): KeeperOptions {
  return {
    host: '127.0.0.1',
    port: 0,
    ensembles: [ensembleConfigOf(ensemble, { name: 'home' })],
    auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
    replicas: { stateEnsemble: 'home', root: ROOT, secret: SECRET, sharedPolling: false, auditWindow: WINDOW },
  };
}
const extras = { gatewayDefaults: { sessionTimeoutMs: 4_000 }, rateLimits: { api: 100_000, loginFailures: GUESSES } };

const launchA = () =>
  launchKeeper({ options: options(mkdtempSync(join(dir, 'a-'))), extras, logFile: join(dir, `a-${Date.now()}.log`) }, join(dir, `a-${Date.now()}.json`));

async function page(url: string, query = ''): Promise<AuditPage> {
  const res = await call(url, 'GET', `/api/audit${query}`, admin);
  expect(res.status).toBe(200);
  return auditPageSchema.parse(res.body);
}

/** What a client without the secret gets listing `<root>/<dir>`: its error code. */
const listedByOthers = (dir: string) =>
  new Promise<number | undefined>((resolve) => raw.client.getChildren(`${ROOT}/${dir}`, (error) => resolve((error as { code?: number } | null)?.code)));

const created = (entries: AuditEntry[], path: string) => entries.find((e) => e.action === 'create' && e.path === path);

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.replicaAuditTest);
  dir = mkdtempSync(join(tmpdir(), 'keeper-replica-audit-'));
  bStateDir = mkdtempSync(join(dir, 'b-'));
  [a, b] = await Promise.all([launchA(), startKeeper(options(bStateDir), { ...extras, logger: testLogger })]);
  raw = await connectRaw(ensemble.connectionString);
  await waitFor(
    async () => {
      const res = await call(b.url, 'GET', '/api/replicas', admin);
      return res.status === 200 && replicasAnswerSchema.parse(res.body).replicas.length === 2;
    },
    { what: 'both replicas registered', timeoutMs: 60_000 },
  );
}, 180_000);

afterAll(async () => {
  raw?.close();
  await Promise.all([a?.stop(), b?.close()]);
  await ensemble?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('one audit trail across replicas', () => {
  it("lists every replica's entries on each, newest first, each marked with its replica and its own file's seq", async () => {
    expect((await call(a.url, 'POST', '/api/ensembles/home/znodes/audit-on-a', admin, { data: 'a' })).status).toBe(201);
    expect((await call(b.url, 'POST', '/api/ensembles/home/znodes/audit-on-b', admin, { data: 'b' })).status).toBe(201);
    const bName = b.replicas!.answer().then((r) => r.replicas.find((x) => x.self)!);
    for (const url of [a.url, b.url]) {
      const { entries, shared } = await page(url);
      const onA = created(entries, '/audit-on-a');
      const onB = created(entries, '/audit-on-b');
      expect(onA?.replica?.name).not.toBe((await bName).name);
      expect(onB?.replica).toMatchObject({ id: b.replicas!.id, name: (await bName).name });
      // Newest first in the shared order; each keeps the seq of its replica's own file.
      expect(entries.indexOf(onB!)).toBeLessThan(entries.indexOf(onA!));
      expect(readAuditFile(bStateDir).find((e) => e.path === '/audit-on-b')?.seq).toBe(onB!.replica!.seq);
      expect(shared).toMatchObject({ maxEntries: WINDOW, maxBytes: 16 * 1024 * 1024 });
    }
  });

  it('keeps a change answered by a replica that is killed right after: the other lists it', async () => {
    const res = await call(a.url, 'POST', '/api/ensembles/home/znodes/answered-then-killed', admin, { data: 'x' });
    expect(res.status).toBe(201);
    await a.kill();
    const entry = created((await page(b.url)).entries, '/answered-then-killed');
    expect(entry).toMatchObject({ outcome: 'ok', actor: { role: 'admin' } });
    expect(entry?.replica?.id).not.toBe(b.replicas!.id);
    a = await launchA();
  });

  it('stays within its bound: the oldest entries go past it, and a page says where older ones are', async () => {
    // Refusals are audited too (and cheap to make): 150 of them through B, each its own batch.
    for (let i = 0; i < 150; i++) expect((await call(b.url, 'POST', `/api/ensembles/home/znodes/refused-${i}`, viewer, { data: 'x' })).status).toBe(403);
    const all = await page(b.url, '?limit=1000');
    // Pruned once its own count passes the bound by a tenth.
    expect(all.entries.length).toBeGreaterThanOrEqual(WINDOW);
    expect(all.entries.length).toBeLessThanOrEqual(WINDOW * 1.1);
    expect(all.next).toBeUndefined();
    expect(all.entries[0]).toMatchObject({ outcome: 'refused', path: '/refused-149' });
    expect(all.entries.some((e) => e.path === '/refused-0')).toBe(false);
    expect(all.shared?.note).toContain("older ones are in each replica's own audit file");
    // Paging: two pages of 30 are the first 60, in order, without overlap.
    const first = await page(b.url, '?limit=30');
    const second = await page(b.url, `?limit=30&before=${first.next}`);
    expect([...first.entries, ...second.entries].map((e) => e.seq)).toEqual(all.entries.slice(0, 60).map((e) => e.seq));
    // The file keeps everything.
    expect(readAuditFile(bStateDir).filter((e) => e.path?.startsWith('/refused-'))).toHaveLength(150);
  });

  it('is read by no one without the cluster secret, and by no viewer through Keeper', async () => {
    expect(await listedByOthers('audit')).toBe(zookeeper.Exception.NO_AUTH);
    expect((await call(b.url, 'GET', '/api/audit', viewer)).status).toBe(403);
    expect((await call(b.url, 'GET', '/api/audit')).status).toBe(401);
  });
});

describe('sign-in guesses across replicas', () => {
  it('allows about the guesses one replica allows, however a balancer spreads them, and a right token still passes', async () => {
    // Not across a window's boundary (the replicas' count starts again there).
    if (Date.now() % 60_000 > 57_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 100));
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await call(i % 2 ? b.url : a.url, 'GET', '/api/ensembles', { token: `wrong-guess-${i}-0123456789abcdef` })).status);
    const wrong = statuses.filter((s) => s === 401).length;
    // One replica allows GUESSES; two counting apart would allow twice that. Shared: at most one more per other replica.
    expect(wrong).toBeGreaterThanOrEqual(GUESSES);
    expect(wrong).toBeLessThanOrEqual(GUESSES + 1);
    expect(statuses.slice(-4)).toEqual([429, 429, 429, 429]);
    for (const url of [a.url, b.url]) expect((await call(url, 'GET', '/api/ensembles', admin)).status).toBe(200);
    // Kept as counts under keys no one can read back: an HMAC, never the address or the name tried.
    const store = b.replicas!.store;
    const windows = await store.children(store.path('sign-in-failures'));
    const keys = (await Promise.all(windows.map((w) => store.children(store.path('sign-in-failures', w))))).flat();
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(await listedByOthers('sign-in-failures')).toBe(zookeeper.Exception.NO_AUTH);
  });
});
