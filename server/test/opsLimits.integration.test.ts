/**
 * ZooKeeper's real limits, on a real ensemble (issue 10, items 5, 6 and 14):
 *  - the size boundary is exact: the largest value Keeper accepts at a path is written by the
 *    members, one byte more is refused before sending, and the console's shared session never
 *    disconnects (while a raw client sending that one byte more IS dropped by the member);
 *  - an import of three 1 MiB nodes is refused by its dry run and by the import itself;
 *  - an ACL that locks the console out needs the path typed back, and the node then stays
 *    deletable through Keeper;
 *  - one unreadable node does not fail a subtree export or count: it is named and skipped;
 *  - nothing is created under /zookeeper, while a stray node someone else put there can be deleted.
 * kazoo and a raw client are the independent witnesses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_JUTE_MAX_BUFFER, maxDataBytesFor, type ExportDocument, type JobSnapshot } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { kazoo } from '../../scripts/lib/kazoo/index.js';
import { call, type Who } from './support/http.js';

const ADMIN = 'limits-admin-token-0123456789abcdef';
const admin: Who = { token: ADMIN };
const LOCKED_ACL = [{ scheme: 'ip', id: '10.9.9.9', perms: 'cdrwa' }];

let ensemble: SharedEnsemble;
let keeper: RunningKeeper;
let other: RawClient;
let stateDir: string;
let watchFrom = 0;
let sessionAtStart: string | null = null;

const api = (method: string, path: string, body?: unknown) => call(keeper.url, method, path, admin, body);
/** A node's stat as an export carries it (the import does not use it). */
const stat = { version: 0, aversion: 0, cversion: 0, ctime: 0, mtime: 0, dataLength: 0, numChildren: 0, ephemeral: false };
/** An export from another ensemble, with these nodes under its root. */
const exportOf = (nodes: ExportDocument['nodes']): ExportDocument => ({
  format: 'keeper-export',
  version: 1,
  ensemble: 'elsewhere',
  root: '/x',
  exportedAt: Date.now(),
  nodes,
});
const url = (kind: string, path: string) => `/api/ensembles/it/${kind}${path}`;

function consoleSession() {
  return keeper.ensembles.get('it').gateway.session;
}

/** The console's timeline since the test began: no disconnection, no new session. */
function expectSessionUndisturbed(): void {
  const session = consoleSession();
  const since = session.timeline.filter((e) => e.at >= watchFrom);
  expect(since.filter((e) => e.state === 'disconnected' || e.state === 'expired' || e.state === 'connecting')).toEqual([]);
  expect(session.state).toBe('connected');
  expect(session.sessionId).toBe(sessionAtStart);
}

function rawCall<T>(run: (cb: (error: unknown, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
}

const lockWithRawClient = (path: string) =>
  rawCall<unknown>((cb) =>
    other.client.setACL(path, [new zookeeper.ACL(zookeeper.Permission.ALL, new zookeeper.Id('ip', '10.9.9.9'))], -1, (e, s) => cb(e, s)),
  );

async function settled(id: string): Promise<JobSnapshot> {
  return (await waitFor<JobSnapshot | null>(
    async () => {
      const job = (await api('GET', `/api/jobs/${id}`)).body.job as JobSnapshot;
      return job.state === 'running' ? null : job;
    },
    { what: `job ${id} to end`, timeoutMs: 60_000, intervalMs: 100 },
  )) as JobSnapshot;
}

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-limits-'));
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      // The same ensemble twice: as it is, and as if its members' jute.maxbuffer were 64 KiB.
      ensembles: [
        { name: 'it', connectionString: ensemble.connectionString },
        { name: 'small', connectionString: ensemble.connectionString, juteMaxBuffer: 65_536 },
      ],
      auth: { stateDir, adminToken: ADMIN },
    },
    { logger: testLogger, rateLimits: { api: 1_000_000, loginFailures: 1_000_000 } },
  );
  other = await connectRaw(ensemble.connectionString);
  await waitFor(() => consoleSession().state === 'connected', { what: 'console connected' });
  await other.mkdirp('/limits');
}, 120_000);

afterEach(() => {
  expectSessionUndisturbed();
});

afterAll(async () => {
  other?.close();
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('the size limit is exact, and refused before sending', () => {
  it('setData: the largest value Keeper accepts is written by the members; one byte more is refused, the session never drops', async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const path = '/limits/boundary-set';
    await other.create(path, 'v0');
    const max = maxDataBytesFor({ op: 'setData', path, dataBytes: 0 }, DEFAULT_JUTE_MAX_BUFFER);
    expect(max).toBe(1_048_555 - Buffer.byteLength(path));

    const over = await api('PUT', url('znodes', path), { data: Buffer.alloc(max + 1, 7).toString('base64'), encoding: 'base64', version: 0 });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('DATA_TOO_LARGE');
    expect(over.body.error.message).toContain("1 over the ensemble's limit of 1,048,575");
    expect(over.body.error.message).toMatch(/jute\.maxbuffer on every ZooKeeper member and Keeper's "juteMaxBuffer" setting/);

    const atMax = await api('PUT', url('znodes', path), { data: Buffer.alloc(max, 7).toString('base64'), encoding: 'base64', version: 0 });
    expect(atMax.status).toBe(200);
    expect(atMax.body.stat).toMatchObject({ version: 1, dataLength: max });
    const [read] = (await kazoo(ensemble.connectionString, [{ op: 'get', path }])) as [{ version: number; data: string }];
    expect(read.version).toBe(1);
    expect(Buffer.byteLength(read.data)).toBe(max);
  });

  it("the boundary is the member's: a raw client sending one byte more IS dropped", async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const path = '/limits/boundary-raw';
    await other.create(path, 'v0');
    const max = maxDataBytesFor({ op: 'setData', path, dataBytes: 0 }, DEFAULT_JUTE_MAX_BUFFER);
    const dropped = await rawCall((cb) => other.client.setData(path, Buffer.alloc(max + 1), -1, (e) => cb(e))).then(
      () => null,
      (error: unknown) => error as { code?: number; name?: string },
    );
    expect(dropped?.code).toBe(zookeeper.Exception.CONNECTION_LOSS);
    // Nothing of it was applied; and the raw client comes back on its own.
    await waitFor(async () => (await rawCall<Buffer>((cb) => other.client.getData(path, (e, d) => cb(e, d))).catch(() => null))?.toString() === 'v0', {
      what: 'raw client back, value unchanged',
    });
  });

  it('create: the largest value for the path and its ACL is created; one byte more is refused before sending', async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const path = '/limits/boundary-create';
    const max = maxDataBytesFor({ op: 'create', path, dataBytes: 0, acl: [{ scheme: 'world', id: 'anyone' }] }, DEFAULT_JUTE_MAX_BUFFER);
    const over = await api('POST', url('znodes', path), { data: Buffer.alloc(max + 1, 1).toString('base64'), encoding: 'base64' });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('DATA_TOO_LARGE');
    const [absent] = await kazoo(ensemble.connectionString, [{ op: 'get', path }]);
    expect(absent).toBeNull();
    const atMax = await api('POST', url('znodes', path), { data: Buffer.alloc(max, 1).toString('base64'), encoding: 'base64' });
    expect(atMax.status).toBe(201);
    const [read] = (await kazoo(ensemble.connectionString, [{ op: 'get', path }])) as [{ data: string }];
    expect(Buffer.byteLength(read.data)).toBe(max);
  });

  it("the limit is the ensemble's own setting", async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const path = '/limits/configured';
    await other.create(path, 'v0');
    const body = { data: Buffer.alloc(65_536, 5).toString('base64'), encoding: 'base64', version: 0 };
    const refused = await call(keeper.url, 'PUT', `/api/ensembles/small/znodes${path}`, admin, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/over the ensemble's limit of 65,536/);
    expect((await api('PUT', url('znodes', path), body)).status).toBe(200);
  });

  it('an import of three 1 MiB nodes is refused by its dry run, and by the import itself, with nothing written', async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const mib = Buffer.alloc(1_048_576, 3).toString('base64');
    const node = (rel: string, data: string) => ({
      rel,
      data,
      encoding: 'base64' as const,
      acl: [{ scheme: 'world' as const, id: 'anyone', permissions: 31 }],
      stat: { version: 0, aversion: 0, cversion: 0, ctime: 0, mtime: 0, dataLength: 0, numChildren: 0, ephemeral: false },
    });
    const doc: ExportDocument = {
      format: 'keeper-export',
      version: 1,
      ensemble: 'elsewhere',
      root: '/big',
      exportedAt: Date.now(),
      nodes: [node('', ''), node('a', mib), node('b', mib), node('c', mib)],
    };
    const dry = await api('POST', `${url('import', '/limits/imported')}?dryRun=true`, doc);
    expect(dry.status).toBe(200);
    expect(dry.body.plan.problemsTotal).toBe(3);
    expect(dry.body.plan.problems.map((p: { path: string; reason: string }) => `${p.path} ${p.reason}`).sort()).toEqual([
      '/limits/imported/a tooLarge',
      '/limits/imported/b tooLarge',
      '/limits/imported/c tooLarge',
    ]);
    const run = await api('POST', url('import', '/limits/imported'), doc);
    expect(run.status).toBe(400);
    expect(run.body.error.code).toBe('IMPORT_REFUSED');
    const [absent] = await kazoo(ensemble.connectionString, [{ op: 'get', path: '/limits/imported' }]);
    expect(absent).toBeNull();
  });

  it('the dry run also finds duplicate paths and ACLs ZooKeeper would refuse or that block the children', async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const world = [{ scheme: 'world' as const, id: 'anyone', permissions: 31 }];
    const doc = exportOf([
      { rel: '', data: '', encoding: 'utf8', acl: world, stat },
      { rel: 'twice', data: 'YQ==', encoding: 'utf8', acl: world, stat },
      { rel: 'twice', data: 'Yg==', encoding: 'utf8', acl: world, stat },
      { rel: 'auth', data: '', encoding: 'utf8', acl: [{ scheme: 'auth', id: '', permissions: 31 }], stat },
      { rel: 'fenced', data: '', encoding: 'utf8', acl: [{ scheme: 'ip', id: '10.9.9.9', permissions: 31 }], stat },
      { rel: 'fenced/child', data: '', encoding: 'utf8', acl: world, stat },
    ]);
    const dry = await api('POST', `${url('import', '/limits/checked')}?dryRun=true`, doc);
    expect(dry.status).toBe(200);
    const found = (dry.body.plan.problems as { path: string; reason: string }[]).map((p) => `${p.path} ${p.reason}`).sort();
    expect(found).toEqual([
      '/limits/checked/auth invalidAcl',
      '/limits/checked/fenced aclDeniesChildren',
      '/limits/checked/fenced aclLocksOut',
      '/limits/checked/twice duplicatePath',
    ]);
  });

  it('refuses an import whose ACLs would lock the console out, as PUT …/acl does, and writes nothing', async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const doc = exportOf([
      { rel: '', data: '', encoding: 'utf8', acl: [{ scheme: 'world', id: 'anyone', permissions: 31 }], stat },
      // Another's digest only: the console could not read it back, nor change its ACL.
      { rel: 'carol', data: '', encoding: 'utf8', acl: [{ scheme: 'digest', id: 'carol:aGFzaGhhc2hoYXNoaGFzaGhhc2g=', permissions: 31 }], stat },
      // Read for all: no one, the console included, may change its ACL back.
      { rel: 'read-only', data: '', encoding: 'utf8', acl: [{ scheme: 'world', id: 'anyone', permissions: 1 }], stat },
    ]);
    const dry = await api('POST', `${url('import', '/limits/locking')}?dryRun=true`, doc);
    expect(dry.status).toBe(200);
    const found = (dry.body.plan.problems as { path: string; reason: string; detail: string }[]).map((p) => `${p.path} ${p.reason}`).sort();
    expect(found).toEqual(['/limits/locking/carol aclLocksOut', '/limits/locking/read-only aclLocksOut']);
    const carol = (dry.body.plan.problems as { path: string; detail: string }[]).find((p) => p.path.endsWith('/carol'))!;
    // The digest's hash stays out of the words.
    expect(carol.detail).toContain('digest:carol:…:cdrwa');
    expect(carol.detail).not.toContain('aGFzaGhh');
    const run = await api('POST', url('import', '/limits/locking'), doc);
    expect(run.status).toBe(400);
    expect(run.body.error.code).toBe('IMPORT_REFUSED');
    const [absent] = await kazoo(ensemble.connectionString, [{ op: 'get', path: '/limits/locking' }]);
    expect(absent).toBeNull();
  });
});

describe('a body nested deeper than any request', () => {
  it('is refused before it is parsed: 10 MB of nested arrays to the import, 400, the ensemble unchanged and Keeper answering', async () => {
    const depth = 5_000_000;
    const res = await fetch(`${keeper.url}${url('import', '/limits/deep')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: '['.repeat(depth) + ']'.repeat(depth),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'INVALID_BODY', message: expect.stringContaining('nests deeper than 32 levels') });
    const [absent] = await kazoo(ensemble.connectionString, [{ op: 'get', path: '/limits/deep' }]);
    expect(absent).toBeNull();
    expect((await api('GET', '/api/me')).status).toBe(200);
  });
});

describe('an ACL that locks the console out', () => {
  it('ip:10.9.9.9 is refused without confirmation, applied with it, and the node is still deletable', async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const path = '/limits/locked';
    expect((await api('POST', url('znodes', path), { data: 'x' })).status).toBe(201);

    const refused = await api('PUT', url('acl', path), { acl: LOCKED_ACL, version: 0 });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('ACL_LOCKS_OUT');
    expect(refused.body.error.message).toMatch(/no entry grants read and admin to the console/);
    expect(refused.body.error.message).toMatch(/address 127\.0\.0\.1/);
    const wrong = await api('PUT', url('acl', path), { acl: LOCKED_ACL, version: 0, confirm: '/limits/lock' });
    expect(wrong.status).toBe(409);
    const [unchanged] = (await kazoo(ensemble.connectionString, [{ op: 'snapshot', path }])) as [Record<string, { acl: string[] }>];
    expect(unchanged[path]?.acl).toEqual(['world:anyone:31']);

    const applied = await api('PUT', url('acl', path), { acl: LOCKED_ACL, version: 0, confirm: path });
    expect(applied.status).toBe(200);
    // Locked out indeed: the console can no longer read it...
    expect((await api('GET', url('znodes', path))).status).toBe(403);
    // ...but deletes it: exists needs no permission, and delete needs DELETE on the parent only.
    const deleted = await api('DELETE', `${url('znodes', path)}?version=0`);
    expect(deleted.status).toBe(200);
    const [gone] = await kazoo(ensemble.connectionString, [{ op: 'get', path }]);
    expect(gone).toBeNull();
  });

  it("an ACL that keeps the console's access needs no confirmation", async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const path = '/limits/open';
    await other.create(path, 'x');
    const ok = await api('PUT', url('acl', path), { acl: [{ scheme: 'ip', id: '127.0.0.0/8', perms: 'cdrwa' }], version: 0 });
    expect(ok.status).toBe(200);
    expect((await api('GET', url('znodes', path))).status).toBe(200);
  });

  it('a recursive delete of an unreadable node with children deletes nothing and names it', async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    await other.mkdirp('/limits/fenced-tree/inner/leaf');
    await lockWithRawClient('/limits/fenced-tree/inner');
    const start = await api('DELETE', `${url('znodes', '/limits/fenced-tree')}?version=0&recursive=true`);
    expect(start.status).toBe(202);
    const job = await settled(start.body.job.id);
    expect(job.state).toBe('failed');
    expect(job.error?.code).toBe('NO_AUTH');
    expect(job.error?.message).toContain('/limits/fenced-tree/inner (1 children)');
    const [leaf] = await kazoo(ensemble.connectionString, [{ op: 'get', path: '/limits/fenced-tree/inner/leaf' }]);
    expect(leaf).not.toBeNull();
  });
});

describe('one unreadable node does not fail a walk', () => {
  it('a subtree export completes, leaves the unreadable node out and names it; the count says where it is short', async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    for (const p of ['/limits/exp/a', '/limits/exp/b/below', '/limits/exp/c']) await other.mkdirp(p);
    await lockWithRawClient('/limits/exp/b');
    const exported = await api('GET', url('export', '/limits/exp'));
    expect(exported.status).toBe(200);
    const doc = exported.body as ExportDocument;
    expect(doc.nodes.map((n) => n.rel).sort()).toEqual(['', 'a', 'c']);
    expect(doc.skipped).toEqual([{ path: '/limits/exp/b', reason: expect.stringMatching(/may not read it.*its 1 child and everything below were not seen/) }]);

    const count = await api('GET', url('subtree', '/limits/exp'));
    expect(count.status).toBe(200);
    expect(count.body).toMatchObject({ count: 4, skippedTotal: 1, skipped: [{ path: '/limits/exp/b', children: 1 }] });
  });
});

describe('/zookeeper', () => {
  it('nothing is created under it; a stray node someone else put there can be deleted', async () => {
    watchFrom = Date.now();
    sessionAtStart = consoleSession().sessionId;
    const refused = await api('POST', url('znodes', '/zookeeper/evil'), { data: 'x' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('PROTECTED_PATH');
    const [absent] = await kazoo(ensemble.connectionString, [{ op: 'get', path: '/zookeeper/evil' }]);
    expect(absent).toBeNull();

    await other.create('/zookeeper/stray', 'oops');
    expect((await api('DELETE', `${url('znodes', '/zookeeper/stray')}?version=0`)).status).toBe(200);
    const [gone] = await kazoo(ensemble.connectionString, [{ op: 'get', path: '/zookeeper/stray' }]);
    expect(gone).toBeNull();
    // ZooKeeper's own stay protected.
    expect((await api('DELETE', `${url('znodes', '/zookeeper/config')}?version=0`)).body.error.code).toBe('PROTECTED_PATH');
    expect((await api('DELETE', `${url('znodes', '/zookeeper/quota')}?version=0`)).body.error.code).toBe('PROTECTED_PATH');
  });
});
