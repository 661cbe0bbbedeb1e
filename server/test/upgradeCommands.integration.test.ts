/**
 * What an upgrade says of its restarts, on a real 3-member ensemble:
 * - a restart command's line and output (which may hold a token) reach admins only: viewers and
 *   share links get the step's outcome and exit code, over HTTP and on the socket (issue 25, item 4);
 * - a member back and synced on another build than the target is said to be so, not "did not sync",
 *   and may be restarted again; an upgrade whose members were skipped ends "done with exceptions",
 *   never done, naming each member and its build (issue 22, items 1 and 2);
 * - a step paused because its restart was not seen goes on by itself when the member restarts
 *   later, as a detached command's would (issue 25, item 7).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upgradeAnswerSchema, upgradeListAnswerSchema, type UpgradeAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { UPGRADE_LOCK_PATH } from '../src/workflows/workflowLock.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { call, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-upgrade-commands-0123456789';
const VIEWER = 'viewer-token-for-upgrade-commands-0123456789';
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };
/** What the command's author keeps secret: in its line and in its output. */
const SECRET = 's3cr3t';

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

let ensemble: Ensemble;
let stateDir: string;
let keeper: RunningKeeper | null = null;
const browsers: TestBrowser[] = [];
/** Members the sandbox restarter restarted, in order. */
const restarted: number[] = [];
/** Set by a test: the next restart is only scheduled, and happens this many ms later (a detached command's way). */
let delayNextRestartMs = 0;
/** Set by a test: the next restart command runs and restarts nothing (it "succeeds"), as a wrong command would. */
let skipNextRestart = false;
const late: Promise<unknown>[] = [];

const start = (extra: Parameters<typeof ensembleConfigOf>[1], timings: Record<string, number>) =>
  startKeeper(
    { host: '127.0.0.1', port: 0, ensembles: [ensembleConfigOf(ensemble, extra)], auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER } },
    {
      logger: testLogger,
      ensembleDefaults: { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000 },
      rateLimits: { api: 100_000, loginFailures: 1_000, loginFailuresPerAddress: 1_000 },
      upgradeTimings: { settleMs: 1_000, ...timings },
      restartMember: async (_name, id) => {
        restarted.push(id);
        if (skipNextRestart) {
          skipNextRestart = false;
          return { message: `member ${id}: the command ran and restarted nothing` };
        }
        if (delayNextRestartMs > 0) {
          const delay = delayNextRestartMs;
          delayNextRestartMs = 0;
          late.push(new Promise((r) => setTimeout(r, delay)).then(() => ensemble.restartMember(id, { timeoutMs: 45_000 })));
          return { message: `member ${id}: restart scheduled in ${delay} ms` };
        }
        const outcome = await ensemble.restartMember(id, { timeoutMs: 45_000 });
        return { message: outcome.message, processChanged: outcome.previousPid !== outcome.member.pid };
      },
    },
  );

const url = () => keeper!.url;
const get = async (id: string, who: Who = admin) => {
  const res = await call(url(), 'GET', `/api/ensembles/it/upgrades/${id}`, who);
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  return upgradeAnswerSchema.parse(res.body);
};
const post = (path: string, body: unknown = {}) => call(url(), 'POST', `/api/ensembles/it/upgrades${path}`, admin, body);

async function startedUpgrade(body: Record<string, unknown>): Promise<UpgradeAnswer> {
  await waitFor(() => keeper!.ensembles.get('it').poller.current()?.quorum.votersServing === 3, { what: 'three voters serving', timeoutMs: 60_000 });
  return waitFor(
    async () => {
      const res = await post('', { mode: 'rolling', start: true, ...body });
      if (res.status === 201) return upgradeAnswerSchema.parse(res.body);
      const list = upgradeListAnswerSchema.parse((await call(url(), 'GET', '/api/ensembles/it/upgrades', admin)).body);
      // A plan whose start was refused (the preflight not passing yet), or one left by a failed test: aborted, and tried again.
      for (const u of list.upgrades.filter((x) => ['planned', 'running', 'paused'].includes(x.state))) await post(`/${u.id}/abort`, { reason: 'not started' });
      return null;
    },
    { what: 'the upgrade started', timeoutMs: 60_000, intervalMs: 1_000 },
  );
}

const until = (id: string, what: string, ok: (wf: UpgradeAnswer) => boolean, timeoutMs = 90_000) =>
  waitFor(
    async () => {
      const wf = await get(id);
      return ok(wf) ? wf : null;
    },
    { what, timeoutMs, intervalMs: 250 },
  );

/** A share link with the ensemble views, opened as a browser with no identity. */
async function shareHolder(): Promise<Who> {
  const created = await call(url(), 'POST', '/api/share-links', admin, { path: '/ensembles/it/upgrades', expiresInMinutes: 30 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const opened = await fetch(created.body.url, { redirect: 'manual' });
  const cookie = /keeper_session=[^;]*/.exec(opened.headers.get('set-cookie') ?? '')![0];
  const me = await call(url(), 'GET', '/api/me', { cookie });
  return { cookie, csrf: me.body.csrfToken };
}

async function browser(headers: Record<string, string>): Promise<TestBrowser> {
  const b = await TestBrowser.open(url(), { headers });
  browsers.push(b);
  await b.subscribed('upgrade', 'it', {});
  await b.subscribed('ensembleHealth', 'it', {});
  return b;
}

async function closeKeeper(): Promise<void> {
  for (const b of browsers.splice(0)) b.close();
  await keeper?.close();
  keeper = null;
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.upgradeCommandsTest);
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-upgrade-commands-'));
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(late);
  await closeKeeper();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 120_000);

describe("a restart command's line and output", () => {
  it('reach admins only: viewers and share links get the outcome and exit code, over HTTP and on the socket', async () => {
    // A command carrying a token, printing it, and failing: nothing is restarted, the step pauses with exit 3.
    keeper = await start({ restartCommand: { shell: true, line: `DEPLOY_TOKEN=${SECRET}-token-{id} sh -c 'echo ${SECRET}-output; exit 3'` } }, {});
    const share = await shareHolder();
    const watchers = [
      ['viewer', await browser({ authorization: `Bearer ${VIEWER}` })],
      ['share link', await browser({ cookie: share.cookie! })],
      ['admin', await browser({ authorization: `Bearer ${ADMIN}` })],
    ] as const;
    const started = await startedUpgrade({});
    const paused = await until(started.id, 'the upgrade paused on the failed command', (wf) => wf.state === 'paused');
    expect(restarted).toEqual([]);

    // The admin reads all of it.
    const first = paused.steps[0]!;
    expect(first.command).toMatchObject({ exitCode: 3, withheld: false, line: expect.stringContaining(`${SECRET}-token-${first.memberId}`) });
    expect(first.command!.outputTail).toContain(`${SECRET}-output`);
    expect(first.command!.process?.pid).toEqual(expect.any(Number));

    // Everyone else: the exit code and the outcome, and not a trace of the line or the output.
    for (const [label, who] of [
      ['viewer', viewer],
      ['share link', share],
    ] as const) {
      const one = await call(url(), 'GET', `/api/ensembles/it/upgrades/${started.id}`, who);
      expect(one.status, label).toBe(200);
      expect(JSON.stringify(one.body), label).not.toContain(SECRET);
      const seen = upgradeAnswerSchema.parse(one.body);
      expect(seen.steps[0]!.command, label).toEqual({
        line: null,
        exitCode: 3,
        outputTail: '',
        deadlineAt: first.command!.deadlineAt,
        process: null,
        withheld: true,
      });
      expect(seen.reason, label).toBe(`The restart of member ${first.memberId} (${first.address}) failed: the restart exited 3`);
      expect(
        seen.steps[0]!.checks.some((c) => c.id === 'restart-command' && !c.ok),
        label,
      ).toBe(true);
      const list = await call(url(), 'GET', '/api/ensembles/it/upgrades', who);
      expect(list.status, label).toBe(200);
      expect(JSON.stringify(list.body), label).not.toContain(SECRET);
      const members = await call(url(), 'GET', '/api/ensembles/it/members', who);
      expect(JSON.stringify(members.body), `${label} members (the upgrade's alert)`).not.toContain(SECRET);
      expect(JSON.stringify(members.body)).toContain(`upgrade:${started.id}`);
    }
    // The socket: one event for every browser, admins' too, with the exit code and no secret.
    for (const [label, b] of watchers) {
      await waitFor(() => b.topicEvents('upgrade', 'it').some((e) => e.event.upgrade?.state === 'paused'), { what: `${label} sees the pause` });
      const frames = JSON.stringify([...b.topicEvents('upgrade', 'it'), ...b.topicEvents('ensembleHealth', 'it')]);
      expect(frames, label).not.toContain(SECRET);
      const last = b.topicEvents('upgrade', 'it').at(-1)!.event.upgrade!;
      expect(last.steps[0]!.command, label).toMatchObject({ exitCode: 3, withheld: true, line: null, outputTail: '' });
    }
    expect((await post(`/${started.id}/abort`, { reason: 'checked' })).status).toBe(200);
    await waitFor(async () => (await keeper!.ensembles.get('it').gateway.exists(UPGRADE_LOCK_PATH)) === null, { what: 'the upgrade lock released' });
    await closeKeeper();
  }, 150_000);
});

describe('a member back on another build, and members skipped', () => {
  it('says the build is not the target (not "did not sync"), restarts it again, and ends "done with exceptions" naming each member and its build', async () => {
    keeper = await start(undefined, { backWithinMs: 30_000 });
    restarted.length = 0;
    const target = 'built on 1999-01-01';
    const started = await startedUpgrade({ targetVersion: target });
    const first = started.plan.order[0]!;
    const mismatch = new RegExp(
      `^member ${first.memberId} serves and is synced, but runs 3\\.8\\.0 built on \\d{4}-\\d\\d-\\d\\d, not the target built on 1999-01-01\\. Restart it again, skip it, or abort\\.$`,
    );
    const paused = await until(started.id, 'paused on the build', (wf) => wf.state === 'paused');
    expect(paused.reason).toMatch(mismatch);
    expect(paused.reason).not.toContain('did not sync');
    expect(paused.steps[0]).toMatchObject({ state: 'paused', pausedFrom: 'back' });
    expect(restarted).toEqual([first.memberId]);

    // Restart again: the step starts over from its gates and the member is restarted a second time.
    const again = await post(`/${started.id}/steps/${first.memberId}/restartAgain`);
    expect(again.status, JSON.stringify(again.body).slice(0, 300)).toBe(200);
    expect(again.body).toMatchObject({ state: 'running', reason: null });
    const pausedAgain = await until(started.id, 'paused on the build again', (wf) => wf.state === 'paused' && restarted.length === 2);
    expect(restarted).toEqual([first.memberId, first.memberId]);
    expect(pausedAgain.reason).toMatch(mismatch);
    expect(
      pausedAgain.steps[0]!.checks.some((c) => c.id === 'operator' && c.saw === 'admin-token asked for another restart: the gates are checked first'),
    ).toBe(true);
    // Not on a step that is not paused after its restart.
    const refused = await post(`/${started.id}/steps/${started.plan.order[1]!.memberId}/restartAgain`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('UPGRADE_REFUSED');

    // Every member skipped: the steps all end, and the upgrade is not done.
    for (const m of started.plan.order)
      expect((await post(`/${started.id}/steps/${m.memberId}/skip`, { confirmation: `skip member ${m.memberId}` })).status).toBe(200);
    const ended = await until(started.id, 'the upgrade ended', (wf) => wf.finishedAt !== null, 20_000);
    expect(ended.state).toBe('doneWithExceptions');
    expect(ended.progress.sentence).toMatch(
      /^Done with exceptions: 0 members restarted in \d+ s, 3 skipped; not as planned: member \d, member \d and member \d\.$/,
    );
    expect(ended.recheck).toMatchObject({ why: 'end' });
    expect(ended.recheck!.members.map((m) => m.ok)).toEqual([false, false, false]);
    for (const m of started.plan.order) {
      expect(ended.reason).toMatch(
        new RegExp(
          `member ${m.memberId} was skipped \\(not restarted by this upgrade\\); it runs 3\\.8\\.0 built on \\d{4}-\\d\\d-\\d\\d, not the target built on 1999-01-01`,
        ),
      );
    }
    const list = upgradeListAnswerSchema.parse((await call(url(), 'GET', '/api/ensembles/it/upgrades', viewer)).body);
    expect(list.upgrades[0]).toMatchObject({ id: started.id, state: 'doneWithExceptions' });
    // The end's entry is flushed (fdatasync, group commit) as the runner ends: it may land a moment
    // after the state shows, so the trail is read until it is there.
    const end = await waitFor(
      async () => {
        const audit = await call(url(), 'GET', '/api/audit?limit=50', admin);
        return (audit.body.entries as { action: string; outcome: string; details?: { state?: string } }[]).find(
          (e) => e.action === 'upgrade.action' && e.details?.state === 'doneWithExceptions',
        );
      },
      { what: "the upgrade's end in the audit trail", timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(end).toMatchObject({ outcome: 'ok', note: ended.reason });
  }, 200_000);
});

describe('a restart that happens after its step paused', () => {
  it('is seen by the paused step, which goes on by itself', async () => {
    await closeKeeper();
    // The restart is seen within 3 s or the step pauses; this one comes 10 s later, as a detached command's would.
    keeper = await start(undefined, { wentDownWithinMs: 3_000 });
    restarted.length = 0;
    delayNextRestartMs = 10_000;
    const started = await startedUpgrade({});
    const first = started.plan.order[0]!;
    const paused = await until(started.id, 'paused: no restart seen within 3 s', (wf) => wf.state === 'paused', 30_000);
    expect(paused.reason).toMatch(new RegExp(`^member ${first.memberId} \\(.*\\) did not go down or restart within 3 s of the restart`));
    expect(paused.steps[0]).toMatchObject({ state: 'paused', pausedFrom: 'restarting' });
    // The member restarts: the step sees it and goes on, and so does the upgrade.
    const onItsWay = await until(started.id, 'the step done after the late restart', (wf) => wf.steps[0]!.state === 'done', 90_000);
    expect(onItsWay.state).not.toBe('paused');
    const seen = onItsWay.steps[0]!.checks.find((c) => c.id === 'went-down' && c.saw.endsWith('the restart happened after the pause, so the step goes on'));
    expect(seen, JSON.stringify(onItsWay.steps[0]!.checks.map((c) => c.saw))).toBeDefined();
    // Its member restarted once (the next step may have begun by now).
    expect(restarted.filter((id) => id === first.memberId)).toEqual([first.memberId]);
    expect((await post(`/${started.id}/abort`, { reason: 'the first step was what this test is about' })).status).toBe(200);
    await Promise.allSettled(late);
  }, 150_000);
});

describe('a member that never restarted, its answers read late by a stalled Keeper', () => {
  it('is not counted restarted: its uptime is compared from when each probe was sent (issue 34 item 5)', async () => {
    await closeKeeper();
    keeper = await start(undefined, { wentDownWithinMs: 3_000 });
    restarted.length = 0;
    skipNextRestart = true;
    const started = await startedUpgrade({});
    const first = started.plan.order[0]!;
    const paused = await until(started.id, 'paused: no restart seen within 3 s', (wf) => wf.state === 'paused', 30_000);
    expect(paused.steps[0]).toMatchObject({ state: 'paused', pausedFrom: 'restarting' });
    // Keeper's event loop stalls 5 s right after the member's next answers arrive, as a SIGSTOP of
    // Keeper or a flood would: each answer is read 5 s after the member gave it. Counted from when
    // the answer was read, its uptime looked 5 s short (past the 3 s slack): "uptime went back".
    const ens = keeper.ensembles.get('it');
    const address = ens.poller.current()!.members.find((m) => m.id === first.memberId)!.address;
    const { transport } = ens.monitor;
    let stalls = 0;
    const stall = <T>(answer: T): T => {
      if (stalls >= 4) return answer;
      stalls++;
      const until = Date.now() + 5_000;
      while (Date.now() < until) {
        // the event loop held, as a stopped process's is
      }
      return answer;
    };
    const admin = transport.admin.bind(transport);
    transport.admin = async (member, command, purpose) => {
      const answer = await admin(member, command, purpose);
      return purpose === 'poll' && member.address === address ? stall(answer) : answer;
    };
    const word = transport.fourLetterWord.bind(transport);
    transport.fourLetterWord = async (member, w, purpose) => {
      const answer = await word(member, w, purpose);
      return purpose === 'poll' && member.address === address ? stall(answer) : answer;
    };
    await waitFor(() => stalls === 4, { what: 'four answers read 5 s late', timeoutMs: 60_000, intervalMs: 100 });
    // Two whole rounds after the last stall: every late reading has been judged.
    const rounds = ens.poller.rounds;
    await waitFor(() => ens.poller.rounds >= rounds + 2, { what: 'two more poll rounds', timeoutMs: 30_000, intervalMs: 100 });
    const after = await get(started.id);
    const saw = after.steps[0]!.checks.map((c) => c.saw);
    expect(after.state, JSON.stringify(saw)).toBe('paused');
    expect(after.steps[0]).toMatchObject({ state: 'paused', pausedFrom: 'restarting' });
    expect(saw.filter((s) => s.includes('uptime went back'))).toEqual([]);
    // Nothing else was restarted: the next member's command never ran.
    expect(restarted).toEqual([first.memberId]);
    expect((await post(`/${started.id}/abort`, { reason: 'what this test is about is done' })).status).toBe(200);
  }, 150_000);
});
