/**
 * The Upgrades view on a real 3-member ensemble (issue 13): a rolling restart planned over HTTP,
 * its preflight passing, then started; the sandbox's own restarter restarts the members one at
 * a time, followers first and the leader last, each step recording its checks; the console's
 * session survives; the workflow ends `done`, on disk and on the `upgrade` topic, with the lock
 * in ZooKeeper released. And the refusals: a viewer's, no identity's and another site's POSTs
 * (audited), and a second upgrade while one is planned (UPGRADE_IN_PROGRESS).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upgradeAnswerSchema, upgradeListAnswerSchema, upgradeWorkflowSchema, type UpgradeAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { UPGRADE_LOCK_PATH } from '../src/workflows/workflowLock.js';
import { PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { call, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-upgrades-0123456789abcdef';
const VIEWER = 'viewer-token-for-upgrades-0123456789abcdef';
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

describe('a rolling restart on a real ensemble', () => {
  let ensemble: Ensemble;
  let keeper: RunningKeeper;
  let stateDir: string;
  let browser: TestBrowser | null = null;
  const restarted: number[] = [];
  /** A broken restart: the member is stopped and never started again. */
  let stopInstead = false;

  /** Keeper on the test ensemble; started again (same state dir) to resume mid-upgrade. */
  const startOurKeeper = () =>
    startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [
          {
            name: 'it',
            connectionString: ensemble.connectionString,
            members: ensemble.members.map((m) => ({ host: m.host, clientPort: m.clientPort, adminPort: m.adminPort })),
            // 10 s, not the default 30 s: a stopped Keeper's session whose close was lost (sent to the
            // member being restarted) holds the upgrade lock that much less.
            sessionTimeoutMs: 10_000,
          },
        ],
        auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
      },
      {
        logger: testLogger,
        ensembleDefaults: { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000 },
        rateLimits: { api: 100_000, loginFailures: 1_000 },
        upgradeTimings: { settleMs: 1_000, backWithinMs: 15_000 },
        restartMember: async (_name, id) => {
          restarted.push(id);
          if (stopInstead) {
            await ensemble.stopMember(id);
            return { message: `member ${id} stopped (and not started: the test's broken restart)` };
          }
          const outcome = await ensemble.restartMember(id, { timeoutMs: 45_000 });
          return { message: outcome.message, processChanged: outcome.previousPid !== outcome.member.pid };
        },
      },
    );

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.upgradesTest);
    stateDir = mkdtempSync(join(tmpdir(), 'keeper-upgrades-'));
    keeper = await startOurKeeper();
    await waitFor(
      () => keeper.ensembles.get('it').poller.current()?.quorum.votersServing === 3 && keeper.ensembles.get('it').gateway.session.state === 'connected',
      {
        what: 'three voters serving and the console connected',
        timeoutMs: 30_000,
      },
    );
  }, 180_000);

  afterAll(async () => {
    browser?.close();
    await keeper?.close();
    await ensemble?.dispose();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown, who: Who = admin) => call(keeper.url, 'POST', `/api/ensembles/it/upgrades${path}`, who, body);
  const get = (path: string, who: Who = admin) => call(keeper.url, 'GET', `/api/ensembles/it/upgrades${path}`, who);

  it("refuses a viewer's, no identity's and another site's POSTs, and audits the refusals", async () => {
    for (const [path, body] of [
      ['', { mode: 'rolling' }],
      ['/00000000-0000-0000-0000-000000000000/start', {}],
      ['/00000000-0000-0000-0000-000000000000/steps/1/skip', { confirmation: 'skip member 1' }],
    ] as const) {
      const asViewer = await post(path, body, viewer);
      expect(asViewer.status, path).toBe(403);
      expect(asViewer.body.error.code, path).toBe('FORBIDDEN');
      expect((await post(path, body, {})).status, path).toBe(401);
      expect((await post(path, body, { ...admin, origin: 'https://evil.example' })).status, path).toBe(403);
    }
    const audit = await call(keeper.url, 'GET', '/api/audit?limit=50', admin);
    const refusals = (audit.body.entries as { action: string; outcome: string }[]).filter((e) => e.action.startsWith('upgrade.') && e.outcome === 'refused');
    expect(new Set(refusals.map((e) => e.action))).toEqual(new Set(['upgrade.create', 'upgrade.action', 'upgrade.step']));
    const list = upgradeListAnswerSchema.parse((await get('', viewer)).body);
    expect(list.upgrades).toEqual([]);
  });

  it('plans, passes the preflight, restarts followers then the leader one at a time, and ends done', async () => {
    const sessionBefore = keeper.ensembles.get('it').gateway.session.sessionId;
    expect(sessionBefore).not.toBeNull();
    browser = await TestBrowser.open(keeper.url, { headers: { authorization: `Bearer ${VIEWER}` } });
    await browser.subscribed('upgrade', 'it', {});

    const created = await post('', { mode: 'rolling', note: 'integration test' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const planned = upgradeAnswerSchema.parse(created.body);
    expect(planned.state).toBe('planned');
    expect(planned.restartMethod).toBe('sandbox');
    expect(planned.plan.order.map((m) => m.role)).toEqual(['follower', 'follower', 'leader']);
    const leaderId = planned.plan.order[2]!.memberId!;

    const second = await post('', { mode: 'rolling' });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('UPGRADE_IN_PROGRESS');
    expect((await get(`/${planned.id}`, viewer)).status).toBe(200);
    // Another Keeper process on the same ensemble meets the lock in ZooKeeper, and is told who holds it.
    const other = await startKeeper(
      { host: '127.0.0.1', port: 0, ensembles: [{ name: 'elsewhere', connectionString: ensemble.connectionString }] },
      { logger: testLogger, ensembleDefaults: { pollIntervalMs: 1_000 } },
    );
    try {
      await waitFor(() => other.ensembles.get('elsewhere').poller.current()?.quorum.votersServing === 3, {
        what: 'the other Keeper polled',
        timeoutMs: 15_000,
      });
      const refused = await call(other.url, 'POST', '/api/ensembles/elsewhere/upgrades', {}, { mode: 'rolling' });
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body.error.code).toBe('UPGRADE_IN_PROGRESS');
      expect(refused.body.error.message).toContain(planned.id);
    } finally {
      await other.close();
    }
    expect((await get('/not-an-id')).body.error.code).toBe('UNKNOWN_UPGRADE');

    // The preflight is computed each poll; start once it passes (zxid lag can need one more poll).
    const started = await waitFor(
      async () => {
        const res = await post(`/${planned.id}/start`, {});
        return res.status === 200 ? upgradeAnswerSchema.parse(res.body) : null;
      },
      { what: 'the upgrade started', timeoutMs: 15_000, intervalMs: 500 },
    );
    expect(started.preflight.length).toBeGreaterThanOrEqual(5);
    expect(started.preflight.every((c) => c.ok)).toBe(true);
    expect((await post(`/${planned.id}/start`, {})).body.error.code).toBe('UPGRADE_REFUSED');

    const done = await waitFor(
      async () => {
        const wf = upgradeAnswerSchema.parse((await get(`/${planned.id}`, viewer)).body);
        if (wf.state === 'paused' || wf.state === 'failed') throw new Error(`upgrade stopped: ${wf.reason}`);
        return wf.state === 'done' ? wf : null;
      },
      { what: 'the upgrade done', timeoutMs: 100_000, intervalMs: 500 },
    );
    console.log(`rolling restart of 3 members took ${done.finishedAt! - done.startedAt!} ms (${done.progress.sentence})`);

    // One at a time, followers first, the leader last.
    expect(restarted).toEqual(planned.plan.order.map((m) => m.memberId));
    expect(restarted.at(-1)).toBe(leaderId);
    for (let i = 1; i < done.steps.length; i++) expect(done.steps[i]!.phases.restarting!).toBeGreaterThanOrEqual(done.steps[i - 1]!.finishedAt!);
    for (const step of done.steps) {
      expect(step.state).toBe('done');
      const ids = new Set(step.checks.map((c) => c.id));
      for (const id of [
        'voters-serving',
        'synced-followers',
        'zxid-caught-up',
        'members-answer',
        'tolerates-failure',
        'restart-command',
        'went-down',
        'back-serving',
        'settled',
      ] as const) {
        expect(ids.has(id), `${step.address} ${id}`).toBe(true);
      }
      expect(step.evidence).not.toBeNull();
      expect(step.command?.exitCode).toBe(0);
    }
    expect(done.progress.fraction).toBe(1);

    // The console's session survived every restart, and the leaders' counters say no session expired.
    expect(keeper.ensembles.get('it').gateway.session.sessionId).toBe(sessionBefore);
    expect(done.sessionExpiries).toMatchObject({ count: 0, gaps: 0 });
    // Read last from the leader at the end, a process this upgrade started. Not necessarily another member than
    // before: the leader, restarted last, may win the election again (under load its vote is back before the two
    // others agree), and its counter then starts anew.
    const leaderAtEnd = done.recheck!.members.find((m) => m.state === 'leader');
    expect(leaderAtEnd, JSON.stringify(done.recheck)).toBeDefined();
    expect(done.sessionExpiries.leader).toBe(leaderAtEnd!.address);
    expect(done.sessionExpiries.leaderSince).toBeGreaterThanOrEqual(done.startedAt!);
    // The lock is released; the state is on disk; the topic pushed the end.
    await waitFor(async () => (await keeper.ensembles.get('it').gateway.exists(UPGRADE_LOCK_PATH)) === null, { what: 'the upgrade lock released' });
    // On disk under the ensemble's identity (its /keeper/ensemble-id), not its name.
    const identity = keeper.ensembles.get('it').identity.current()!;
    const onDisk = upgradeWorkflowSchema.parse(JSON.parse(readFileSync(join(stateDir, 'ensembles', identity, 'upgrades', `${planned.id}.json`), 'utf8')));
    expect(onDisk.state).toBe('done');
    // Done only once every member was checked at the end.
    expect(onDisk.recheck).toMatchObject({ why: 'end' });
    expect(onDisk.recheck!.members.map((m) => m.ok)).toEqual([true, true, true]);
    await waitFor(() => {
      const last = browser!.topicEvents('upgrade', 'it').at(-1)?.event as { upgrade: UpgradeAnswer | null } | undefined;
      return last?.upgrade?.state === 'done';
    });
    const seenStates = new Set(browser.topicEvents('upgrade', 'it').map((e) => (e.event as { upgrade: UpgradeAnswer | null }).upgrade?.state));
    expect(seenStates.has('running')).toBe(true);

    // Audited: the create, the start, each restart and each step done, the end. The end's entry is
    // written as the runner reaches done, then flushed (fdatasync, group commit): at a load of 13 on
    // 2 cores it once landed after the state showed, so the trail is read until the end is in it.
    const entries = await waitFor(
      async () => {
        const audit = await call(keeper.url, 'GET', '/api/audit?limit=100', admin);
        const all = (audit.body.entries as { action: string; outcome: string; details?: { state?: string } }[]).filter((e) => e.action.startsWith('upgrade.'));
        return all.some((e) => e.action === 'upgrade.action' && e.details?.state === 'done') ? all : null;
      },
      { what: "the upgrade's end in the audit trail", timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(entries.filter((e) => e.action === 'upgrade.step' && e.details?.state === 'done')).toHaveLength(3);
    expect(entries.filter((e) => e.action === 'upgrade.step' && e.details?.state === 'restarting')).toHaveLength(3);
    expect(entries.some((e) => e.action === 'upgrade.create' && e.outcome === 'ok')).toBe(true);
    expect(entries.some((e) => e.action === 'upgrade.action' && e.details?.state === 'done')).toBe(true);

    // A new upgrade may be planned now; the history keeps the old one.
    const next = await post('', { mode: 'rolling' });
    expect(next.status).toBe(201);
    expect((await post(`/${next.body.id}/abort`, { reason: 'only checking' })).status).toBe(200);
    const list = upgradeListAnswerSchema.parse((await get('', viewer)).body);
    expect(list.upgrades.map((u) => u.state)).toEqual(['aborted', 'done']);
  }, 150_000);

  it('resumes after Keeper stops mid-upgrade: the member it was on is checked, never restarted twice', async () => {
    browser?.close();
    browser = null;
    restarted.length = 0;
    const created = await post('', { mode: 'rolling' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await waitFor(async () => (await post(`/${id}/start`, {})).status === 200, { what: 'the second upgrade started', timeoutMs: 20_000, intervalMs: 500 });
    // Stop Keeper as soon as the first restart was asked for (its state file says so).
    await waitFor(() => restarted.length === 1, { what: 'the first restart issued', timeoutMs: 30_000, intervalMs: 20 });
    await keeper.close();
    keeper = await startOurKeeper();
    const done = await waitFor(
      async () => {
        const wf = upgradeAnswerSchema.parse((await get(`/${id}`)).body);
        if (wf.state === 'paused' || wf.state === 'failed') throw new Error(`upgrade stopped: ${wf.reason}`);
        return wf.state === 'done' ? wf : null;
      },
      // The first process's session may outlive it (its close went to the member being restarted): up to its 10 s timeout more.
      { what: 'the resumed upgrade done', timeoutMs: 160_000, intervalMs: 500 },
    );
    expect(restarted).toEqual(done.plan.order.map((m) => m.memberId));
    const first = done.steps[0]!;
    expect(first.checks.some((c) => c.id === 'resume' && c.saw.startsWith('Keeper restarted'))).toBe(true);
    expect(done.steps.map((s) => s.state)).toEqual(['done', 'done', 'done']);
    // A wait for the previous process's lock, if there was one, ended with the lock taken, never forced.
    const lockChecks = done.steps.flatMap((s) => s.checks.filter((c) => c.id === 'upgrade-lock'));
    console.log(`lock waits: ${JSON.stringify(lockChecks.map((c) => c.saw))}`);
    if (lockChecks.length > 0) expect(lockChecks.at(-1)).toMatchObject({ ok: true, saw: expect.stringMatching(/^taken after \d+ s/) });
  }, 220_000);

  it('pauses with the reason and an alert when a member does not come back, and restarts nothing else', async () => {
    restarted.length = 0;
    stopInstead = true;
    const created = await post('', { mode: 'rolling' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await waitFor(async () => (await post(`/${id}/start`, {})).status === 200, { what: 'the upgrade started', timeoutMs: 20_000, intervalMs: 500 });
    const paused = await waitFor(
      async () => {
        const wf = upgradeAnswerSchema.parse((await get(`/${id}`)).body);
        return wf.state === 'paused' ? wf : null;
      },
      { what: 'the upgrade paused', timeoutMs: 45_000, intervalMs: 500 },
    );
    expect(paused.reason).toMatch(/did not come back within 15 s/);
    expect(paused.steps[0]!.state).toBe('paused');
    expect(paused.steps.slice(1).every((s) => s.restartRequestedAt === null)).toBe(true);
    await waitFor(
      () =>
        keeper.ensembles
          .get('it')
          .poller.current()
          ?.alerts.some((a) => a.id === `upgrade:${id}` && a.severity === 'critical'),
      {
        what: "the upgrade's alert among the ensemble's",
        timeoutMs: 5_000,
      },
    );
    // Still nothing else restarted a few polls later.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(restarted).toHaveLength(1);

    stopInstead = false;
    await ensemble.startMember(restarted[0]!);
    expect((await post(`/${id}/resume`, {})).status).toBe(200);
    const done = await waitFor(
      async () => {
        const wf = upgradeAnswerSchema.parse((await get(`/${id}`)).body);
        if (wf.state === 'failed') throw new Error(`upgrade failed: ${wf.reason}`);
        return wf.state === 'done' ? wf : null;
      },
      { what: 'the resumed upgrade done', timeoutMs: 100_000, intervalMs: 500 },
    );
    // The member brought back by hand was not restarted again.
    expect(restarted).toEqual(done.plan.order.map((m) => m.memberId));
  }, 150_000);
});
