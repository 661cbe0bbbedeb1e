/**
 * A write whose outcome is uncertain, on a real ensemble, through each of its two branches: a
 * loopback proxy between Keeper and a member loses either the write's reply (the member applied
 * it) or the write itself (nothing applied), then goes silent like a hung member. Keeper must
 * leave the connection, reconnect, read back, and say which branch it took: "applied" (not
 * re-sent, or it would apply twice) or "not applied; re-sent once". kazoo is the witness that
 * the znode changed exactly once; the audit trail carries the same note as the answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { readAuditFile } from '../src/audit/auditLog.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { LossyProxy, type Loss, type ZkOpName } from './support/lossyProxy.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { kazoo, kazooGet, kazooSnapshot } from '../../scripts/lib/kazoo/index.js';
import { call, type ApiResponse } from './support/http.js';
import { z } from 'zod';
import { ReplicaStore } from '../src/replicas/replicaStore.js';

const ADMIN = 'lost-reply-admin-token-0123456789';
const ROOT = '/lost';

let ensemble: SharedEnsemble;
let proxy: LossyProxy;
let keeper: RunningKeeper;
let stateDir: string;

const api = (method: string, path: string, body?: unknown) => call(keeper.url, method, path, { token: ADMIN }, body);
const auditFor = (path: string, action: string): AuditEntry[] => readAuditFile(stateDir).filter((e) => e.path === path && e.action === action);

/** Sends `request` with the proxy set to lose `op`'s reply or the op itself; the answer, once the loss happened. */
async function losing(op: ZkOpName, loss: Loss, request: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const connectionsBefore = proxy.connections;
  const lost = proxy.loseNext(op, loss);
  const answer = await request();
  await lost;
  // The silenced connection was left for a new one: the write's fate was read back, not assumed.
  expect(proxy.connections).toBeGreaterThan(connectionsBefore);
  return answer;
}

/** Makes a node with kazoo and waits until Keeper's member has it. */
async function made(path: string, data: string): Promise<void> {
  await kazoo(ensemble.connectionString, [{ op: 'create', path, data }]);
  await waitFor(async () => (await api('GET', `/api/ensembles/it/znodes${path}`)).status === 200, { what: `${path} visible to the console` });
}

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  const member = ensemble.members[0]!;
  proxy = await LossyProxy.start({ host: member.host, port: member.clientPort });
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-lost-reply-'));
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      // The proxy alone: every connection of the console's session passes through it.
      ensembles: [{ name: 'it', connectionString: proxy.address }],
      auth: { stateDir, adminToken: ADMIN },
    },
    {
      logger: testLogger,
      rateLimits: { api: 100_000, loginFailures: 1_000 },
      // A silent connection is left after 2/3 of the session timeout (2 s), well within a request's deadline.
      gatewayDefaults: { sessionTimeoutMs: 3_000, requestDeadlineMs: 8_000 },
    },
  );
  await kazoo(ensemble.connectionString, [{ op: 'create', path: `${ROOT}/ready`, data: 'x' }]);
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
}, 120_000);

afterAll(async () => {
  await keeper?.close();
  await proxy?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('create', () => {
  it('reply lost after the member applied it: read back as created, not re-sent, created once', async () => {
    const path = `${ROOT}/create-applied`;
    const res = await losing('create', 'reply', () => api('POST', `/api/ensembles/it/znodes${path}`, { data: 'once' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.note).toBe('reply lost; read back: created');
    expect(await kazooGet(ensemble.connectionString, path)).toMatchObject({ data: 'once', version: 0 });
    expect(auditFor(path, 'create').at(-1)).toMatchObject({ outcome: 'ok', note: res.body.note, after: { version: 0, size: 4 } });
  });

  it('request lost before the member saw it: read back as not created, re-sent once, created once', async () => {
    const path = `${ROOT}/create-resent`;
    const res = await losing('create', 'request', () => api('POST', `/api/ensembles/it/znodes${path}`, { data: 'once' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.note).toBe('reply lost; read back: not created; re-sent once');
    expect(await kazooGet(ensemble.connectionString, path)).toMatchObject({ data: 'once', version: 0 });
    expect(auditFor(path, 'create').at(-1)).toMatchObject({ outcome: 'ok', note: res.body.note, after: { version: 0, size: 4 } });
  });
});

describe('setData', () => {
  it('reply lost after the member applied it: read back as applied, version moved by one', async () => {
    const path = `${ROOT}/set-applied`;
    await made(path, 'v0');
    const res = await losing('setData', 'reply', () => api('PUT', `/api/ensembles/it/znodes${path}`, { data: 'v1', version: 0 }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.note).toBe('reply lost; read back: applied');
    expect(await kazooGet(ensemble.connectionString, path)).toMatchObject({ data: 'v1', version: 1 });
  });

  it('request lost before the member saw it: read back as not applied, re-sent once, version moved by one', async () => {
    const path = `${ROOT}/set-resent`;
    await made(path, 'v0');
    const res = await losing('setData', 'request', () => api('PUT', `/api/ensembles/it/znodes${path}`, { data: 'v1', version: 0 }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.note).toBe('reply lost; read back: not applied; re-sent once');
    expect(await kazooGet(ensemble.connectionString, path)).toMatchObject({ data: 'v1', version: 1 });
  });
});

describe("the replicas' compare-and-set update", () => {
  // Two replicas read n = 0 and both write n = 1: the same bytes. The loser's reply is lost; read
  // back, the znode holds its bytes at the next version. Without a mark of its own in each write it
  // would call the winner's write its own, and one increment would be lost (seen at a load of 4).
  it("never takes another writer's identical change for its own when its reply is lost", async () => {
    await kazoo(ensemble.connectionString, [{ op: 'create', path: `${ROOT}/store`, data: '' }]);
    const { gateway, mutations } = keeper.ensembles.get('it');
    const store = new ReplicaStore({ gateway, mutations, root: `${ROOT}/store`, acl: [{ scheme: 'world', id: 'anyone', permissions: 31 }], log: testLogger });
    const path = store.path('counter');
    const counter = z.object({ n: z.number() });
    await store.create(path, { n: 0 });
    let lost: Promise<void> | null = null;
    const stored = await store.update(path, counter, async (current) => {
      if (!lost) {
        // Between this replica's read and its write, another writer makes the same change; this
        // replica's write then reaches the member (refused: the version moved) and its reply is lost.
        await kazoo(ensemble.connectionString, [{ op: 'set', path, data: JSON.stringify({ n: 1 }) }]);
        lost = proxy.loseNext('setData', 'reply');
      }
      return { n: (current?.n ?? 0) + 1 };
    });
    await lost;
    expect(stored.value).toEqual({ n: 2 });
    expect(await store.read(path, counter)).toMatchObject({ value: { n: 2 }, stat: { version: 2 } });
  });
});

describe('setACL', () => {
  const acl = [{ scheme: 'world', id: 'anyone', perms: 'rw' }];

  it('reply lost after the member applied it: read back as applied, aversion moved by one', async () => {
    const path = `${ROOT}/acl-applied`;
    await made(path, 'a');
    const res = await losing('setACL', 'reply', () => api('PUT', `/api/ensembles/it/acl${path}`, { acl, version: 0, confirm: path }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.note).toBe('reply lost; read back: applied');
    expect((await kazooSnapshot(ensemble.connectionString, path))[path]).toMatchObject({ aversion: 1, acl: ['world:anyone:3'] });
    expect(auditFor(path, 'setAcl').at(-1)).toMatchObject({ outcome: 'ok', note: res.body.note, details: { aclVersionBefore: 0, aclVersionAfter: 1 } });
  });

  it('request lost before the member saw it: read back as not applied, re-sent once, aversion moved by one', async () => {
    const path = `${ROOT}/acl-resent`;
    await made(path, 'a');
    const res = await losing('setACL', 'request', () => api('PUT', `/api/ensembles/it/acl${path}`, { acl, version: 0, confirm: path }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.note).toBe('reply lost; read back: not applied; re-sent once');
    expect((await kazooSnapshot(ensemble.connectionString, path))[path]).toMatchObject({ aversion: 1, acl: ['world:anyone:3'] });
  });
});

describe('delete', () => {
  it('reply lost after the member applied it: read back as deleted, not re-sent', async () => {
    const path = `${ROOT}/delete-applied`;
    await made(path, 'bye');
    const res = await losing('delete', 'reply', () => api('DELETE', `/api/ensembles/it/znodes${path}?version=0`));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.note).toBe('reply lost; read back: deleted');
    expect(await kazooGet(ensemble.connectionString, path)).toBeNull();
    expect(auditFor(path, 'delete').at(-1)).toMatchObject({ outcome: 'ok', note: res.body.note, before: { version: 0, size: 3 }, after: null });
  });

  it('request lost before the member saw it: read back as still there, re-sent once, gone', async () => {
    const path = `${ROOT}/delete-resent`;
    await made(path, 'bye');
    const res = await losing('delete', 'request', () => api('DELETE', `/api/ensembles/it/znodes${path}?version=0`));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.note).toBe('reply lost; read back: still there; re-sent once');
    expect(await kazooGet(ensemble.connectionString, path)).toBeNull();
  });
});
