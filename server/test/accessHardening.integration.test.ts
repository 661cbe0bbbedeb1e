/**
 * Hardening on a real ensemble, beyond access.integration.test.ts:
 *  - the ensemble's digest credential never reaches an API answer, a socket frame, an error,
 *    the logs or the audit trail (while the console really uses it: an `auth` ACL);
 *  - writes from another site's page are refused, also in the open development mode;
 *  - refused writes count against the API's rate limit (so refusals cannot flood the audit trail);
 *  - the audit trail says what happened for ACLs, writes and imports.
 * kazoo is the independent witness. (A lost reply, each branch of it, is lostReply.integration.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { createLogger } from '../src/logger.js';
import { readAuditFile } from '../src/audit/auditLog.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { kazoo, kazooGet } from '../../scripts/lib/kazoo/index.js';
import { call, type Who } from './support/http.js';

const ADMIN = 'hardening-admin-token-0123456789';
const VIEWER = 'hardening-viewer-token-0123456789';
const DIGEST_PASSWORD = 'Zk-Digest-Pa55word-never-shown';
const DIGEST = `keeper-ops:${DIGEST_PASSWORD}`;
const ROOT = '/hard';

let ensemble: SharedEnsemble;
let keeper: RunningKeeper;
let stateDir: string;
const logLines: string[] = [];
const browsers: TestBrowser[] = [];
const admin: Who = { token: ADMIN };

const api = (method: string, path: string, who: Who = admin, body?: unknown, opts?: { raw?: boolean; contentType?: string }) =>
  call(keeper.url, method, path, who, body, opts);

async function open(headers: Record<string, string>, url = keeper.url): Promise<TestBrowser> {
  const b = await TestBrowser.open(url, { headers });
  browsers.push(b);
  return b;
}

const auditFor = (path: string, action: string): AuditEntry[] => readAuditFile(stateDir).filter((e) => e.path === path && e.action === action);

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-hardening-'));
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      ensembles: [{ name: 'it', connectionString: ensemble.connectionString, auth: [{ scheme: 'digest', credential: DIGEST }] }],
      auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
    },
    {
      // Everything the server logs, at the most talkative level, to search for the credential.
      logger: createLogger('trace', { write: (line: string) => void logLines.push(line) }),
      rateLimits: { api: 100_000, loginFailures: 1_000 },
    },
  );
  await kazoo(ensemble.connectionString, [{ op: 'create', path: `${ROOT}/ready`, data: 'x' }]);
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
}, 120_000);

afterAll(async () => {
  for (const b of browsers) b.close();
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('the digest credential stays on the server', () => {
  it('is used (an `auth` ACL), yet appears in no answer, frame, error, log line or audit entry', async () => {
    const path = `${ROOT}/digest-only`;
    expect((await api('POST', `/api/ensembles/it/znodes${path}`, admin, { data: 'secret data' })).status).toBe(201);
    // `auth`: whoever this session authenticated as, i.e. the console's digest identity.
    const set = await api('PUT', `/api/ensembles/it/acl${path}`, admin, { acl: [{ scheme: 'auth', id: '', perms: 'cdrwa' }], version: 0 });
    expect(set.status).toBe(200);
    expect(set.body.stat.aversion).toBe(1);
    const acl = await api('GET', `/api/ensembles/it/acl${path}`, { token: VIEWER });
    // ZooKeeper stores the digest (user:base64 sha1), never the password; that is what is shown.
    expect(acl.body.acl).toEqual([{ scheme: 'digest', id: expect.stringMatching(/^keeper-ops:[A-Za-z0-9+/]+=*$/), perms: 'cdrwa', permissions: 31 }]);
    // The console can still read it; kazoo, without the credential, cannot.
    expect((await api('GET', `/api/ensembles/it/znodes${path}`, { token: VIEWER })).body.data.value).toBe('secret data');
    await expect(kazooGet(ensemble.connectionString, path)).rejects.toThrow(/NoAuth/);

    const seen: string[] = [];
    for (const route of [
      '/api/health',
      '/api/ensembles',
      '/api/ensembles/it',
      '/api/ensembles/it/members',
      '/api/ensembles/it/sizing',
      '/api/me',
      '/api/audit?limit=1000',
      '/api/jobs',
      `/api/ensembles/it/export${ROOT}`,
      '/api/ensembles/nope/znodes/x',
      '/api/ensembles/it/znodes/hard/missing',
    ]) {
      const res = await api('GET', route);
      seen.push(JSON.stringify(res.body));
    }
    const b = await open({ authorization: `Bearer ${ADMIN}` });
    // Every topic, so every kind of frame is searched.
    await b.subscribed('znode', 'it', { path });
    await b.subscribed('consoleSession', 'it', {});
    await b.subscribed('ensembleHealth', 'it', {});
    await b.subscribed('jobs', 'it', {});
    await waitFor(() => b.lastZnode('it', path)?.node.exists && b.topicEvents('ensembleHealth').length > 0 && b.topicEvents('consoleSession').length > 0, {
      what: 'the znode, the health and the session',
    });
    await new Promise((r) => setTimeout(r, 1_500));
    seen.push(JSON.stringify(b.messages));
    seen.push(readFileSync(join(stateDir, 'audit.jsonl'), 'utf8'));
    seen.push(logLines.join(''));
    expect(logLines.length).toBeGreaterThan(0);
    const everything = seen.join('\n');
    expect(everything).not.toContain(DIGEST_PASSWORD);
    expect(everything).not.toContain(ADMIN);
    expect(everything).not.toContain(VIEWER);
  }, 60_000);
});

describe('writes from another site', () => {
  it('are refused with 403 even with a valid identity; same-origin and script writes go through', async () => {
    const path = `${ROOT}/origin`;
    await kazoo(ensemble.connectionString, [{ op: 'create', path, data: 'v0' }]);
    const host = new URL(keeper.url).host;
    for (const who of [
      { ...admin, origin: 'https://evil.example' },
      { ...admin, origin: 'null' },
    ]) {
      const res = await api('PUT', `/api/ensembles/it/znodes${path}`, who, { data: 'evil', version: 0 });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('CSRF');
    }
    // A cross-site sign-in (login CSRF) is refused as well.
    expect((await api('POST', '/api/login', { origin: 'https://evil.example' }, { token: ADMIN })).status).toBe(403);
    expect(await kazooGet(ensemble.connectionString, path)).toMatchObject({ data: 'v0', version: 0 });
    expect((await api('PUT', `/api/ensembles/it/znodes${path}`, { ...admin, origin: `http://${host}` }, { data: 'v1', version: 0 })).status).toBe(200);
    expect((await api('PUT', `/api/ensembles/it/znodes${path}`, admin, { data: 'v2', version: 1 })).status).toBe(200);
    expect(await kazooGet(ensemble.connectionString, path)).toMatchObject({ data: 'v2', version: 2 });
  });

  it('are refused in the open development mode too, where there is no token to forge', async () => {
    const openKeeper = await startKeeper(
      { host: '127.0.0.1', port: 0, ensembles: [{ name: 'it', connectionString: ensemble.connectionString }] },
      { logger: testLogger },
    );
    try {
      await waitFor(() => openKeeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'open console connected' });
      // What a page elsewhere can send without a preflight: a text/plain POST.
      const forged = await call(openKeeper.url, 'POST', `/api/ensembles/it/znodes${ROOT}/forged`, { origin: 'http://attacker.example' }, 'x', {
        raw: true,
        contentType: 'text/plain',
      });
      expect(forged.status).toBe(403);
      const fetchMetadataOnly = await fetch(`${openKeeper.url}/api/ensembles/it/znodes${ROOT}/forged`, {
        method: 'POST',
        headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
        body: 'x',
      });
      expect(fetchMetadataOnly.status).toBe(403);
      expect(await kazooGet(ensemble.connectionString, `${ROOT}/forged`)).toBeNull();
      await expect(TestBrowser.open(openKeeper.url, { headers: { origin: 'http://attacker.example' } })).rejects.toMatchObject({ status: 403 });
      // A local script (no Origin) is the open mode's intended user.
      expect((await call(openKeeper.url, 'POST', `/api/ensembles/it/znodes${ROOT}/scripted`, {}, { data: 's' })).status).toBe(201);
    } finally {
      await openKeeper.close();
    }
  }, 60_000);
});

describe('refused writes are rate limited', () => {
  it('answers 429 past the limit, before any refusal is audited', async () => {
    const limitedDir = mkdtempSync(join(tmpdir(), 'keeper-hardening-limited-'));
    const limited = await startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [{ name: 'it', connectionString: ensemble.connectionString }],
        auth: { stateDir: limitedDir, adminToken: ADMIN, viewerToken: VIEWER },
      },
      { logger: testLogger, rateLimits: { api: 5, windowMs: 60_000, loginFailures: 100 } },
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        statuses.push((await call(limited.url, 'PUT', `/api/ensembles/it/znodes${ROOT}/ready`, { token: VIEWER }, { data: 'x', version: 0 })).status);
      }
      expect(statuses).toEqual([403, 403, 403, 403, 403, 429, 429, 429]);
      // The socket's reads are not limited.
      const b = await open({ authorization: `Bearer ${VIEWER}` }, limited.url);
      b.send({ type: 'ping', id: 'p' });
      await b.next((m) => m.type === 'pong');
      expect(readAuditFile(limitedDir).filter((e) => e.outcome === 'refused')).toHaveLength(5);
      expect(await kazooGet(ensemble.connectionString, `${ROOT}/ready`)).toMatchObject({ data: 'x', version: 0 });
    } finally {
      await limited.close();
      rmSync(limitedDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the audit trail matches what happened', () => {
  it('records writes, refusals and an import (start and end) with who, where and outcome', async () => {
    await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected again' });
    const created = await api('POST', `/api/ensembles/it/znodes${ROOT}/by-api`, admin, { data: 'hi' });
    expect(created.status).toBe(201);
    const stale = await api('PUT', `/api/ensembles/it/znodes${ROOT}/by-api`, admin, { data: 'stale', version: 7 });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('BAD_VERSION');
    const [createdEntry] = auditFor(`${ROOT}/by-api`, 'create');
    expect(createdEntry).toMatchObject({
      ensemble: 'it',
      outcome: 'ok',
      actor: { name: 'admin-token', role: 'admin', via: 'bearer' },
      after: { version: 0, size: 2 },
    });
    expect(auditFor(`${ROOT}/by-api`, 'setData').at(-1)).toMatchObject({ outcome: 'failed', error: { code: 'BAD_VERSION' }, before: { version: 0, size: 2 } });
    // Refused, and nothing happened.
    await api('DELETE', `/api/ensembles/it/znodes${ROOT}/by-api?version=0`, { token: VIEWER });
    expect(auditFor(`${ROOT}/by-api`, 'delete').at(-1)).toMatchObject({
      outcome: 'refused',
      actor: { name: 'viewer-token', role: 'viewer' },
      error: { code: 'FORBIDDEN' },
    });
    expect(await kazooGet(ensemble.connectionString, `${ROOT}/by-api`)).toMatchObject({ data: 'hi', version: 0 });

    const doc = (await api('GET', `/api/ensembles/it/export${ROOT}/by-api`)).body;
    const started = await api('POST', `/api/ensembles/it/import${ROOT}/imported`, admin, doc);
    expect(started.status).toBe(202);
    await waitFor(async () => (await api('GET', `/api/jobs/${started.body.job.id}`)).body.job.state !== 'running', { what: 'import to end' });
    // The end is recorded (and synced to disk) just after the job's state changes: wait for the line.
    const phases = await waitFor(
      () => {
        const found = auditFor(`${ROOT}/imported`, 'import').map((e) => [
          (e.details as { phase: string }).phase,
          e.outcome,
          (e.details as { jobId: string }).jobId,
        ]);
        return found.length >= 2 ? found : null;
      },
      { what: "the import's start and end in the audit trail", timeoutMs: 5_000 },
    );
    expect(phases).toEqual([
      ['start', 'ok', started.body.job.id],
      ['end', 'ok', started.body.job.id],
    ]);
    expect(await kazooGet(ensemble.connectionString, `${ROOT}/imported`)).toMatchObject({ data: 'hi', version: 0 });
  }, 60_000);
});
