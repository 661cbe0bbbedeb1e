/**
 * The HTTP contract on a real ensemble: GET /api/openapi.json is served to any signed-in identity
 * (not to share-link holders), and live answers of the main routes, successes and refusals alike,
 * validate against the document's schema for their route and status. And GET .../data/<path>
 * hands back a value's stored bytes exactly: 900 KiB of binary written by another client, read by
 * an admin, a viewer and a share holder within scope; a node with more children than an export
 * takes; 404 NO_NODE for no node; 403 OUT_OF_SCOPE for a holder outside its scope.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EXPORT_NODES } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { testLogger } from './support/logger.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { waitFor } from './support/waitFor.js';
import { call, type ApiResponse, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-http-contract-0123456789';
const VIEWER = 'viewer-token-for-http-contract-0123456789';
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };

/** Larger than the live view's 64 KiB and than any one frame Keeper sends otherwise; under jute.maxbuffer (1 MiB). */
const BIG = randomBytes(900 * 1024);
/** More children than an export takes: reading the value must not walk the subtree. */
const MANY_CHILDREN = MAX_EXPORT_NODES + 1;

let ensemble: SharedEnsemble;
let keeper: RunningKeeper;
let raw: RawClient;
let stateDir: string;
let document: { openapi: string; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validators = new Map<string, ValidateFunction>();
/** Every route + status checked, to show the run covered what it claims. */
const checked = new Set<string>();

const api = (method: string, path: string, who: Who = admin, body?: unknown) => call(keeper.url, method, path, who, body);

function createRaw(path: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => raw.client.create(path, data, zookeeper.CreateMode.PERSISTENT, (e) => (e ? reject(e) : resolve())));
}

function getRaw(path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => raw.client.getData(path, (e, data) => (e ? reject(e) : resolve(data ?? Buffer.alloc(0)))));
}

/** Asserts the live answer is what the document says `route` answers with this status. */
function expectDocumented(method: string, route: string, res: ApiResponse): void {
  const where = `${method.toUpperCase()} ${route} ${res.status}`;
  const response = document.paths[route]?.[method]?.responses[String(res.status)];
  expect(response, `${where}: the document has no such answer (body ${JSON.stringify(res.body).slice(0, 300)})`).toBeDefined();
  const schema = response?.content?.['application/json']?.schema;
  expect(schema, `${where}: no JSON schema`).toBeDefined();
  let validate = validators.get(where);
  if (!validate) {
    validate = ajv.compile(schema!);
    validators.set(where, validate);
  }
  const ok = validate(res.body);
  expect(ok, `${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(res.body).slice(0, 500)}`).toBe(true);
  checked.add(where);
}

async function live(method: string, route: string, url: string, who: Who = admin, body?: unknown): Promise<ApiResponse> {
  const res = await api(method.toUpperCase(), url, who, body);
  expectDocumented(method, route, res);
  return res;
}

/** A share link to `page` with its default scope (the znode's subtree), opened by a browser: its cookie. */
async function holderOf(page: string): Promise<Who> {
  const created = await api('POST', '/api/share-links', admin, { path: page, expiresInMinutes: 30 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const opened = await fetch(created.body.url, { redirect: 'manual' });
  expect(opened.status).toBe(302);
  return { cookie: /keeper_session=[^;]*/.exec(opened.headers.get('set-cookie') ?? '')![0] };
}

async function bytesOf(url: string, who: Who, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${keeper.url}${url}`, {
    headers: { ...headers, ...(who.token ? { authorization: `Bearer ${who.token}` } : {}), ...(who.cookie ? { cookie: who.cookie } : {}) },
  });
}

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-http-contract-'));
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      ensembles: [{ name: 'it', connectionString: ensemble.connectionString }],
      auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
    },
    { logger: testLogger, rateLimits: { api: 100_000, loginFailures: 1_000 }, ensembleDefaults: { pollIntervalMs: 1_000 } },
  );
  raw = await connectRaw(ensemble.connectionString);
  await raw.mkdirp('/hc/many');
  await createRaw('/hc/bin', BIG);
  await createRaw('/hc/text', Buffer.from('hello'));
  await createRaw('/hc/empty', Buffer.alloc(0));
  await createRaw('/hc/other', Buffer.from('{"a":1}'));
  await new Promise<void>((resolve, reject) => raw.client.setData('/hc/many', BIG.subarray(0, 100 * 1024), -1, (e) => (e ? reject(e) : resolve())));
  for (let i = 0; i < MANY_CHILDREN; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, MANY_CHILDREN - i) }, (_, j) => createRaw(`/hc/many/c${i + j}`, Buffer.alloc(0))));
  }
  await waitFor(async () => (await api('GET', '/api/health', {})).body?.status === 'ok', { what: 'console connected', timeoutMs: 30_000 });
  const served = await api('GET', '/api/openapi.json', viewer);
  expect(served.status).toBe(200);
  document = served.body;
}, 180_000);

afterAll(async () => {
  raw?.close();
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('GET /api/openapi.json', () => {
  it('is an OpenAPI 3.1 document for any signed-in identity, not for share-link holders or strangers', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/api/ensembles/{name}/data/{path}');
    expect((await api('GET', '/api/openapi.json', admin)).status).toBe(200);
    const stranger = await api('GET', '/api/openapi.json', {});
    expect(stranger.status).toBe(401);
    const holder = await holderOf('/ensembles/it/znodes/hc/text');
    const refused = await api('GET', '/api/openapi.json', holder);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('OUT_OF_SCOPE');
  });
});

describe('live answers match the document', () => {
  it('reads: health, identity, ensembles, znodes, stat, ACL, subtree, export, ensemble views, jobs, share links, audit', async () => {
    await live('get', '/api/health', '/api/health', {});
    await live('get', '/api/sign-in-methods', '/api/sign-in-methods', {});
    await live('get', '/api/me', '/api/me', viewer);
    await live('get', '/api/ensembles', '/api/ensembles', viewer);
    await live('get', '/api/ensembles/{name}', '/api/ensembles/it', viewer);
    await live('get', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes', viewer);
    const page = await live('get', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/many?limit=3', viewer);
    expect(page.body.children).toMatchObject({ total: MANY_CHILDREN, limit: 3 });
    expect((await live('get', '/api/ensembles/{name}/stat/{path}', '/api/ensembles/it/stat/hc/bin', viewer)).body.stat.dataLength).toBe(BIG.length);
    expect((await live('get', '/api/ensembles/{name}/stat/{path}', '/api/ensembles/it/stat/hc/absent', viewer)).body.stat).toBeNull();
    await live('get', '/api/ensembles/{name}/acl/{path}', '/api/ensembles/it/acl/hc', viewer);
    await live('get', '/api/ensembles/{name}/subtree/{path}', '/api/ensembles/it/subtree/hc/other', viewer);
    await live('get', '/api/ensembles/{name}/export/{path}', '/api/ensembles/it/export/hc/other', viewer);
    await waitFor(async () => (await api('GET', '/api/ensembles/it/members', viewer)).status === 200, { what: 'first poll', timeoutMs: 30_000 });
    await live('get', '/api/ensembles/{name}/members', '/api/ensembles/it/members', viewer);
    await live('get', '/api/ensembles/{name}/sessions', '/api/ensembles/it/sessions', viewer);
    await live('get', '/api/ensembles/{name}/watches', '/api/ensembles/it/watches?byPath=true', viewer);
    await live('get', '/api/ensembles/{name}/sizing', '/api/ensembles/it/sizing?voters=5&votersDown=1', viewer);
    await live('get', '/api/jobs', '/api/jobs', viewer);
    await live('get', '/api/share-links', '/api/share-links', admin);
    await live('get', '/api/audit', '/api/audit?limit=5', admin);
    await live('get', '/api/replicas', '/api/replicas', admin);
  });

  it('locks: the list, one lock, a scan job, a dry-run clean, a delete, and NOT_A_LOCK', async () => {
    // Two kazoo Lock names made persistent by hand: a lock Keeper recognizes, both nodes `persistent`.
    const dir = '/hc/locks/job';
    for (const p of ['/hc/locks', dir]) await createRaw(p, Buffer.alloc(0));
    for (const n of [1, 2]) await createRaw(`${dir}/${'ab'.repeat(16)}__lock__000000000${n}`, Buffer.from(`worker-${n}`));
    const one = await live('get', '/api/ensembles/{name}/locks/{path}', `/api/ensembles/it/locks${dir}`, viewer);
    expect(one.body.lock.contenders.map((c: { status: string }) => c.status)).toEqual(['persistent', 'persistent']);
    const list = await live('get', '/api/ensembles/{name}/locks', '/api/ensembles/it/locks?path=/hc', viewer);
    expect(list.body.locks.map((l: { path: string }) => l.path)).toEqual([dir]);
    const scan = await live('post', '/api/ensembles/{name}/locks/scan', '/api/ensembles/it/locks/scan', admin, { path: '/hc' });
    expect(scan.status).toBe(202);
    // A single Keeper lists its own last scans (in memory), the finished one with what it found.
    const scans = await waitFor(
      async () => {
        const res = await live('get', '/api/ensembles/{name}/lock-scans', '/api/ensembles/it/lock-scans', viewer);
        return res.body.scans[0]?.state === 'done' ? res.body : null;
      },
      // Not a time bound: a scan paces itself by the members' latency (scanPacer.ts), and at a load of 20
      // its calibration alone outlasted vitest's 10 s default twice (2026-12-07). Its end is what is checked.
      { what: 'the scan listed done', timeoutMs: 100_000 },
    );
    expect(scans).toMatchObject({ ensemble: 'it', shared: false, scans: [{ path: '/hc', found: 1, foundPaths: [dir], runBy: null, handovers: [] }] });
    await live('post', '/api/ensembles/{name}/locks/clean', '/api/ensembles/it/locks/clean', admin, { path: '/hc', dryRun: true });
    const last = one.body.lock.contenders[1];
    const deleted = await live('post', '/api/ensembles/{name}/locks/delete', '/api/ensembles/it/locks/delete', admin, {
      path: last.path,
      owner: '0x0',
      version: 0,
    });
    expect(deleted.body).toMatchObject({ deleted: true, wasHolder: false, status: 'persistent' });
    const notLock = await live('get', '/api/ensembles/{name}/locks/{path}', '/api/ensembles/it/locks/hc/other', viewer);
    expect(notLock.body.error.code).toBe('NOT_A_LOCK');
  });

  it('writes: create, set, a stale set, delete, ACL, import plan, recursive delete, share links, sign-in', async () => {
    const created = await live('post', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/w', admin, { data: 'one' });
    expect(created.status).toBe(201);
    const set = await live('put', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/w', admin, { data: 'two', version: 0 });
    expect(set.body.stat.version).toBe(1);
    const stale = await live('put', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/w', admin, { data: 'three', version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: { code: 'BAD_VERSION' }, current: { data: { value: 'two' } } });
    const acl = await live('get', '/api/ensembles/{name}/acl/{path}', '/api/ensembles/it/acl/hc/w', admin);
    await live('put', '/api/ensembles/{name}/acl/{path}', '/api/ensembles/it/acl/hc/w', admin, { acl: acl.body.acl, version: acl.body.stat.aversion });
    await live('delete', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/w?version=1', admin);
    const exported = await api('GET', '/api/ensembles/it/export/hc/other', admin);
    await live('post', '/api/ensembles/{name}/import/{path}', '/api/ensembles/it/import/hc/copy?dryRun=true', admin, exported.body);
    await live('post', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/tree', admin, {});
    await live('post', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/tree/leaf', admin, {});
    const job = await live('delete', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/tree?version=0&recursive=true', admin);
    expect(job.status).toBe(202);
    await live('get', '/api/jobs/{id}', `/api/jobs/${job.body.job.id}`, viewer);
    const link = await live('post', '/api/share-links', '/api/share-links', admin, { path: '/ensembles/it/znodes/hc', expiresInMinutes: 5 });
    await live('delete', '/api/share-links/{id}', `/api/share-links/${link.body.id}`, admin);
    await live('post', '/api/login', '/api/login', {}, { token: VIEWER });
    const out = await api('POST', '/api/logout', viewer);
    expect(out.status).toBe(204);
  });

  it('refusals: each code under the status the document lists it with', async () => {
    const expectCode = (res: ApiResponse, status: number, code: string) => {
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(code);
    };
    expectCode(await live('get', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/absent', viewer), 404, 'NO_NODE');
    expectCode(await live('get', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/nope/znodes/hc', viewer), 404, 'UNKNOWN_ENSEMBLE');
    expectCode(await live('get', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc?limit=-1', viewer), 400, 'INVALID_QUERY');
    expectCode(
      await live('put', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/text', viewer, { data: 'x', version: 0 }),
      403,
      'FORBIDDEN',
    );
    expectCode(await live('post', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/text', admin, {}), 409, 'NODE_EXISTS');
    expectCode(await live('put', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/text', admin, { data: 'x' }), 400, 'INVALID_BODY');
    expectCode(await live('get', '/api/jobs/{id}', '/api/jobs/nope', viewer), 404, 'UNKNOWN_JOB');
    expectCode(await live('get', '/api/audit', '/api/audit', viewer), 403, 'FORBIDDEN');
    expectCode(await live('get', '/api/me', '/api/me', { token: 'wrong-token-0123456789' }), 401, 'UNAUTHENTICATED');
    expectCode(await live('get', '/api/ensembles/{name}/sizing', '/api/ensembles/it/sizing?down=99', viewer), 400, 'UNKNOWN_MEMBER');
    expectCode(await live('delete', '/api/share-links/{id}', '/api/share-links/nope', admin), 404, 'UNKNOWN_SHARE_LINK');
    const holder = await holderOf('/ensembles/it/znodes/hc/text');
    expectCode(await live('get', '/api/ensembles/{name}/znodes/{path}', '/api/ensembles/it/znodes/hc/other', holder), 403, 'OUT_OF_SCOPE');
    expectCode(await live('get', '/api/ensembles/{name}/data/{path}', '/api/ensembles/it/data/hc/absent', viewer), 404, 'NO_NODE');
  });

  it('covered every kind of route', () => {
    const routes = new Set([...checked].map((c) => c.split(' ').slice(0, 2).join(' ')));
    expect(routes.size).toBeGreaterThanOrEqual(32);
  });
});

describe('GET /api/ensembles/<name>/data/<path>', () => {
  it('answers the stored bytes exactly, 900 KiB of binary, with the version to write back', async () => {
    const res = await bytesOf('/api/ensembles/it/data/hc/bin', viewer);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    // RFC 6266: a plain name needs no quotes (Express's content-disposition decides).
    expect(res.headers.get('content-disposition')).toBe('attachment; filename=bin');
    expect(res.headers.get('x-keeper-version')).toBe('0');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(BIG.length);
    expect(body.equals(BIG)).toBe(true);
    // Unchanged: the browser's copy is still good.
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"0x[0-9a-f]+"$/);
    expect(res.headers.get('x-keeper-mzxid')).toBe(etag!.slice(1, -1));
    // (fetch adds Cache-Control: no-cache to a conditional request unless one is given, and that disables revalidation.)
    expect((await bytesOf('/api/ensembles/it/data/hc/bin', viewer, { 'if-none-match': etag!, 'cache-control': 'max-age=0' })).status).toBe(304);
  });

  it('round-trips a value written through the API, read back by another client', async () => {
    const next = randomBytes(700 * 1024);
    const set = await api('PUT', '/api/ensembles/it/znodes/hc/bin', admin, { data: next.toString('base64'), encoding: 'base64', version: 0 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const res = await bytesOf('/api/ensembles/it/data/hc/bin', admin);
    expect(res.headers.get('x-keeper-version')).toBe('1');
    expect(Buffer.from(await res.arrayBuffer()).equals(next)).toBe(true);
    expect((await getRaw('/hc/bin')).equals(next)).toBe(true);
  });

  it('reads an empty value and the root', async () => {
    const empty = await bytesOf('/api/ensembles/it/data/hc/empty', viewer);
    expect(empty.status).toBe(200);
    expect((await empty.arrayBuffer()).byteLength).toBe(0);
    const root = await bytesOf('/api/ensembles/it/data', viewer);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-disposition')).toBe('attachment; filename=it-root');
  });

  it(`reads the value of a node with ${MANY_CHILDREN} children (more than an export takes)`, async () => {
    const exported = await api('GET', '/api/ensembles/it/export/hc/many', admin);
    expect(exported.body.error.code).toBe('TOO_MANY_NODES');
    const res = await bytesOf('/api/ensembles/it/data/hc/many', viewer);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(BIG.subarray(0, 100 * 1024))).toBe(true);
  });

  it('lets a share holder read within its scope and refuses outside it', async () => {
    const holder = await holderOf('/ensembles/it/znodes/hc/bin');
    const inside = await bytesOf('/api/ensembles/it/data/hc/bin', holder);
    expect(inside.status).toBe(200);
    expect((await inside.arrayBuffer()).byteLength).toBeGreaterThan(64 * 1024);
    const outside = await api('GET', '/api/ensembles/it/data/hc/text', holder);
    expect(outside.status).toBe(403);
    expect(outside.body.error.code).toBe('OUT_OF_SCOPE');
    expectDocumented('get', '/api/ensembles/{name}/data/{path}', outside);
  });

  it('answers an unknown ensemble and an invalid path with the contract codes', async () => {
    const unknown = await api('GET', '/api/ensembles/nope/data/hc/bin', viewer);
    expect(unknown.body.error.code).toBe('UNKNOWN_ENSEMBLE');
    expectDocumented('get', '/api/ensembles/{name}/data/{path}', unknown);
    const invalid = await api('GET', '/api/ensembles/it/data/hc/bin/', viewer);
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('INVALID_PATH');
    expectDocumented('get', '/api/ensembles/{name}/data/{path}', invalid);
  });
});
