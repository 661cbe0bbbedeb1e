/**
 * Attacking the Upgrades view's server surface (issue 13) on a real 3-member ensemble: every
 * upgrade route and the `upgrade` topic tried by a viewer, share-link holders (a subtree link, a
 * link with the ensemble views), no identity and another site, with malformed, oversized and
 * strange input. Identity and role come before the body; an admin's bad input gets a 400 that
 * names the field and changes nothing; holders read only with the ensemble views and never act;
 * the server stays up and the ensemble untouched. The test's restarter records every call and
 * throws, so no member is ever restarted, and an attempt shows (one test starts an upgrade on
 * purpose, to reach the states a planned one cannot).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { upgradeAnswerSchema, upgradeListAnswerSchema, type AuditEntry, type UpgradeAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { UPGRADE_LOCK_PATH } from '../src/workflows/workflowLock.js';
import { PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { call, type ApiResponse, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-upgrade-attacks-0123456789';
const VIEWER = 'viewer-token-for-upgrade-attacks-0123456789';
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };
const EVIL = 'https://evil.example';
/** The upgrade routes read at most 16 KB (UPGRADE_BODY_LIMIT). */
const OVER_LIMIT = JSON.stringify({ mode: 'rolling', note: 'x'.repeat(64 * 1024) });
const NO_SUCH_UPGRADE = '00000000-0000-4000-8000-000000000000';

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

let ensemble: Ensemble;
let keeper: RunningKeeper;
let stateDir: string;
const browsers: TestBrowser[] = [];
/** Every restart Keeper asked the test's restarter for (each one refused). */
const restartCalls: number[] = [];
/** The restarts one test provokes on purpose; any other is a defect. */
const expectedRestartCalls: number[] = [];
let pidsBefore: (number | null)[] = [];

/** A body as sent: JSON by default, or raw text with its own content type. */
interface Body {
  label: string;
  body: unknown;
  raw?: boolean;
  contentType?: string;
}
const BAD_BODIES: Body[] = [
  { label: 'malformed JSON', body: '{"mode":', raw: true },
  { label: 'a wrong content type', body: 'mode=full&start=true', raw: true, contentType: 'application/x-www-form-urlencoded' },
  { label: 'a body over the limit', body: OVER_LIMIT, raw: true },
  { label: 'unknown fields', body: { mode: 'rolling', restartCommand: 'rm -rf /' } },
];

const send = (method: string, path: string, who: Who, b?: Body): Promise<ApiResponse> =>
  call(keeper.url, method, `/api/ensembles/it/upgrades${path}`, who, b?.body, { raw: b?.raw ?? false, contentType: b?.contentType ?? 'application/json' });
const post = (path: string, body: unknown, who: Who = admin) => send('POST', path, who, { label: '', body });
const postRaw = (path: string, body: string, contentType = 'application/json', who: Who = admin) =>
  send('POST', path, who, { label: '', body, raw: true, contentType });
const get = (path: string, who: Who = admin) => send('GET', path, who);

async function upgradeIds(): Promise<string[]> {
  const res = await get('');
  expect(res.status).toBe(200);
  return upgradeListAnswerSchema.parse(res.body).upgrades.map((u) => `${u.id}:${u.state}`);
}

async function auditEntries(): Promise<AuditEntry[]> {
  const res = await call(keeper.url, 'GET', '/api/audit?limit=1000', admin);
  expect(res.status).toBe(200);
  return res.body.entries as AuditEntry[];
}

/** A planned upgrade (the preflight needs a poll: the first create may meet NOT_READY). */
async function plan(): Promise<UpgradeAnswer> {
  const res = await waitFor(
    async () => {
      const r = await post('', { mode: 'rolling', note: 'attack test' });
      return r.status === 503 ? null : r;
    },
    { what: 'an upgrade planned', timeoutMs: 15_000, intervalMs: 500 },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const planned = upgradeAnswerSchema.parse(res.body);
  expect(planned.state).toBe('planned');
  return planned;
}

async function abort(id: string): Promise<void> {
  const res = await post(`/${id}/abort`, { reason: 'attack test cleanup' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.state).toBe('aborted');
  await waitFor(async () => (await keeper.ensembles.get('it').gateway.exists(UPGRADE_LOCK_PATH)) === null, { what: 'the upgrade lock released' });
}

function expectError(res: ApiResponse, status: number, code: string, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body)?.slice(0, 300)}`).toBe(status);
  expect(res.body?.error?.code, what).toBe(code);
}

/** Makes a share link as the admin and opens it as a browser with no identity: its cookie and CSRF token. */
async function holderOf(path: string, scope?: { root?: string; ensembleViews?: boolean }): Promise<{ who: Who; scope: unknown }> {
  const created = await call(keeper.url, 'POST', '/api/share-links', admin, { path, expiresInMinutes: 30, ...(scope ? { scope } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const opened = await fetch(created.body.url, { redirect: 'manual' });
  expect(opened.status).toBe(302);
  const cookie = /keeper_session=[^;]*/.exec(opened.headers.get('set-cookie') ?? '')![0];
  const me = await call(keeper.url, 'GET', '/api/me', { cookie });
  expect(me.status).toBe(200);
  return { who: { cookie, csrf: me.body.csrfToken }, scope: created.body.scope };
}

async function open(headers: Record<string, string>): Promise<TestBrowser> {
  const b = await TestBrowser.open(keeper.url, { headers });
  browsers.push(b);
  return b;
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.upgradesAttackTest);
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-upgrades-attack-'));
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      ensembles: [
        {
          name: 'it',
          connectionString: ensemble.connectionString,
          members: ensemble.members.map((m) => ({ host: m.host, clientPort: m.clientPort, adminPort: m.adminPort })),
        },
      ],
      auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
    },
    {
      logger: testLogger,
      ensembleDefaults: { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000 },
      rateLimits: { api: 100_000, loginFailures: 1_000, loginFailuresPerAddress: 1_000 },
      upgradeTimings: { settleMs: 1_000, backWithinMs: 15_000 },
      restartMember: (_name, id) => {
        restartCalls.push(id);
        return Promise.reject(new Error(`the attack test never restarts a member (member ${id} asked for)`));
      },
    },
  );
  await waitFor(
    () => keeper.ensembles.get('it').poller.current()?.quorum.votersServing === 3 && keeper.ensembles.get('it').gateway.session.state === 'connected',
    {
      what: 'three voters serving and the console connected',
      timeoutMs: 30_000,
    },
  );
  pidsBefore = ensemble.members.map((m) => m.pid);
  expect(pidsBefore.every((p) => p !== null)).toBe(true);
}, 180_000);

// A test that fails midway must not leave its upgrade in progress for the next (each would fail on UPGRADE_IN_PROGRESS).
afterEach(async () => {
  const res = await get('');
  const inProgress = upgradeListAnswerSchema.parse(res.body).upgrades.filter((u) => u.state === 'planned' || u.state === 'running' || u.state === 'paused');
  for (const u of inProgress) await post(`/${u.id}/abort`, { reason: 'left by a failed attack test' });
  await waitFor(async () => (await keeper.ensembles.get('it').gateway.exists(UPGRADE_LOCK_PATH)) === null, { what: 'the upgrade lock released' });
});

afterAll(async () => {
  for (const b of browsers) b.close();
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('callers who may not act', () => {
  it('are refused on identity, origin and role before the body is read, and viewers are audited like on the znode routes', async () => {
    const planned = await plan();
    const routes = ['', `/${planned.id}/start`, `/${planned.id}/abort`, `/${planned.id}/steps/1/skip`, `/${NO_SUCH_UPGRADE}/resume`];
    const bodies: Body[] = [...BAD_BODIES, { label: 'a valid body', body: { confirmation: 'skip member 1', reason: 'x' } }];
    const callers: [string, Who, number, string][] = [
      ['viewer', viewer, 403, 'FORBIDDEN'],
      ['no identity', {}, 401, 'UNAUTHENTICATED'],
      ['a wrong token', { token: 'not-the-token-0123456789abcdef' }, 401, 'UNAUTHENTICATED'],
      ['admin from another site', { ...admin, origin: EVIL }, 403, 'CSRF'],
      ['viewer from another site', { ...viewer, origin: EVIL }, 403, 'CSRF'],
    ];
    const refusedBefore = (await auditEntries()).filter((e) => e.action.startsWith('upgrade.') && e.outcome === 'refused').length;
    let viewerTries = 0;
    for (const route of routes)
      for (const body of bodies)
        for (const [label, who, status, code] of callers) {
          expectError(await send('POST', route, who, body), status, code, `${label} POST ${route || '/'} with ${body.label}`);
          if (label === 'viewer') viewerTries++;
        }
    // The workflow is untouched, and no other was created.
    expect(await upgradeIds()).toEqual([`${planned.id}:planned`]);

    // Each viewer refusal is in the audit trail, by the viewer, with the action it tried; nothing else was.
    const refused = (await auditEntries()).filter((e) => e.action.startsWith('upgrade.') && e.outcome === 'refused');
    expect(refused.length - refusedBefore).toBe(viewerTries);
    const fresh = refused.slice(0, viewerTries);
    expect(new Set(fresh.map((e) => e.actor.role))).toEqual(new Set(['viewer']));
    expect(new Set(fresh.map((e) => e.action))).toEqual(new Set(['upgrade.create', 'upgrade.action', 'upgrade.step']));
    expect(fresh.some((e) => e.action === 'upgrade.action' && e.details?.upgradeId === planned.id && e.details?.action === 'abort')).toBe(true);

    // The same callers on a znode write are audited the same way (viewer yes; no identity and another site no).
    const znodeRefusals = async () => (await auditEntries()).filter((e) => e.action === 'create' && e.outcome === 'refused').length;
    const znodeRefusedBefore = await znodeRefusals();
    for (const [label, who, status, code] of callers) {
      const res = await call(keeper.url, 'POST', '/api/ensembles/it/znodes/attack', who, '{"data":', { raw: true });
      expectError(res, status, code, `${label} znode create`);
    }
    expect((await znodeRefusals()) - znodeRefusedBefore).toBe(1);

    await abort(planned.id);
  }, 60_000);
});

describe("an admin's malformed input", () => {
  it('gets a 400 (or 413 past the size limit) with the shared code and the field named, and plans nothing', async () => {
    const before = await upgradeIds();
    const fieldCases: [unknown, string][] = [
      [{ mode: 'rolling-ish' }, 'mode'],
      [{ mode: 'FULL' }, 'mode'],
      [{ mode: null }, 'mode'],
      [{ targetVersion: 'v'.repeat(201) }, 'targetVersion'],
      [{ targetVersion: '   ' }, 'targetVersion'],
      [{ targetVersion: 3.8 }, 'targetVersion'],
      [{ note: 'n'.repeat(2001) }, 'note'],
      [{ confirmation: 'c'.repeat(201) }, 'confirmation'],
      [{ start: 'true' }, 'start'],
      [{ mode: 'rolling', restartCommand: 'rm -rf /' }, 'restartCommand'],
      [{ mode: 'rolling', id: NO_SUCH_UPGRADE, state: 'done' }, 'state'],
    ];
    for (const [body, field] of fieldCases) {
      const res = await post('', body);
      expectError(res, 400, 'INVALID_BODY', JSON.stringify(body).slice(0, 80));
      expect(res.body.error.message, JSON.stringify(body).slice(0, 80)).toContain(field);
      // A refusal does not echo a huge value back.
      expect(res.body.error.message.length).toBeLessThan(1_000);
    }
    const rawCases: [string, string, number, string][] = [
      ['{"__proto__":{"start":true},"mode":"rolling"}', 'application/json', 400, 'INVALID_BODY'],
      ['{"constructor":{"prototype":{"start":true}}}', 'application/json', 400, 'INVALID_BODY'],
      ['[]', 'application/json', 400, 'INVALID_BODY'],
      ['"rolling"', 'application/json', 400, 'INVALID_BODY'],
      ['42', 'application/json', 400, 'INVALID_BODY'],
      ['{"mode":', 'application/json', 400, 'MALFORMED_JSON'],
      ['{"mode":"rolling"}garbage', 'application/json', 400, 'MALFORMED_JSON'],
      ['\u0000\u0001\u0002', 'application/json', 400, 'MALFORMED_JSON'],
      [OVER_LIMIT, 'application/json', 413, 'BODY_TOO_LARGE'],
      // A body that is not sent as JSON is not silently dropped (it would plan a default rolling restart).
      ['{"mode":"full","targetVersion":"3.9.9"}', 'text/plain', 400, 'INVALID_BODY'],
      ['mode=full', 'application/x-www-form-urlencoded', 400, 'INVALID_BODY'],
    ];
    for (const [body, type, status, code] of rawCases) expectError(await postRaw('', body, type), status, code, `${type} ${body.slice(0, 40)}`);
    expect(await upgradeIds()).toEqual(before);
    expect(await keeper.ensembles.get('it').gateway.exists(UPGRADE_LOCK_PATH)).toBeNull();
  }, 60_000);

  it('naming no upgrade, an unknown action or a strange member: UNKNOWN_UPGRADE, NOT_FOUND, UNKNOWN_MEMBER, and nothing acted on', async () => {
    const planned = await plan();
    const listed = await upgradeIds();
    expect(listed[0]).toBe(`${planned.id}:planned`);
    for (const id of [
      'not-a-uuid',
      '..%2F..%2Fshare-links',
      '..%2F..%2F..%2Fetc%2Fpasswd',
      '-'.repeat(36),
      NO_SUCH_UPGRADE,
      NO_SUCH_UPGRADE.toUpperCase(),
      '%00',
      'x'.repeat(5_000),
    ]) {
      expectError(await get(`/${id}`), 404, 'UNKNOWN_UPGRADE', `GET ${id.slice(0, 40)}`);
      expectError(await post(`/${id}/abort`, {}), 404, 'UNKNOWN_UPGRADE', `abort ${id.slice(0, 40)}`);
      expectError(await post(`/${id}/steps/1/skip`, { confirmation: 'skip member 1' }), 404, 'UNKNOWN_UPGRADE', `skip in ${id.slice(0, 40)}`);
    }
    for (const action of ['explode', '__proto__', 'constructor', 'ABORT', 'abort%2F..', 'x'.repeat(2_000)]) {
      const res = await post(`/${planned.id}/${action}`, {});
      expectError(res, 404, 'NOT_FOUND', `action ${action.slice(0, 40)}`);
      expect(res.body.error.message.length).toBeLessThan(300);
      expectError(await post(`/${planned.id}/steps/1/${action}`, {}), 404, 'NOT_FOUND', `step action ${action.slice(0, 40)}`);
    }
    for (const member of ['m'.repeat(6_000), '99999999999999999999', '-1', '1e0', '0x1', ' 1', '..%2F..', '%00', '127.0.0.1:1', '__proto__', 'constructor']) {
      const res = await post(`/${planned.id}/steps/${member}/skip`, { confirmation: 'skip member 1' });
      expectError(res, 400, 'UNKNOWN_MEMBER', `member ${member.slice(0, 40)}`);
      expect(res.body.error.message.length).toBeLessThan(400);
    }
    // The refused step is audited with the member cut to its bound.
    const longest = (await auditEntries())
      .filter((e) => e.action === 'upgrade.step' && typeof e.details?.member === 'string')
      .map((e) => (e.details!.member as string).length);
    expect(Math.max(...longest)).toBeLessThanOrEqual(300);

    // Bodies of the actions: the fields' limits and no others.
    for (const [action, body, field] of [
      ['start', { confirmation: 'c'.repeat(201) }, 'confirmation'],
      ['abort', { reason: 'r'.repeat(501) }, 'reason'],
      ['abort', { reason: 'x', force: true }, 'force'],
      ['pause', { reason: ['a'] }, 'reason'],
    ] as const) {
      const res = await post(`/${planned.id}/${action}`, body);
      expectError(res, 400, 'INVALID_BODY', `${action} ${JSON.stringify(body).slice(0, 40)}`);
      expect(res.body.error.message).toContain(field);
    }
    expectError(await postRaw(`/${planned.id}/abort`, '{"reason":', 'application/json'), 400, 'MALFORMED_JSON', 'abort with malformed JSON');
    expectError(await postRaw(`/${planned.id}/abort`, OVER_LIMIT, 'application/json'), 413, 'BODY_TOO_LARGE', 'abort over the limit');
    expectError(await post(`/${planned.id}/steps/1/skip`, { confirmation: 'skip member 1', force: true }), 400, 'INVALID_BODY', 'skip with force');

    // Actions in the wrong state, with the reason.
    const resumed = await post(`/${planned.id}/resume`, {});
    expectError(resumed, 409, 'UPGRADE_REFUSED', 'resume a planned upgrade');
    expect(resumed.body.error.message).toMatch(/paused.*planned/);
    expectError(await post(`/${planned.id}/pause`, {}), 409, 'UPGRADE_REFUSED', 'pause a planned upgrade');
    const skipped = await post(`/${planned.id}/steps/1/skip`, { confirmation: 'skip member 1' });
    expectError(skipped, 409, 'UPGRADE_REFUSED', 'skip in a planned upgrade');
    expect(skipped.body.error.message).toContain('planned');
    expectError(await post(`/${planned.id}/steps/1/markDone`, {}), 409, 'UPGRADE_REFUSED', 'markDone in a planned upgrade');
    expect(await upgradeIds()).toEqual(listed);
    expect((await get(`/${planned.id}`)).body.state).toBe('planned');

    await abort(planned.id);
    const started = await post(`/${planned.id}/start`, {});
    expectError(started, 409, 'UPGRADE_REFUSED', 'start an aborted upgrade');
    expect(started.body.error.message).toMatch(/aborted/);
    expectError(await post(`/${planned.id}/resume`, {}), 409, 'UPGRADE_REFUSED', 'resume an aborted upgrade');
    expectError(await post(`/${planned.id}/abort`, {}), 409, 'UPGRADE_REFUSED', 'abort an aborted upgrade');
    expectError(await post(`/${planned.id}/steps/1/skip`, { confirmation: 'skip member 1' }), 409, 'UPGRADE_REFUSED', 'skip in an aborted upgrade');
    expect((await get(`/${planned.id}`)).body.state).toBe('aborted');
    expect(await keeper.ensembles.get('it').gateway.exists(UPGRADE_LOCK_PATH)).toBeNull();
    expect(restartCalls).toEqual(expectedRestartCalls);
  }, 90_000);

  it('skips a member only with its typed phrase, even when paused (an upgrade started on purpose, its restart refused)', async () => {
    const planned = await plan();
    const first = planned.plan.order[0]!;
    const started = await waitFor(
      async () => {
        const res = await post(`/${planned.id}/start`, {});
        return res.status === 200 ? res : null;
      },
      { what: 'the upgrade started', timeoutMs: 20_000, intervalMs: 500 },
    );
    expect(started.body.state).toBe('running');
    // The test's restarter refuses: the workflow pauses on the first member and goes no further.
    const paused = await waitFor(
      async () => {
        const wf = upgradeAnswerSchema.parse((await get(`/${planned.id}`)).body);
        return wf.state === 'paused' ? wf : null;
      },
      { what: 'the upgrade paused on the refused restart', timeoutMs: 30_000, intervalMs: 250 },
    );
    expectedRestartCalls.push(first.memberId!);
    expect(restartCalls).toEqual(expectedRestartCalls);
    expect(paused.reason).toContain('never restarts a member');
    const phrase = `skip member ${first.memberId}`;
    for (const confirmation of [undefined, '', 'skip', `skip member ${first.memberId! + 1}`, `SKIP MEMBER ${first.memberId}`, `${phrase}!`]) {
      const res = await post(`/${planned.id}/steps/${first.memberId}/skip`, confirmation === undefined ? {} : { confirmation });
      expectError(res, 409, 'UPGRADE_REFUSED', `skip with ${JSON.stringify(confirmation)}`);
      expect(res.body.error.message).toContain(`"${phrase}"`);
    }
    // Nobody but an admin, with the right phrase or not.
    expectError(await post(`/${planned.id}/steps/${first.memberId}/skip`, { confirmation: phrase }, viewer), 403, 'FORBIDDEN', 'viewer skip');
    expectError(await post(`/${planned.id}/resume`, {}, viewer), 403, 'FORBIDDEN', 'viewer resume');
    expectError(await post(`/${planned.id}/pause`, {}), 409, 'UPGRADE_REFUSED', 'pause a paused upgrade');
    expectError(await post(`/${planned.id}/start`, {}), 409, 'UPGRADE_REFUSED', 'start a paused upgrade');
    const still = upgradeAnswerSchema.parse((await get(`/${planned.id}`)).body);
    expect(still.state).toBe('paused');
    expect(still.steps.map((s) => s.state)).toEqual(paused.steps.map((s) => s.state));
    expect(still.steps.slice(1).every((s) => s.restartRequestedAt === null)).toBe(true);
    await abort(planned.id);
    expect(restartCalls).toEqual(expectedRestartCalls);
  }, 90_000);
});

describe('share-link holders and viewers', () => {
  it('read upgrades only with the ensemble views, never act, and the topic follows the same scope', async () => {
    const planned = await plan();
    const listed = await upgradeIds();
    const subtree = await holderOf('/ensembles/it/znodes/zookeeper', { root: '/zookeeper' });
    expect(subtree.scope).toEqual({ ensemble: 'it', root: '/zookeeper', ensembleViews: false });
    const views = await holderOf('/ensembles/it/upgrades');
    expect(views.scope).toEqual({ ensemble: 'it', root: '/', ensembleViews: true });
    const subtreeWithViews = await holderOf('/ensembles/it/znodes/zookeeper', { root: '/zookeeper', ensembleViews: true });

    // Reading: as the members and sessions views, only with the ensemble views.
    for (const [label, who] of [
      ['subtree link', subtree.who],
      ['subtree link, no CSRF token', { cookie: subtree.who.cookie! }],
    ] as const) {
      expectError(await get('', who), 403, 'OUT_OF_SCOPE', `${label} list`);
      expectError(await get(`/${planned.id}`, who), 403, 'OUT_OF_SCOPE', `${label} one`);
      // HEAD runs the GET route in Express: it must meet the same refusal, not answer 200 with the list's length.
      expect((await send('HEAD', '', who)).status, `${label} HEAD list`).toBe(403);
      expectError(await call(keeper.url, 'GET', '/api/ensembles/it/members', who), 403, 'OUT_OF_SCOPE', `${label} members (the rule upgrades follow)`);
    }
    for (const [label, who] of [
      ['views link', views.who],
      ['subtree link with views', subtreeWithViews.who],
      ['viewer', viewer],
    ] as const) {
      expect((await call(keeper.url, 'GET', '/api/ensembles/it/members', who)).status, `${label} members`).toBe(200);
      // Soft: a refusal here is reported, and the writes and the topic below are still tried.
      const list = await get('', who);
      expect.soft(list.status, `${label} list: ${JSON.stringify(list.body).slice(0, 200)}`).toBe(200);
      if (list.status === 200) expect(upgradeListAnswerSchema.parse(list.body).upgrades[0]?.id).toBe(planned.id);
      const one = await get(`/${planned.id}`, who);
      expect.soft(one.status, `${label} one`).toBe(200);
      if (one.status === 200) expect(upgradeAnswerSchema.parse(one.body).state).toBe('planned');
      const traversal = await get('/..%2F..%2Fshare-links', who);
      expect.soft(traversal.status, `${label} a traversal id`).toBe(404);
      if (traversal.status !== 403) expectError(traversal, 404, 'UNKNOWN_UPGRADE', `${label} a traversal id`);
    }

    // Acting: never, whatever the body (and the body is never read).
    for (const [label, who] of [
      ['subtree link', subtree.who],
      ['views link', views.who],
      ['subtree link with views', subtreeWithViews.who],
    ] as const) {
      for (const route of ['', `/${planned.id}/abort`, `/${planned.id}/start`, `/${planned.id}/steps/1/skip`])
        for (const body of [...BAD_BODIES, { label: 'a valid body', body: {} }]) {
          const res = await send('POST', route, who, body);
          const what = `${label} POST ${route || '/'} with ${body.label}`;
          expect(res.status, `${what}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(403);
          expect(['FORBIDDEN', 'OUT_OF_SCOPE'], what).toContain(res.body.error.code);
        }
      // Without the CSRF token a cookie write stops even earlier.
      expectError(await send('POST', `/${planned.id}/abort`, { cookie: who.cookie! }, { label: '', body: {} }), 403, 'CSRF', `${label} without CSRF`);
    }
    expect(await upgradeIds()).toEqual(listed);

    // The live topic: outOfScope for the subtree link, the workflow for the others.
    const refused = await open({ cookie: subtree.who.cookie! });
    refused.send({ type: 'subscribe', topic: 'upgrade', ensemble: 'it', params: {}, id: 'up' });
    expect(await refused.next((m) => 'id' in m && m.id === 'up')).toMatchObject({
      type: 'error',
      code: 'outOfScope',
      message: expect.stringContaining('/zookeeper and below'),
    });
    refused.send({ type: 'subscribe', topic: 'upgrade', ensemble: 'elsewhere', params: {}, id: 'other' });
    expect(await refused.next((m) => 'id' in m && m.id === 'other')).toMatchObject({ type: 'error', code: 'outOfScope' });
    for (const [label, headers] of [
      ['views link', { cookie: views.who.cookie! }],
      ['subtree link with views', { cookie: subtreeWithViews.who.cookie! }],
      ['viewer', { authorization: `Bearer ${VIEWER}` }],
    ] as const) {
      const b = await open(headers);
      // Parameters the topic does not take are refused, not ignored.
      b.send({ type: 'subscribe', topic: 'upgrade', ensemble: 'it', params: { id: 'x'.repeat(10_000) }, id: 'junk' });
      expect(await b.next((m) => 'id' in m && m.id === 'junk'), label).toMatchObject({ type: 'error', code: 'invalidParams' });
      await b.subscribed('upgrade', 'it', {});
      await waitFor(() => b.topicEvents('upgrade', 'it').some((e) => e.event.upgrade?.id === planned.id), { what: `${label} sees the planned upgrade` });
    }
    // A refused subscription heard nothing, and the socket still answers.
    expect(refused.topicEvents('upgrade')).toEqual([]);
    refused.send({ type: 'ping', id: 'alive' });
    await refused.next((m) => m.type === 'pong' && m.id === 'alive');

    await abort(planned.id);
  }, 90_000);
});

describe('after all of it', () => {
  it('Keeper answers, no lock is left, no member was restarted', async () => {
    expect((await call(keeper.url, 'GET', '/api/health', {})).status).toBe(200);
    expect(await keeper.ensembles.get('it').gateway.exists(UPGRADE_LOCK_PATH)).toBeNull();
    expect(restartCalls).toEqual(expectedRestartCalls);
    expect(ensemble.members.map((m) => m.pid)).toEqual(pidsBefore);
    expect(ensemble.members.every((m) => m.state === 'running')).toBe(true);
    const states = upgradeListAnswerSchema.parse((await get('')).body).upgrades.map((u) => u.state);
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((s) => s === 'aborted')).toBe(true);
    await waitFor(() => keeper.ensembles.get('it').poller.current()?.quorum.votersServing === 3, { what: 'three voters serving' });
  });
});
