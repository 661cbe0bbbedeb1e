/**
 * Long and risky operations on a real ensemble: a recursive delete of 10,000 nodes with
 * progress, with the leader killed midway, and cancelled; export and import; and ~1,000
 * fuzzed socket frames and HTTP bodies that must leave the server up and the ensemble as it was.
 * kazoo is the independent witness throughout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REPORTED_REMAINING, PROTOCOL_VERSION, type JobSnapshot } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { connectRaw, createMany, type RawClient } from './support/rawClient.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { kazoo, kazooGet, kazooSnapshot } from '../../scripts/lib/kazoo/index.js';
import { call, type Who } from './support/http.js';
import { pick, randomInt, randomString, seeded } from '../../shared/test/support/random.js';

const ADMIN = 'ops-admin-token-0123456789abcdef';
const VIEWER = 'ops-viewer-token-0123456789abcdef';
const admin: Who = { token: ADMIN };

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let keeper: RunningKeeper;
let other: RawClient;
let stateDir: string;
const browsers: TestBrowser[] = [];
/** The kill-midway delete holds after this many deletes until the test has killed the leader. */
const KILL_HOLD_AFTER = 1_500;
const leaderKilled = (() => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
})();

const api = (method: string, path: string, who: Who = admin, body?: unknown, opts?: { raw?: boolean; contentType?: string }) =>
  call(keeper.url, method, path, who, body, opts);

async function open(headers: Record<string, string> = { authorization: `Bearer ${ADMIN}` }): Promise<TestBrowser> {
  const b = await TestBrowser.open(keeper.url, { headers });
  browsers.push(b);
  return b;
}

/** root + `dirs` children, each with `perDir` children: 1 + dirs * (1 + perDir) nodes. */
async function populate(root: string, dirs: number, perDir: number): Promise<number> {
  await other.mkdirp(root);
  const paths: string[] = [];
  for (let d = 0; d < dirs; d++) paths.push(`${root}/d${d}`);
  await createMany(
    other.client,
    paths.map((path) => ({ path, data: 'x' })),
  );
  const leaves: string[] = [];
  for (let d = 0; d < dirs; d++) for (let c = 0; c < perDir; c++) leaves.push(`${root}/d${d}/n${c}`);
  await createMany(
    other.client,
    leaves.map((path) => ({ path, data: 'x' })),
  );
  // The writes went through another session, maybe to another member: Keeper's member may not have
  // applied them all yet (a count of 9,876 of 10,001 once, in a new-machine rehearsal). A sync on
  // Keeper's session brings its member level with the leader before the test reads through Keeper.
  await keeper.ensembles.get('it').gateway.sync({ deadlineMs: 30_000 });
  return 1 + dirs * (1 + perDir);
}

async function jobOf(id: string): Promise<JobSnapshot> {
  return (await api('GET', `/api/jobs/${id}`)).body.job as JobSnapshot;
}

async function settled(id: string, timeoutMs = 180_000): Promise<JobSnapshot> {
  return waitFor<JobSnapshot | null>(
    async () => {
      const job = await jobOf(id);
      return job.state === 'running' ? null : job;
    },
    { what: `job ${id} to end`, timeoutMs, intervalMs: 100 },
  ) as Promise<JobSnapshot>;
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.opsTest);
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-ops-'));
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      ensembles: [{ name: 'it', connectionString: ensemble.connectionString }],
      auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
    },
    {
      logger: testLogger,
      rateLimits: { api: 1_000_000, loginFailures: 1_000_000 },
      recursiveDelete: { concurrency: 16, stallMs: 30_000, hold: { root: '/rd/kill', afterDeletes: KILL_HOLD_AFTER, until: leaderKilled.promise } },
    },
  );
  other = await connectRaw(ensemble.connectionString);
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
}, 120_000);

afterAll(async () => {
  for (const b of browsers) b.close();
  other?.close();
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('fuzzing', () => {
  const SEED = 4_2025;

  function junkJson(random: () => number, depth: number): unknown {
    switch (randomInt(random, depth <= 0 ? 5 : 8)) {
      case 0:
        return null;
      case 1:
        return pick(random, [0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, -0, 1e308, 999]);
      case 2:
        return randomString(random, 'ab/\\"\u0000\u00e9\ud800 =+', 12);
      case 3:
        return random() < 0.5;
      case 4:
        return 'x'.repeat(randomInt(random, 3000));
      case 5:
        return Array.from({ length: randomInt(random, 4) }, () => junkJson(random, depth - 1));
      default: {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < randomInt(random, 4); i++)
          out[pick(random, ['data', 'version', 'encoding', 'mode', 'acl', '__proto__', 'type', 'path', 'x'])] = junkJson(random, depth - 1);
        return out;
      }
    }
  }

  function mutate(random: () => number, s: string): string {
    let out = s;
    for (let e = 0; e < 1 + randomInt(random, 3); e++) {
      const at = randomInt(random, out.length + 1);
      const ch = pick(random, ['"', '{', '}', ',', ':', '\\', '\u0000', '\ud800', 'x', ' ', '[', ']']);
      out = random() < 0.5 ? out.slice(0, at) + ch + out.slice(at) : out.slice(0, at) + out.slice(at + 1);
    }
    return out;
  }

  // Every message and topic the socket takes (it carries no writes: nothing it is sent can change the ensemble).
  const TEMPLATES = [
    { type: 'subscribe', topic: 'znode', ensemble: 'it', params: { path: '/fuzz/existing' }, id: 'f' },
    { type: 'unsubscribe', topic: 'znode', ensemble: 'it', params: { path: '/fuzz/existing' }, id: 'f' },
    { type: 'subscribe', topic: 'consoleSession', ensemble: 'it', params: {}, id: 'f' },
    { type: 'subscribe', topic: 'ensembleHealth', ensemble: 'it', params: {}, id: 'f' },
    { type: 'subscribe', topic: 'jobs', ensemble: 'it', params: {}, id: 'f' },
    { type: 'unsubscribe', topic: 'jobs', ensemble: 'it', params: {}, id: 'f' },
    { type: 'hello', protocolVersion: PROTOCOL_VERSION, id: 'f' },
    { type: 'ping', id: 'f' },
  ];

  function frame(random: () => number): string {
    const template = pick(random, TEMPLATES);
    switch (randomInt(random, 5)) {
      case 0:
        return mutate(random, JSON.stringify(template));
      case 1: {
        const m: Record<string, unknown> = { ...template };
        m[pick(random, [...Object.keys(m), 'params', 'topic', 'path'])] = junkJson(random, 3);
        return JSON.stringify(m);
      }
      case 2:
        return JSON.stringify(junkJson(random, 5));
      case 3: {
        const s = JSON.stringify(template);
        return s.slice(0, randomInt(random, s.length));
      }
      default:
        return Array.from({ length: randomInt(random, 80) }, () => String.fromCharCode(randomInt(random, 0x10000))).join('');
    }
  }

  const ROUTES: [string, string][] = [
    ['POST', '/api/ensembles/it/znodes/fuzz-missing/a/b'],
    ['PUT', '/api/ensembles/it/znodes/fuzz/existing'],
    ['PUT', '/api/ensembles/it/acl/fuzz/existing'],
    ['POST', '/api/ensembles/it/import/fuzz-missing/a/b'],
    ['POST', '/api/ensembles/it/import/fuzz-missing/a/b?dryRun=true'],
    ['POST', '/api/login'],
    ['DELETE', '/api/ensembles/it/znodes/fuzz/existing?version=999'],
    ['DELETE', '/api/ensembles/it/znodes/fuzz?version=abc&recursive=maybe'],
  ];

  it('~1,000 malformed frames and bodies leave the server up and the ensemble unchanged', async () => {
    await kazoo(ensemble.connectionString, [{ op: 'create', path: '/fuzz/existing', data: 'keep me' }]);
    const before = await kazooSnapshot(ensemble.connectionString, '/');
    const random = seeded(SEED);

    // 500 socket frames, split between an admin's socket and a viewer's.
    const sockets = [await open(), await open({ authorization: `Bearer ${VIEWER}` })];
    for (let i = 0; i < 500; i++) pick(random, sockets).send(frame(random));

    // 500 HTTP bodies, as an admin (so validation, not authorization, has to refuse them).
    const statuses = new Map<number, number>();
    const serverErrors: string[] = [];
    for (let i = 0; i < 500; i++) {
      const [method, route] = pick(random, ROUTES);
      const body =
        i % 3 === 0
          ? mutate(random, JSON.stringify({ data: 'x', version: 999, acl: [], username: 'u', password: 'p' }))
          : i % 3 === 1
            ? JSON.stringify(junkJson(random, 5))
            : frame(random);
      const contentType = pick(random, [
        'application/json',
        'application/json',
        'text/plain',
        'application/json; charset=latin1',
        'application/x-www-form-urlencoded',
      ]);
      const res = await api(method, route, admin, body, { raw: true, contentType });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500)
        serverErrors.push(
          `#${i} (seed ${SEED}) ${method} ${route} ${JSON.stringify(body).slice(0, 120)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
        );
      if (res.status >= 400 && (typeof res.body !== 'object' || typeof res.body?.error?.code !== 'string'))
        serverErrors.push(`#${i}: ${res.status} without a JSON error: ${String(res.body).slice(0, 100)}`);
    }
    expect(serverErrors.slice(0, 5)).toEqual([]);
    // Mostly refused as malformed; nothing applied.
    expect([...statuses.keys()].every((s) => s >= 400)).toBe(true);

    // Still up: health, a fresh socket, and the fuzzed sockets themselves still answer.
    expect((await api('GET', '/api/health', {})).body.status).toBe('ok');
    for (const s of sockets) {
      if (s.closeCode !== null) continue;
      s.send({ type: 'ping', id: 'alive' });
      await s.next((m) => m.type === 'pong' && m.id === 'alive');
    }
    const fresh = await open();
    fresh.send({ type: 'ping', id: 'p' });
    await fresh.next((m) => m.type === 'pong');
    // Let any in-flight request finish before looking.
    await new Promise((r) => setTimeout(r, 500));
    expect(await kazooSnapshot(ensemble.connectionString, '/')).toEqual(before);
  }, 180_000);
});

describe('recursive delete', () => {
  it('counts first, then deletes 10,000 nodes with progress over the socket (the jobs topic)', async () => {
    const total = await populate('/rd/big', 100, 99);
    expect(total).toBe(10_001);
    const count = await api('GET', '/api/ensembles/it/subtree/rd/big', { token: VIEWER });
    expect(count.body).toEqual({ path: '/rd/big', count: 10_001, truncated: false, depth: 2 });
    // Export refuses a subtree over its cap, clearly.
    const tooBig = await api('GET', '/api/ensembles/it/export/rd/big');
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('TOO_MANY_NODES');

    const b = await open();
    await b.subscribed('jobs', 'it', {});
    const started = await api('DELETE', '/api/ensembles/it/znodes/rd/big?version=0&recursive=true');
    expect(started.status).toBe(202);
    const jobId = started.body.job.id as string;
    const jobEvents = () => b.topicEvents('jobs', 'it').flatMap((e) => (e.event.job.id === jobId ? [e.event.job] : []));
    await waitFor(() => jobEvents().some((j) => j.state !== 'running'), { what: 'job end over the socket', timeoutMs: 180_000, intervalMs: 100 });
    const final = jobEvents().at(-1)!;
    expect(final).toMatchObject({ state: 'done', done: 10_001, total: 10_001, kind: 'recursiveDelete', startedBy: 'admin-token' });
    const progress = new Set(
      jobEvents()
        .filter((j) => j.state === 'running')
        .map((j) => j.done),
    );
    expect(progress.size).toBeGreaterThanOrEqual(3);
    expect(await kazooGet(ensemble.connectionString, '/rd/big')).toBeNull();
    // Audited: the start and the end.
    const audit = (await api('GET', '/api/audit?limit=20')).body.entries.filter((e: any) => e.action === 'deleteRecursive' && e.path === '/rd/big');
    expect(audit.map((e: any) => [e.details.phase, e.outcome])).toEqual([
      ['end', 'ok'],
      ['start', 'ok'],
    ]);
  }, 240_000);

  // The other branch, a delete that ends with nodes left, is the cancel below: each is taken on purpose.
  it('completes when the leader is killed midway: held after 1,500 deletes, the leader killed, then let go', async () => {
    await populate('/rd/kill', 100, 99);
    const res = await api('DELETE', '/api/ensembles/it/znodes/rd/kill?version=0&recursive=true');
    expect(res.status).toBe(202);
    const id = res.body.job.id as string;
    // The job holds after KILL_HOLD_AFTER deletes until the leader is down: midway for certain.
    await waitFor(async () => (await jobOf(id)).done >= KILL_HOLD_AFTER, { what: 'the delete held midway', timeoutMs: 120_000, intervalMs: 20 });
    expect(await jobOf(id)).toMatchObject({ state: 'running', done: KILL_HOLD_AFTER });
    const leader = await ensemble.leaderId();
    expect(leader).not.toBeNull();
    await ensemble.killMember(leader!);
    leaderKilled.resolve();
    const end = await settled(id);
    await ensemble.startMember(leader!);
    expect(end).toMatchObject({ state: 'done' });
    expect(end.done).toBe(end.total);
    expect(await kazooSnapshot(ensemble.connectionString, '/rd/kill')).toEqual({});
  }, 300_000);

  it('can be cancelled, and then says exactly what remains', async () => {
    await populate('/rd/cancel', 30, 99);
    const res = await api('DELETE', '/api/ensembles/it/znodes/rd/cancel?version=0&recursive=true');
    expect(res.status).toBe(202);
    const started = { jobId: res.body.job.id as string };
    await waitFor(async () => (await jobOf(started.jobId)).done >= 200, { what: 'some progress', intervalMs: 10 });
    const cancelled = await api('DELETE', `/api/jobs/${started.jobId}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.job).toMatchObject({ id: started.jobId, cancelRequested: true });
    const end = await settled(started.jobId);
    expect(end.state).toBe('cancelled');
    const left = await kazooSnapshot(ensemble.connectionString, '/rd/cancel');
    expect(end.remainingVerified).toBe(true);
    expect(end.remainingTotal).toBe(Object.keys(left).length);
    expect(end.remainingTotal).toBeGreaterThan(0);
    expect(end.remaining!.length).toBe(Math.min(end.remainingTotal!, MAX_REPORTED_REMAINING));
    for (const p of end.remaining!) expect(left).toHaveProperty([p]);
    if (end.remainingTotal! <= MAX_REPORTED_REMAINING) expect([...end.remaining!].sort()).toEqual(Object.keys(left).sort());
    expect(end.done + end.remainingTotal!).toBe(end.total);
    // Cancelling a finished job is a clear 409.
    expect((await api('DELETE', `/api/jobs/${started.jobId}`)).status).toBe(409);
    // A viewer may not cancel.
    expect((await api('DELETE', `/api/jobs/${started.jobId}`, { token: VIEWER })).status).toBe(403);
  }, 180_000);
});

describe('export and import', () => {
  it('exports a subtree, shows a diff first, then applies it as a job', async () => {
    await kazoo(ensemble.connectionString, [
      { op: 'create', path: '/ex/app', data: '{"replicas":3}' },
      { op: 'create', path: '/ex/app/a', data: 'alpha' },
      { op: 'create', path: '/ex/app/b/c', data: '' },
    ]);
    await other.client.create('/ex/app/bin', Buffer.from([0, 255, 7]), zookeeper.CreateMode.PERSISTENT, () => undefined);
    await waitFor(async () => (await kazooGet(ensemble.connectionString, '/ex/app/bin')) !== null, { what: 'binary node' });
    const exported = await api('GET', '/api/ensembles/it/export/ex/app', { token: VIEWER });
    expect(exported.status).toBe(200);
    const doc = exported.body;
    expect(doc).toMatchObject({ format: 'keeper-export', version: 1, root: '/ex/app' });
    expect(doc.nodes.map((n: any) => n.rel).sort()).toEqual(['', 'a', 'b', 'b/c', 'bin']);
    const bin = doc.nodes.find((n: any) => n.rel === 'bin');
    expect(bin).toMatchObject({
      data: Buffer.from([0, 255, 7]).toString('base64'),
      encoding: 'base64',
      acl: [{ scheme: 'world', id: 'anyone', perms: 'cdrwa', permissions: 31 }],
    });

    await kazoo(ensemble.connectionString, [{ op: 'create', path: '/im/copy/a', data: 'changed here' }]);
    const dry = await api('POST', '/api/ensembles/it/import/im/copy?dryRun=true', admin, doc);
    expect(dry.status).toBe(200);
    expect(dry.body.plan).toEqual({
      root: '/im/copy',
      create: ['/im/copy/b', '/im/copy/bin', '/im/copy/b/c'],
      update: [],
      unchanged: [],
      conflicts: [
        { path: '/im/copy', reason: 'dataDiffers' },
        { path: '/im/copy/a', reason: 'dataDiffers' },
      ],
    });
    // A dry run changes nothing.
    expect(await kazooGet(ensemble.connectionString, '/im/copy/b')).toBeNull();

    const applied = await api('POST', '/api/ensembles/it/import/im/copy?overwrite=true', admin, doc);
    expect(applied.status).toBe(202);
    const end = await settled(applied.body.job.id);
    expect(end).toMatchObject({ state: 'done', summary: { created: 3, updated: 2, conflicts: 0, failed: 0 } });
    const source = await kazooSnapshot(ensemble.connectionString, '/ex/app');
    const copy = await kazooSnapshot(ensemble.connectionString, '/im/copy');
    const strip = (snap: typeof source, root: string) => Object.fromEntries(Object.entries(snap).map(([p, v]) => [p.slice(root.length), v.data]));
    expect(strip(copy, '/im/copy')).toEqual(strip(source, '/ex/app'));

    const again = await api('POST', '/api/ensembles/it/import/im/copy?dryRun=true', admin, doc);
    expect(again.body.plan.unchanged).toHaveLength(5);
    // Viewers may neither plan nor apply an import.
    expect((await api('POST', '/api/ensembles/it/import/im/copy?dryRun=true', { token: VIEWER }, doc)).status).toBe(403);
  }, 120_000);

  it('refuses a malformed export document with 400', async () => {
    const res = await api('POST', '/api/ensembles/it/import/im/x?dryRun=true', admin, { format: 'keeper-export', version: 2, nodes: [] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_BODY');
  });
});

describe('protocol', () => {
  it('still speaks the same hello', async () => {
    const b = await open();
    expect(b.messages[0]).toMatchObject({ type: 'welcome', protocolVersion: PROTOCOL_VERSION });
  });
});
