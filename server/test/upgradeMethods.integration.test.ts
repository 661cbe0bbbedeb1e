/**
 * The two other ways an upgrade restarts members, on a real 3-member ensemble (issue 13, item 3):
 * - a `restartCommand` from the config, a real command run as an argv with no shell: the
 *   sandbox's own drill CLI (`sandbox-cli.ts restart {id}`), filled in, run with a deadline, its
 *   exit code and output kept in the step;
 * - by hand: with neither a command nor the sandbox's restarter, each step says exactly what to
 *   do, and Keeper notices the restart on its own (the test plays the operator); the operator
 *   may also mark a step done.
 * And Keeper killed for real (SIGKILL, `npm start`'s own process) while its restart command (a
 * shell line, `"shell": true`) still runs: started again on the same data dir, it finds the
 * command's process in the state, waits for it rather than asking anyone (issue 25, item 7), sees
 * the member restart when the command gets to it, restarts no one twice, counts the killed
 * process's own session apart from the clients' (issue 22, item 6), and finishes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiriesSentence, upgradeAnswerSchema, type RestartCommandConfig, type UpgradeAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { call, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-upgrade-methods-0123456789';
const admin: Who = { token: ADMIN };
const REPO = resolve(import.meta.dirname, '../..');
const TSX = join(REPO, 'node_modules', '.bin', 'tsx');

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

describe('an upgrade restarted by a command, and one restarted by hand', () => {
  let ensemble: Ensemble;
  let keeper: RunningKeeper | null = null;
  let stateDir: string;

  const start = (restartCommand: RestartCommandConfig | undefined) =>
    startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [ensembleConfigOf(ensemble, restartCommand ? { restartCommand, restartCommandTimeoutSeconds: 60 } : {})],
        auth: { stateDir, adminToken: ADMIN },
      },
      {
        logger: testLogger,
        ensembleDefaults: { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000 },
        rateLimits: { api: 100_000, loginFailures: 1_000 },
        upgradeTimings: { settleMs: 1_000, backWithinMs: 30_000 },
      },
    );

  const post = (path: string, body: unknown) => call(keeper!.url, 'POST', `/api/ensembles/it/upgrades${path}`, admin, body);
  const get = async (id: string) => upgradeAnswerSchema.parse((await call(keeper!.url, 'GET', `/api/ensembles/it/upgrades/${id}`, admin)).body);

  /** Starts an upgrade once the preflight passes (the zxid check can need one more poll). */
  async function startUpgrade(): Promise<UpgradeAnswer> {
    await waitFor(() => keeper!.ensembles.get('it').poller.current()?.quorum.votersServing === 3, { what: 'three voters serving', timeoutMs: 30_000 });
    return waitFor(
      async () => {
        const res = await post('', { mode: 'rolling', start: true });
        if (res.status === 201) return upgradeAnswerSchema.parse(res.body);
        // A plan whose start was refused stays planned: abort it and try again.
        const planned = (await call(keeper!.url, 'GET', '/api/ensembles/it/upgrades', admin)).body as { upgrades: { id: string; state: string }[] };
        for (const u of planned.upgrades.filter((x) => x.state === 'planned')) await post(`/${u.id}/abort`, { reason: 'preflight not yet passing' });
        return null;
      },
      { what: 'the upgrade started', timeoutMs: 30_000, intervalMs: 1_000 },
    );
  }

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.upgradeMethodsTest);
    stateDir = mkdtempSync(join(tmpdir(), 'keeper-upgrade-methods-'));
  }, 180_000);

  afterAll(async () => {
    await keeper?.close();
    await ensemble?.dispose();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('runs the restartCommand for each member, keeps its exit code and output, and ends done', async () => {
    // The sandbox's drill CLI asks the launcher owning this state dir to restart a member: a real command, as ssh or kubectl would be.
    const command = [TSX, join(REPO, 'scripts', 'sandbox-cli.ts'), 'restart', '{id}', '--state-dir', ensemble.stateDir, '--timeout', '45'];
    keeper = await start(command);
    const started = await startUpgrade();
    expect(started.restartMethod).toBe('command');
    const pidsBefore = new Map(ensemble.members.map((m) => [m.id, m.pid]));
    const done = await waitFor(
      async () => {
        const wf = await get(started.id);
        if (wf.state === 'paused' || wf.state === 'failed')
          throw new Error(`upgrade stopped: ${wf.reason}; commands: ${JSON.stringify(wf.steps.map((s) => s.command))}`);
        return wf.state === 'done' ? wf : null;
      },
      { what: 'the upgrade done', timeoutMs: 150_000, intervalMs: 500 },
    );
    for (const step of done.steps) {
      expect(step.state).toBe('done');
      // Filled in: the member's id in place of {id}; shown as the words it ran.
      expect(step.command?.line).toBe(command.map((w) => w.replace('{id}', String(step.memberId))).join(' '));
      expect(step.command?.process?.pid).toEqual(expect.any(Number));
      expect(step.command?.exitCode).toBe(0);
      expect(step.command?.outputTail).toMatch(new RegExp(`member ${step.memberId}`));
      expect(ensemble.members.find((m) => m.id === step.memberId)!.pid).not.toBe(pidsBefore.get(step.memberId!));
    }
    expect(done.steps.at(-1)!.role).toBe('leader');
    await keeper.close();
    keeper = null;
  }, 200_000);

  it('Keeper killed mid-upgrade (SIGKILL) and started again: resumes, restarts each member once, and ends done', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'keeper-upgrade-kill-'));
    const restartsLog = join(dataDir, 'restarts.log');
    const token = 'admin-token-for-the-killed-keeper-0123456789';
    // The command holds its restart until the test says go: Keeper is killed while it runs, and it restarts the member only after Keeper came back.
    const go = join(dataDir, 'go');
    const line = `echo {id} >> ${restartsLog} && while [ ! -e ${go} ]; do sleep 0.2; done && ${TSX} ${join(REPO, 'scripts', 'sandbox-cli.ts')} restart {id} --state-dir ${ensemble.stateDir} --timeout 45`;
    const configFile = join(dataDir, 'keeper.json');
    // A 40 s session: the killed process's session, and its upgrade lock, must outlive the start of the next process,
    // which must see it hold the lock to count its expiry apart (a session already gone may have been closed, and is
    // not counted). tsx compiles the server as it starts: 6-11 s at load 7, and over 20 s at load 19, where a 20 s
    // session was gone first (2026-12-07). A 1 s settle: what is tested is the resume, not the default timings.
    writeFileSync(
      configFile,
      JSON.stringify({
        ensembles: [ensembleConfigOf(ensemble, { restartCommand: { shell: true, line }, sessionTimeoutMs: 40_000, upgradeSettleSeconds: 1 })],
      }),
    );
    const children: ChildProcess[] = [];
    /** `npm start --config` as its own process: answers its URL once it serves. */
    const launch = async (): Promise<string> => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'scripts/start.ts', '--config', configFile, '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
        {
          cwd: REPO,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, KEEPER_ADMIN_TOKEN: token, KEEPER_WEB_DIST: join(dataDir, 'no-web') },
        },
      );
      children.push(child);
      let out = '';
      child.stderr!.on('data', (d) => (out += String(d)));
      return new Promise<string>((resolveUrl, reject) => {
        child.stdout!.on('data', (d) => {
          out += String(d);
          const url = /Keeper is serving (http:\/\/\S+)/.exec(out)?.[1];
          if (url) resolveUrl(url);
        });
        child.once('exit', (code, signal) => reject(new Error(`Keeper exited (${code ?? signal}) before serving:\n${out}`)));
      });
    };
    const who: Who = { token };
    try {
      let url = await launch();
      const started = await waitFor(
        async () => {
          const res = await call(url, 'POST', '/api/ensembles/it/upgrades', who, { mode: 'rolling', start: true });
          if (res.status === 201) return upgradeAnswerSchema.parse(res.body);
          const list = (await call(url, 'GET', '/api/ensembles/it/upgrades', who)).body as { upgrades: { id: string; state: string }[] };
          for (const u of list.upgrades.filter((x) => x.state === 'planned')) await call(url, 'POST', `/api/ensembles/it/upgrades/${u.id}/abort`, who, {});
          return null;
        },
        { what: 'the upgrade started', timeoutMs: 40_000, intervalMs: 1_000 },
      );
      const read = async (at: string) => upgradeAnswerSchema.parse((await call(at, 'GET', `/api/ensembles/it/upgrades/${started.id}`, who)).body);
      // Killed while the first restart's command runs (its process recorded in the state).
      const running = await waitFor(
        async () => {
          const wf = await read(url);
          return wf.steps[0]!.command?.process ? wf : null;
        },
        { what: 'the first restart command running', timeoutMs: 60_000, intervalMs: 50 },
      );
      const pid = running.steps[0]!.command!.process!.pid;
      children[0]!.kill('SIGKILL');
      await new Promise((r) => children[0]!.once('exit', r));
      url = await launch();
      // The command outlived Keeper: the new process waits for it, it does not ask anyone to restart the member.
      const waiting = await waitFor(
        async () => {
          const wf = await read(url);
          if (wf.state === 'paused') throw new Error(`paused instead of waiting for the command: ${wf.reason}`);
          return wf.steps[0]!.checks.find((c) => c.id === 'restart-process') ? wf : null;
        },
        { what: 'the resumed Keeper waiting for the command', timeoutMs: 60_000, intervalMs: 250 },
      );
      expect(waiting.steps[0]!.checks.find((c) => c.id === 'restart-process')!.saw).toMatch(
        /^Keeper restarted: the restart command the previous Keeper process started is still running: .*waiting up to \d+ s for the command before asking anyone$/,
      );
      expect(waiting.steps[0]).toMatchObject({ state: 'restarting', command: { process: { pid } } });
      writeFileSync(go, '');
      const done = await waitFor(
        async () => {
          const wf = await read(url);
          if (wf.state === 'paused' || wf.state === 'failed') throw new Error(`upgrade stopped: ${wf.reason}`);
          return wf.state === 'done' ? wf : null;
        },
        // The killed process's session lives on for up to its timeout (40 s).
        { what: 'the resumed upgrade done', timeoutMs: 200_000, intervalMs: 1_000 },
      );
      const first = done.steps[0]!;
      expect(first.checks.some((c) => c.id === 'restart-process' && c.saw.startsWith('Keeper restarted'))).toBe(true);
      // Each member restarted exactly once, in the plan's order: the first was never asked again.
      const restarts = readFileSync(restartsLog, 'utf8').trim().split('\n').map(Number);
      expect(restarts).toEqual(done.plan.order.map((m) => m.memberId));
      expect(done.steps.map((s) => s.state)).toEqual(['done', 'done', 'done']);
      expect(done.steps[0]!.evidence).not.toBe('operator-confirmed');
      // The killed process's session expired during the upgrade: counted, and apart from the clients'.
      expect(done.sessionExpiries.keeper).toBe(1);
      expect(done.sessionExpiries.count).toBeGreaterThanOrEqual(1);
      expect(expiriesSentence(done.sessionExpiries)).toContain(
        "counted apart: the previous Keeper process's session, which expired after that process stopped",
      );
      console.log(
        `after the kill: ${JSON.stringify(done.steps.flatMap((s) => s.checks.filter((c) => c.id === 'upgrade-lock' || c.id === 'resume' || c.id === 'restart-process').map((c) => c.saw)))}`,
      );
    } finally {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 320_000);

  it('by hand: each step says what to do, the restart is noticed on its own, and a step can be marked done', async () => {
    keeper = await start(undefined);
    const started = await startUpgrade();
    expect(started.restartMethod).toBe('manual');
    const handled = new Set<string>();
    const done = await waitFor(
      async () => {
        const wf = await get(started.id);
        if (wf.state === 'paused' || wf.state === 'failed') throw new Error(`upgrade stopped: ${wf.reason}`);
        for (const [i, step] of wf.steps.entries()) {
          if (step.state !== 'restarting' || handled.has(step.address)) continue;
          handled.add(step.address);
          const asked = step.checks.find((c) => c.id === 'restart-command');
          expect(asked?.saw).toContain(`Restart member ${step.memberId}, ${step.address}, now`);
          if (i === 0) {
            // The operator marks the first step done (the test does not restart it): Keeper takes their word, then checks it serves and syncs.
            expect((await post(`/${wf.id}/steps/${step.memberId}/markDone`, {})).status).toBe(200);
          } else {
            await ensemble.restartMember(step.memberId!, { timeoutMs: 45_000 });
          }
        }
        return wf.state === 'done' ? wf : null;
      },
      { what: 'the manual upgrade done', timeoutMs: 150_000, intervalMs: 500 },
    );
    expect(done.steps.map((s) => s.state)).toEqual(['done', 'done', 'done']);
    expect(done.steps[0]!.evidence).toBe('operator-confirmed');
    // The restarts done by hand were noticed by Keeper itself (a new process, or uptime back to zero).
    for (const step of done.steps.slice(1)) expect(step.evidence).not.toBe('operator-confirmed');
    expect(done.steps.at(-1)!.role).toBe('leader');
  }, 200_000);
});
