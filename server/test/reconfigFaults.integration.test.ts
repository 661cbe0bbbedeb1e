/**
 * The resize workflow (issue 24 item 6, docs/design/reconfig.md) on a real reconfig-enabled ensemble, where
 * it can go wrong, each through Keeper's API under kazoo writers recording every acknowledged write:
 *   - a member to add that runs without reconfigEnabled: up but never serving (it restarts its
 *     election on the ensemble's newer configuration version); the preflight names it and says
 *     why, the start is refused (409), nothing changes;
 *   - a voter → observer → voter round trip (roles {"N": "observer"}, then back), each step's window
 *     sampled while it runs: /zookeeper/config moves once, the member's own mode (srvr) goes from
 *     the old role to the new one and stays, the other voters serve throughout, Keeper never says
 *     a step is done before /zookeeper/config and the member say so; no acknowledged write lost, no
 *     session expired;
 *   - Keeper killed (SIGKILL, a real child process) with a step's reconfig in flight: a loopback
 *     proxy in front of Keeper's member loses the reconfig's reply (the member applied it) and, on
 *     the way back, the reconfig itself (nothing applied). A new Keeper on the same state directory
 *     reads /zookeeper/config, takes the first as applied without sending it again and resends the
 *     second once, and finishes; the proxy counts every reconfig that reached the member.
 * One ensemble for the file (3 voters, back to 3 voters after each test).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isNotServing,
  reconfigListAnswerSchema,
  reconfigWorkflowSchema,
  type ConfiguredRole,
  type DynamicConfig,
  type EnsembleHealth,
  type ReconfigWorkflow,
} from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { KeeperOptions } from '../src/config/types.js';
import { UPGRADE_LOCK_PATH } from '../src/workflows/workflowLock.js';
import { ZkGateway } from '../src/zk/gateway.js';
import { fourLetterWord, sandboxServerLine, type SandboxEnsemble } from '../../scripts/sandbox/index.js';
import { longestGapAcross, missingWrites, startingOn, startLoadWriter, type LoadReport, type RunningLoadWriter } from '../../scripts/lib/kazoo/index.js';
import { call, type Who } from './support/http.js';
import { launchKeeper, type KeeperProcess, type KeeperProcessSpec } from './support/keeperProcess.js';
import { LossyProxy } from './support/lossyProxy.js';
import { testLogger } from './support/logger.js';
import { clientHosts, expectError, expectVerified, leaderOf, memberMode, readDynamicConfig, resizeApi, verifyMembership } from './support/resize.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { waitFor } from './support/waitFor.js';

const OFFSET = PORT_OFFSETS.reconfigFaultsTest;
const SUPER_PASSWORD = 'resize-faults-super';
const WRITER_SESSION_TIMEOUT_MS = 10_000;
/** Keeper's sessions in the kill test: a killed Keeper's lock goes with its session, this long after the kill. */
const KEEPER_SESSION_MS = 4_000;
const ADMIN = 'admin-token-for-the-resize-faults-0123456789';
const VIEWER = 'viewer-token-for-the-resize-faults-0123456789';
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };
/** The member started without reconfigEnabled (its zoo.cfg says reconfigEnabled=false). */
const NO_RECONFIG = 4;
const VOTERS = [1, 2, 3];

let ensemble: SandboxEnsemble & { dispose(): Promise<void> };
let gateway: ZkGateway;
let dir: string;
let keeper: RunningKeeper | null = null;
let keeperUrl = '';
const children: KeeperProcess[] = [];
let writers: RunningLoadWriter[] = [];

const readConfig = (): Promise<DynamicConfig> => readDynamicConfig(gateway);
const { api: apiAs } = resizeApi(() => keeperUrl, viewer);
const api = (method: string, path: string, body?: unknown) => apiAs(method, path, admin, body);
const portOf = (id: number) => ensemble.member(id).clientPort;

/** Keeper's entry for the ensemble: its 3 voters polled, the super user's credential for the resize's own session. */
function keeperOptions(connectionString: string, stateDir: string): KeeperOptions {
  const members = ensemble.members.filter((m) => VOTERS.includes(m.id));
  return {
    host: '127.0.0.1',
    port: 0,
    ensembles: [ensembleConfigOf({ connectionString, members }, { reconfigAuth: { scheme: 'digest', credential: `super:${SUPER_PASSWORD}` } })],
    auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
  };
}

const EXTRAS = { ensembleDefaults: { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000 }, rateLimits: { api: 100_000 } };

/** Until Keeper has read its resizes and polled all `voters` serving (what the preflight needs). */
async function keeperReady(url: string, voters = 3): Promise<void> {
  await waitFor(
    async () => {
      if ((await call(url, 'GET', '/api/ensembles/it/reconfig', viewer)).status !== 200) return false;
      const health = (await call(url, 'GET', '/api/ensembles/it/members', viewer)).body as EnsembleHealth;
      return health.quorum?.voters === voters && health.quorum.votersServing === voters && health.quorum.hasQuorum;
    },
    { what: `Keeper's resizes read and the ${voters} voters polled serving`, timeoutMs: 30_000, intervalMs: 200 },
  );
}

/** One kazoo writer per voter, each starting on its own member (the one whose role changes has one too). */
async function startWriters(root: string): Promise<void> {
  const hosts = clientHosts(OFFSET, VOTERS);
  writers = await Promise.all(
    VOTERS.map((_, i) => startLoadWriter({ hosts: startingOn(hosts, i), root: `${root}/${i}`, sessionTimeoutMs: WRITER_SESSION_TIMEOUT_MS })),
  );
  await waitFor(() => writers.every((w) => w.acks.length >= 10), { what: 'every writer acknowledged', timeoutMs: 20_000 });
}

/** Stops the writers: every acknowledged write is there, none failed, no session expired. */
async function stopWriters(): Promise<LoadReport[]> {
  const reports = await Promise.all(writers.map((w) => w.stop()));
  writers = [];
  const missing = await missingWrites(clientHosts(OFFSET, VOTERS), reports);
  for (const [root, lost] of missing) expect(lost, `${root}: acknowledged but missing`).toEqual([]);
  for (const r of reports) {
    expect(r.fails, `${r.root}: writes not acknowledged within their retry deadline`).toEqual([]);
    expect(r.expired, `${r.root}: ${JSON.stringify(r.states)}`).toBe(false);
    expect(r.sessionIds).toHaveLength(1);
  }
  console.log(
    `${reports.reduce((n, r) => n + r.acks.length, 0)} writes acknowledged; members ${reports.map((r) => r.peers.map((p) => p.peer).join(' -> ')).join('; ')}`,
  );
  return reports;
}

/** What one look at the window showed: Keeper's word first, then ZooKeeper's. */
interface Sample {
  at: number;
  /** Keeper's workflow and step state, read before the rest. */
  state: ReconfigWorkflow['state'];
  step: ReconfigWorkflow['steps'][number]['state'];
  version: string | null;
  /** The changing member's role in /zookeeper/config. */
  role: ConfiguredRole | null;
  /** Each voter's own mode (srvr). */
  modes: Map<number, string | null>;
}

/**
 * Looks at the window every 100 ms until the workflow ends, and twice in its end state. With
 * `begin` (the start), the first look is taken before it, so the window opens before the step.
 */
async function sampleWindow(id: string, memberId: number, begin?: () => Promise<void>): Promise<{ samples: Sample[]; wf: ReconfigWorkflow }> {
  const samples: Sample[] = [];
  const look = async (): Promise<ReconfigWorkflow | null> => {
    const at = Date.now();
    // A Keeper still starting (not serving yet, its resizes not read) has no word yet: ZooKeeper's is not recorded alone.
    const res = await call(keeperUrl, 'GET', `/api/ensembles/it/reconfig/${id}`, viewer).catch(() => null);
    const wf = res?.status === 200 ? reconfigWorkflowSchema.parse(res.body) : null;
    const [config, modes] = await Promise.all([
      readConfig(),
      Promise.all(VOTERS.map(async (m) => [m, await memberMode(portOf(m))] as const)).then((pairs) => new Map(pairs)),
    ]);
    if (wf) {
      const role = config.members.find((m) => m.id === memberId)?.role ?? null;
      samples.push({ at, state: wf.state, step: wf.steps[0]!.state, version: config.version, role, modes });
    }
    return wf;
  };
  if (begin) {
    await look();
    await begin();
  }
  for (;;) {
    const wf = await look();
    if (wf && wf.state !== 'running' && wf.state !== 'planned') {
      if (samples.filter((s) => s.state === wf.state).length >= 2) return { samples, wf };
      continue;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The window of one role change, sample by sample: /zookeeper/config moved once (from → to); the
 * member's own mode went from its old role to its new one and never back; the other voters served
 * throughout (the quorum never lost); whenever Keeper said the step was done, ZooKeeper agreed.
 */
function expectWindow(samples: Sample[], memberId: number, change: { from: string; to: string; fromMode: string; toMode: string; toRole: ConfiguredRole }) {
  const versions = samples.map((s) => s.version);
  expect(new Set(versions), 'only the version before and the one the step made').toEqual(new Set([change.from, change.to]));
  expect(versions.lastIndexOf(change.from)).toBeLessThan(versions.indexOf(change.to));
  const modes = samples.map((s) => s.modes.get(memberId) ?? 'none');
  const firstNew = modes.indexOf(change.toMode);
  expect(firstNew, `member ${memberId} became ${change.toMode}: ${modes.join(' ')}`).toBeGreaterThanOrEqual(0);
  expect(
    modes.slice(firstNew).every((m) => m === change.toMode),
    `member ${memberId} stayed ${change.toMode}: ${modes.join(' ')}`,
  ).toBe(true);
  expect(
    modes.slice(0, firstNew).every((m) => m === change.fromMode || m === 'none'),
    modes.join(' '),
  ).toBe(true);
  for (const s of samples) {
    const others = VOTERS.filter((m) => m !== memberId).map((m) => s.modes.get(m));
    expect(others.every((m) => m === 'leader' || m === 'follower') && others.includes('leader'), `the other voters at ${s.at}: ${others.join(' ')}`).toBe(true);
    if (s.step === 'done') {
      expect(s.version, 'Keeper said done: /zookeeper/config has the change').toBe(change.to);
      expect(s.role).toBe(change.toRole);
      expect(s.modes.get(memberId), `Keeper said done: member ${memberId} says ${change.toMode}`).toBe(change.toMode);
    }
  }
  console.log(
    `window of ${samples.length} samples over ${samples.at(-1)!.at - samples[0]!.at} ms: Keeper ${[...new Set(samples.map((s) => s.step))].join(' -> ')}; ` +
      `member ${memberId} ${modes.filter((m, i) => i === 0 || m !== modes[i - 1]).join(' -> ')}`,
  );
}

/** The state file of resize `id` as Keeper last wrote it (`<stateDir>/ensembles/<identity>/reconfigs/<id>.json`). */
function onDisk(stateDir: string, id: string): ReconfigWorkflow {
  const file = readdirSync(stateDir, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith(`reconfigs/${id}.json`));
  if (!file) throw new Error(`no state file for resize ${id} under ${stateDir}`);
  return reconfigWorkflowSchema.parse(JSON.parse(readFileSync(join(stateDir, file), 'utf8')));
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(OFFSET, {
    reconfig: { superPassword: SUPER_PASSWORD },
    memberConfig: (id): Record<string, string> => (id === NO_RECONFIG ? { reconfigEnabled: 'false' } : {}),
  });
  gateway = new ZkGateway({ name: 'it', connectionString: ensemble.connectionString, requestDeadlineMs: 10_000, logger: testLogger });
  gateway.start();
  dir = mkdtempSync(join(tmpdir(), 'keeper-resize-faults-'));
  await waitFor(() => gateway.session.sessionId, { what: "the test's session", timeoutMs: 20_000 });
}, 90_000);

afterAll(async () => {
  await Promise.all(writers.map((w) => w.stop().catch(() => undefined)));
  await keeper?.close();
  await Promise.all(children.map((c) => c.kill()));
  gateway?.close();
  await ensemble?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the resize workflow where it can go wrong', () => {
  it('refuses to start with a member to add that runs without reconfigEnabled, naming it and saying why: 409, nothing changed', async () => {
    keeper = await startKeeper(keeperOptions(ensemble.connectionString, mkdtempSync(join(dir, 'keeper-'))), { logger: testLogger, ...EXTRAS });
    keeperUrl = keeper.url;
    await keeperReady(keeperUrl);
    const before = await readConfig();
    expect(before.members.map((m) => m.id)).toEqual(VOTERS);

    // A real member started so: the sandbox writes reconfigEnabled=false in its zoo.cfg, with the current configuration plus itself.
    const four = await ensemble.addMember(NO_RECONFIG, { waitServing: false });
    expect(readFileSync(join(ensemble.stateDir, `member-${NO_RECONFIG}`, 'zoo.cfg'), 'utf8')).toMatch(/^reconfigEnabled=false$/m);
    // Up (it answers) but never serving: it restarts its election each time it hears of the ensemble's newer configuration version.
    const notServing = () =>
      fourLetterWord('127.0.0.1', four.member.clientPort, 'srvr', 1_500).then(
        (text) => isNotServing(text),
        () => false,
      );
    await waitFor(notServing, { what: `member ${NO_RECONFIG} up and answering srvr`, timeoutMs: 20_000, intervalMs: 200 });

    const refused = await api('POST', '', { add: [four.line], start: true });
    expectError(refused, 409, 'RECONFIG_REFUSED');
    const why = `member ${NO_RECONFIG} (127.0.0.1:${four.member.clientPort}) is up but not serving ("not currently serving requests"): it has not joined the leader as a learner. A member started without reconfigEnabled=true stays so`;
    expect(refused.body.error.message).toMatch(/^resize [\w-]+ is planned but did not start: the preflight does not pass: /);
    expect(refused.body.error.message).toContain(why);
    expect(refused.body.error.message).toContain('start it with reconfigEnabled=true and the current configuration plus itself');
    // The plan stays planned with the check that failed, and only that one.
    const listed = reconfigListAnswerSchema.parse((await apiAs('GET', '', viewer)).body).reconfigs;
    const planned = listed[0]!;
    expect(planned.state).toBe('planned');
    expect(planned.preflight.filter((c) => !c.ok)).toEqual([expect.objectContaining({ id: `joiner-${NO_RECONFIG}`, saw: expect.stringContaining(why) })]);

    // Nothing changed: the same version and members, the member still a learner outside the configuration, no lock held.
    const after = await readConfig();
    expect(after.version).toBe(before.version);
    expect(after.members.map((m) => [m.id, m.role])).toEqual(before.members.map((m) => [m.id, m.role]));
    expect(await notServing()).toBe(true);
    expect((await api('POST', `/${planned.id}/abort`, { reason: 'member 4 runs without reconfigEnabled' })).status).toBe(200);
    expect(await gateway.exists(UPGRADE_LOCK_PATH)).toBeNull();
    await ensemble.stopMember(NO_RECONFIG);
  }, 90_000);

  it('turns a voter into an observer and back through POST …/reconfig under kazoo writers: each window sampled, every step verified, no write lost, no session expired', async () => {
    const consoleSession = keeper!.ensembles.get('it').gateway.session.sessionId;
    const leader = await leaderOf(gateway);
    const member = VOTERS.find((m) => m !== leader)!;
    await startWriters('/load/resize-roles');

    const roundTrip: { name: string; from: number; to: number }[] = [];
    for (const [role, fromMode, toMode] of [
      ['observer', 'follower', 'observer'],
      ['participant', 'observer', 'follower'],
    ] as const) {
      const before = await readConfig();
      const created = await api('POST', '', { roles: { [String(member)]: role } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const wf = reconfigWorkflowSchema.parse(created.body);
      expect(wf.steps.map((s) => s.zkCli)).toEqual([`reconfig -add ${sandboxServerLine(member, OFFSET, role)}`]);
      // 3 voters to 2 tolerates no failure: a phrase to type; back to 3 needs none.
      expect(wf.confirmationPhrase === null).toBe(role === 'participant');
      let from = 0;
      const { samples, wf: done } = await sampleWindow(wf.id, member, async () => {
        from = Date.now();
        const started = await api('POST', `/${wf.id}/start`, wf.confirmationPhrase ? { confirmation: wf.confirmationPhrase } : {});
        expect(started.status, JSON.stringify(started.body)).toBe(200);
      });
      expect(done.state, done.reason ?? '').toBe('done');
      expectVerified(done);
      roundTrip.push({ name: `${fromMode} -> ${toMode}`, from, to: done.finishedAt! });

      // Checked again here, apart from Keeper: /zookeeper/config, every member's own mode, the leader's synced followers.
      const config = await readConfig();
      expect(config.version).toBe(done.verifiedVersion);
      expect(config.members.map((m) => [m.id, m.role])).toEqual(VOTERS.map((id) => [id, id === member ? role : 'participant']));
      console.log(`${fromMode} -> ${toMode}: ${await verifyMembership(config)}`);
      expectWindow(samples, member, { from: before.version!, to: done.verifiedVersion, fromMode, toMode, toRole: role });

      // Keeper's ensemble view shows the member in its new role, and the quorum over the voters left.
      const voters = role === 'observer' ? 2 : 3;
      await waitFor(
        async () => {
          const health = (await call(keeperUrl, 'GET', '/api/ensembles/it/members', viewer)).body as EnsembleHealth;
          const m = health.members.find((x) => x.id === member);
          return m?.configuredRole === role && m.state === toMode && health.quorum.voters === voters && health.quorum.votersServing === voters;
        },
        { what: `Keeper's ensemble view with member ${member} ${toMode} and ${voters} voters`, timeoutMs: 10_000, intervalMs: 200 },
      );
    }

    const reports = await stopWriters();
    for (const step of roundTrip) {
      const gap = longestGapAcross(reports, step.from, step.to);
      console.log(`${step.name}: ${step.to - step.from} ms, longest gap between acknowledged writes ${gap} ms`);
      expect(gap).toBeLessThan(WRITER_SESSION_TIMEOUT_MS);
    }
    // Keeper's own session went through it too.
    expect(keeper!.ensembles.get('it').gateway.session.sessionId).toBe(consoleSession);
    await keeper!.close();
    keeper = null;
  }, 180_000);

  it('resumes after Keeper is killed (SIGKILL) with a reconfig in flight: the lost reply verified from /zookeeper/config and not sent again, the lost request sent once more; no write lost', async () => {
    const leader = await leaderOf(gateway);
    const member = VOTERS.find((m) => m !== leader)!;
    // Keeper reaches the ensemble through a proxy in front of the leader, which stays a voter throughout.
    const proxy = await LossyProxy.start({ host: '127.0.0.1', port: portOf(leader) });
    try {
      const stateDir = mkdtempSync(join(dir, 'killed-'));
      const spec: KeeperProcessSpec = {
        options: keeperOptions(proxy.address, stateDir),
        extras: { ...EXTRAS, gatewayDefaults: { sessionTimeoutMs: KEEPER_SESSION_MS } },
        logFile: join(dir, 'killed.log'),
      };
      const launch = async () => {
        const child = await launchKeeper(spec, join(dir, 'killed.json'));
        children.push(child);
        keeperUrl = child.url;
        return child;
      };
      const logTail = () => readFileSync(spec.logFile, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
      await startWriters('/load/resize-killed');

      /** Plans the role change on `child`, starts it with `loss` armed, and kills the child the moment the proxy lost it. */
      const killMidStep = async (child: KeeperProcess, role: ConfiguredRole, loss: 'reply' | 'request') => {
        await keeperReady(child.url, role === 'observer' ? 3 : 2);
        const created = await api('POST', '', { roles: { [String(member)]: role } });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const wf = reconfigWorkflowSchema.parse(created.body);
        const lost = proxy.loseNext('reconfig', loss);
        const started = await api('POST', `/${wf.id}/start`, wf.confirmationPhrase ? { confirmation: wf.confirmationPhrase } : {});
        expect(started.status, JSON.stringify(started.body)).toBe(200);
        await lost;
        await child.kill();
        const left = onDisk(stateDir, wf.id);
        // Killed before it could record the outcome: the step is on disk as sent, with its condition.
        expect(left.state).toBe('running');
        expect(left.steps[0]).toMatchObject({ state: 'sending', attempts: 1, fromConfig: wf.fromConfig });
        return wf;
      };

      /** A new Keeper on the same state: it waits for the killed one's lock, reads /zookeeper/config, and finishes; sampled until then. */
      const resume = async (id: string) => {
        const child = await launch();
        const { samples, wf } = await sampleWindow(id, member).catch((error: Error) => {
          throw new Error(`${error.message}\nKeeper's log:\n${logTail()}`);
        });
        expect(wf.state, `${wf.reason}\nKeeper's log:\n${logTail()}`).toBe('done');
        expectVerified(wf);
        return { child, samples, wf };
      };

      // 1. The reply lost: the member applied the reconfig, Keeper never heard, and was killed.
      const first = await launch();
      const v0 = (await readConfig()).version!;
      const demote = await killMidStep(first, 'observer', 'reply');
      const killedAt = Date.now();
      const applied = await waitFor(
        async () => {
          const c = await readConfig();
          return c.version !== v0 ? c : null;
        },
        { what: 'the reconfig whose reply was lost applied', timeoutMs: 10_000 },
      );
      expect(applied.members.find((m) => m.id === member)!.role).toBe('observer');
      expect(proxy.passed('reconfig')).toBe(1);
      const second = await resume(demote.id);
      // Verified, not sent again: the one reconfig the member ever got is the step's, at the version it made.
      expect(second.wf.steps[0]).toMatchObject({ version: applied.version, attempts: 1 });
      expect(proxy.passed('reconfig')).toBe(1);
      expect(new Set(second.samples.map((s) => s.version))).toEqual(new Set([applied.version]));
      expect((await readConfig()).version).toBe(applied.version);
      console.log(`reply lost, Keeper killed, a new one verified it ${second.wf.finishedAt! - killedAt} ms after the kill: ${second.wf.reason}`);

      // 2. The request lost: it never reached the member; the new Keeper sends it once more.
      const promote = await killMidStep(second.child, 'participant', 'request');
      const resentAt = Date.now();
      expect((await readConfig()).version).toBe(applied.version);
      const third = await resume(promote.id);
      expect(third.wf.steps[0]!.attempts).toBe(2);
      expect(proxy.passed('reconfig')).toBe(2);
      const final = await readConfig();
      expect(final.version).toBe(third.wf.verifiedVersion);
      expect(final.members.map((m) => [m.id, m.role])).toEqual(VOTERS.map((id) => [id, 'participant']));
      // The version before the resend, then the one it made: nothing else in between.
      const versions = third.samples.map((s) => s.version);
      expect(new Set(versions)).toEqual(new Set([applied.version, final.version]));
      console.log(
        `request lost, Keeper killed, a new one sent it again and verified it ${third.wf.finishedAt! - resentAt} ms after the kill: ${third.wf.reason}`,
      );
      console.log(`${await verifyMembership(final)}`);

      const reports = await stopWriters();
      const gap = longestGapAcross(reports, killedAt, third.wf.finishedAt!);
      console.log(`longest gap between acknowledged writes from the first kill to the end: ${gap} ms`);
      expect(gap).toBeLessThan(WRITER_SESSION_TIMEOUT_MS);
      await third.child.stop();
    } finally {
      await proxy.close();
    }
  }, 180_000);
});
