/**
 * Resizing a real reconfig-enabled ensemble (issue 24, docs/reconfig.md) with the planner and
 * Keeper's own reconfig request (server/src/zk/reconfig.ts, op code 16), one verified step at a
 * time, while a kazoo writer records every acknowledged write:
 *   - 3 → 5 voters (members 4 and 5 started by the sandbox as learners), then 5 → 3 by removing two
 *     of the original members, the leader last; each step's fromConfig is the version verified
 *     after the step before; after each step /zookeeper/config, every member's role and the
 *     leader's synced followers are checked; the sandbox stops the removed members; no
 *     acknowledged write lost, no session expired (the writer's and the console's);
 *   - a version changed by another client (kazoo's reconfig) refuses the next step: BAD_VERSION,
 *     said in words, nothing changed;
 *   - a session without the super user is refused NO_AUTH, with the right that is missing;
 *   - the preflight on what is left: the super user's right, the members agreeing on the version,
 *     every voter serving and synced, and a member to add that was never started, said as such.
 * One ensemble for the file: the tests run in order on what the first one leaves.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDynamicConfig, parseMntr, planReconfig, quorumSize, type DynamicConfig, type ReconfigPlan } from '@keeper/shared';
import { fourLetterWord, parseSrvrMode, type SandboxEnsemble } from '../../scripts/sandbox/index.js';
import { longestGapAcross, missingWrites, startLoadWriter, type LoadReport, type RunningLoadWriter } from '../../scripts/lib/kazoo/index.js';
import { PYTHON } from '../../scripts/lib/kazoo/process.js';
import { CONFIG_PATH, executeReconfigStep, type ReconfigStepOutcome } from '../src/reconfig/executor.js';
import { gatherReconfigPreflight } from '../src/reconfig/preflight.js';
import { MemberPoller } from '../src/members/memberPoller.js';
import { MemberTransport } from '../src/members/transport.js';
import { RequestCounters } from '../src/members/counters.js';
import { initialTargets } from '../src/members/memberTargets.js';
import { ZkMutations } from '../src/zk/mutations.js';
import { ZkGateway } from '../src/zk/gateway.js';
import { testLogger } from './support/logger.js';
import { PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { waitFor } from './support/waitFor.js';

const SUPER_PASSWORD = 'resize-test-super';
const WRITER_SESSION_TIMEOUT_MS = 10_000;

let ensemble: SandboxEnsemble & { dispose(): Promise<void> };
let gateway: ZkGateway;
let writer: RunningLoadWriter | null = null;

const hostsOf = (ids: number[]) => ids.map((id) => `127.0.0.1:${2190 + PORT_OFFSETS.reconfigTest + id}`).join(',');
const ALL_HOSTS = hostsOf([1, 2, 3, 4, 5]);

async function readConfig(): Promise<DynamicConfig> {
  const { data } = await gateway.getData(CONFIG_PATH);
  return parseDynamicConfig(data.toString('utf8'));
}

async function srvrMode(clientPort: number): Promise<string | null> {
  return fourLetterWord('127.0.0.1', clientPort, 'srvr', 1_500).then(parseSrvrMode, () => null);
}

/** After a step: every member of the configuration serves in its role, and the leader counts every voting follower in sync. */
async function verifyMembership(config: DynamicConfig): Promise<string> {
  let seen = '';
  const met = waitFor(
    async () => {
      const modes = await Promise.all(config.members.map(async (m) => [m, await srvrMode(m.clientPort!)] as const));
      seen = modes.map(([m, mode]) => `${m.id}:${mode}`).join(' ');
      for (const [m, mode] of modes) {
        if (m.role === 'observer' ? mode !== 'observer' : mode !== 'leader' && mode !== 'follower') return null;
      }
      const leader = modes.find(([, mode]) => mode === 'leader')![0];
      const mntr = parseMntr(await fourLetterWord('127.0.0.1', leader.clientPort!, 'mntr', 1_500));
      const voters = config.members.filter((m) => m.role === 'participant').length;
      const synced = Number(mntr.get('synced_followers'));
      seen += `; synced ${synced} of ${voters - 1}`;
      // At least: a joiner still waiting to be added is a synced learner too, and the leader counts it (seen: 4 of 3).
      if (synced < voters - 1) return null;
      return `member ${leader.id} leads; ${synced} of ${voters - 1} followers synced; quorum ${quorumSize(voters)} of ${voters}`;
    },
    { timeoutMs: 20_000, intervalMs: 200, what: `every member of version ${config.version} in its role, followers synced` },
  );
  return met.catch((error: Error) => {
    throw new Error(`${error.message}; last seen ${seen}`);
  });
}

async function leaderId(): Promise<number> {
  const config = await readConfig();
  for (const m of config.members) if ((await srvrMode(m.clientPort!)) === 'leader') return m.id;
  throw new Error('no leader');
}

/** Runs a plan's steps in order, each conditioned on the version verified after the one before. */
async function runPlan(plan: ReconfigPlan): Promise<{ outcomes: ReconfigStepOutcome[]; spans: { step: number; from: number; to: number }[] }> {
  let fromConfig = plan.fromConfig;
  const outcomes: ReconfigStepOutcome[] = [];
  const spans: { step: number; from: number; to: number }[] = [];
  for (const step of plan.steps) {
    const from = Date.now();
    const outcome = await executeReconfigStep(gateway, { joining: step.joining, leaving: step.leaving, fromConfig });
    outcomes.push(outcome);
    if (outcome.kind !== 'applied') throw new Error(`step ${step.index} (${step.sentence}): ${JSON.stringify(outcome)}`);
    // Verified against /zookeeper/config as read afterwards, not only the reply.
    const read = await readConfig();
    expect(read.version).toBe(outcome.version);
    expect(read.members.map((m) => [m.id, m.role])).toEqual(outcome.config.members.map((m) => [m.id, m.role]));
    console.log(`step ${step.index}: ${step.sentence}; version ${fromConfig} -> ${outcome.version}; ${await verifyMembership(read)}`);
    spans.push({ step: step.index, from, to: Date.now() });
    fromConfig = outcome.version;
  }
  return { outcomes, spans };
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.reconfigTest, { reconfig: { superPassword: SUPER_PASSWORD } });
  gateway = new ZkGateway({
    name: 'it',
    connectionString: ensemble.connectionString,
    auth: [{ scheme: 'digest', credential: `super:${SUPER_PASSWORD}` }],
    requestDeadlineMs: 10_000,
    logger: testLogger,
  });
  gateway.start();
  await waitFor(() => gateway.session.sessionId, { what: "the console's session", timeoutMs: 20_000 });
}, 90_000);

afterAll(async () => {
  await writer?.stop().catch(() => undefined);
  gateway?.close();
  await ensemble?.dispose();
});

describe('resizing under a kazoo write load', () => {
  it('grows 3 → 5 and shrinks 5 → 3 (two original members out, the leader last): no acknowledged write lost, no session expired', async () => {
    const consoleSession = gateway.session.sessionId;
    const initial = await readConfig();
    expect(initial.members.map((m) => m.id)).toEqual([1, 2, 3]);
    writer = await startLoadWriter({ hosts: ALL_HOSTS, root: '/load/resize', sessionTimeoutMs: WRITER_SESSION_TIMEOUT_MS });
    await waitFor(() => writer!.acks.length >= 20, { what: 'the writer acknowledged', timeoutMs: 20_000 });

    // Grow: the sandbox starts 4 and 5 as learners; the plan adds them one per step.
    const [four, five] = await Promise.all([ensemble.addMember(4), ensemble.addMember(5)]);
    const grow = planReconfig({
      configText: (await gateway.getData(CONFIG_PATH)).data.toString('utf8'),
      change: { add: [five.line, four.line] },
      leaderId: await leaderId(),
      connectedMemberId: null,
    });
    if (!grow.ok) throw new Error(grow.refusals.join('; '));
    expect(grow.sizeSentence).toBe('3 voters tolerate 1 failure → 5 voters tolerate 2 failures');
    const grown = await runPlan(grow);
    expect((await readConfig()).members.map((m) => [m.id, m.role])).toEqual([1, 2, 3, 4, 5].map((id) => [id, 'participant']));

    // Shrink: two of the original three, one of them the leader (so an election comes, at the end).
    const leader = await leaderId();
    const other = [1, 2, 3].find((id) => id !== leader)!;
    const shrink = planReconfig({
      configText: (await gateway.getData(CONFIG_PATH)).data.toString('utf8'),
      change: { remove: [String(leader), String(other)] },
      leaderId: leader,
      connectedMemberId: null,
    });
    if (!shrink.ok) throw new Error(shrink.refusals.join('; '));
    expect(shrink.steps.map((s) => s.memberId)).toEqual([other, leader]);
    const shrunk = await runPlan(shrink);
    const final = await readConfig();
    const remaining = [1, 2, 3, 4, 5].filter((id) => id !== leader && id !== other);
    expect(final.members.map((m) => m.id)).toEqual(remaining);
    expect(await leaderId()).not.toBe(leader);

    // The sandbox stops the members a reconfig removed.
    await waitFor(() => ensemble.member(leader).state === 'stopped' && ensemble.member(other).state === 'stopped', {
      what: 'the removed members stopped by the sandbox',
      timeoutMs: 15_000,
    });

    await new Promise((r) => setTimeout(r, 1_000));
    const report: LoadReport = await writer.stop();
    writer = null;
    const missing = await missingWrites(hostsOf(remaining), [report]);
    for (const [root, lost] of missing) expect(lost, `${root}: acknowledged but missing`).toEqual([]);
    expect(report.fails, 'writes not acknowledged within their retry deadline').toEqual([]);
    expect(report.expired, JSON.stringify(report.states)).toBe(false);
    expect(report.sessionIds).toHaveLength(1);
    expect(gateway.session.sessionId).toBe(consoleSession);
    for (const [name, run] of [
      ['grow', grown],
      ['shrink', shrunk],
    ] as const) {
      for (const span of run.spans) {
        const gap = longestGapAcross([report], span.from, span.to);
        console.log(`${name} step ${span.step}: ${span.to - span.from} ms, longest gap between acknowledged writes ${gap} ms`);
        expect(gap).toBeLessThan(WRITER_SESSION_TIMEOUT_MS);
      }
    }
    console.log(`${report.acks.length} writes acknowledged, members ${report.peers.map((p) => p.peer).join(' -> ')}`);
    expect(report.acks.length).toBeGreaterThan(100);
  }, 180_000);

  it('stops on a version changed by another client (kazoo reconfig): BAD_VERSION, said in words, nothing changed', async () => {
    const before = await readConfig();
    const planned = planReconfig({
      configText: `${before.members.map((m) => `server.${m.id}=${m.value}`).join('\n')}\nversion=${before.version}`,
      change: { roles: { [String(before.members.at(-1)!.id)]: 'observer' } },
      leaderId: null,
      connectedMemberId: null,
    });
    if (!planned.ok) throw new Error(planned.refusals.join('; '));
    // Another client re-adds a member with its own line: a real reconfig, a new version, the same membership.
    const same = before.members[0]!;
    const script = [
      'import sys',
      'from kazoo.client import KazooClient',
      'zk = KazooClient(hosts=sys.argv[1], timeout=10.0)',
      'zk.start(timeout=15)',
      "zk.add_auth('digest', sys.argv[2])",
      'data, stat = zk.reconfig(joining=sys.argv[3], leaving=None, new_members=None)',
      'print(data.decode())',
      'zk.stop()',
    ].join('\n');
    const { stdout } = await promisify(execFile)(
      PYTHON,
      ['-c', script, hostsOf(before.members.map((m) => m.id)), `super:${SUPER_PASSWORD}`, `server.${same.id}=${same.value}`],
      { timeout: 30_000 },
    );
    const theirs = parseDynamicConfig(stdout);
    expect(theirs.version).not.toBe(before.version);

    const outcome = await executeReconfigStep(gateway, { joining: planned.steps[0]!.joining, leaving: null, fromConfig: planned.fromConfig });
    expect(outcome.kind).toBe('refused');
    if (outcome.kind === 'refused') {
      expect(outcome.code).toBe('BAD_VERSION');
      expect(outcome.reason).toBe(
        `the configuration changed since Keeper read version ${before.version}: someone else reconfigured the ensemble; nothing further was changed`,
      );
    }
    const after = await readConfig();
    expect(after.version).toBe(theirs.version);
    expect(after.members.map((m) => [m.id, m.role])).toEqual(before.members.map((m) => [m.id, m.role]));
  }, 60_000);

  it('refuses a session that is not the super user with NO_AUTH, saying which right is missing', async () => {
    const plain = new ZkGateway({
      name: 'plain',
      connectionString: hostsOf((await readConfig()).members.map((m) => m.id)),
      requestDeadlineMs: 10_000,
      logger: testLogger,
    });
    plain.start();
    try {
      const config = await readConfig();
      const last = config.members.at(-1)!;
      const outcome = await executeReconfigStep(
        plain,
        { joining: `server.${last.id}=${last.value}`, leaving: null, fromConfig: config.version! },
        { rights: { aclText: 'world:anyone:r', identities: [{ scheme: 'ip', id: '127.0.0.1' }] } },
      );
      expect(outcome).toMatchObject({ kind: 'refused', code: 'NO_AUTH' });
      if (outcome.kind === 'refused')
        expect(outcome.reason).toContain("is not ZooKeeper's super user and /zookeeper/config's ACL (world:anyone:r) gives it no write");
      expect((await readConfig()).version).toBe(config.version);
    } finally {
      plain.close();
    }
  }, 60_000);

  it('preflights on the real ensemble: passes what holds, and names a member to add that is not running', async () => {
    const config = await readConfig();
    const poller = new MemberPoller({
      ensemble: 'it',
      targets: initialTargets({ connectionString: hostsOf(config.members.map((m) => m.id)) }),
      transport: new MemberTransport(new RequestCounters(), 2_000),
      intervalMs: 500,
      readClusterConfig: async () => (await gateway.getData(CONFIG_PATH)).data.toString('utf8'),
      log: testLogger,
    });
    poller.start();
    try {
      const health = await waitFor(
        () => {
          const h = poller.current();
          return h && h.quorum.hasQuorum && h.members.length === 3 && h.members.every((m) => m.state === 'leader' || m.state === 'follower') ? h : null;
        },
        { what: 'the poller sees the 3 voters serving', timeoutMs: 20_000 },
      );
      // Member 1 was removed and stopped by the sandbox: as a member to add, it is not there.
      const stopped = ensemble.member(1);
      const result = await gatherReconfigPreflight({ gateway, mutations: new ZkMutations(gateway), health, lockHolder: async () => null }, [
        { id: 1, host: stopped.host, clientPort: stopped.clientPort },
      ]);
      const byId = new Map(result.checks.map((c) => [c.id, c]));
      expect(byId.get('dynamic-config')).toMatchObject({ ok: true, saw: expect.stringContaining(`version ${config.version}`) });
      expect(byId.get('reconfig-right')).toMatchObject({ ok: true, saw: "ZooKeeper reports Keeper's session as its super user (whoAmI: super)" });
      expect(byId.get('voters-serving')).toMatchObject({ ok: true, saw: '3 of 3 voters serving' });
      expect(byId.get('synced-followers')?.ok).toBe(true);
      expect(byId.get('no-workflow')?.ok).toBe(true);
      expect(byId.get('joiner-1')).toMatchObject({
        ok: false,
        saw: `member 1 (127.0.0.1:${stopped.clientPort}) does not answer srvr as a serving learner: start it with the current configuration plus itself`,
      });
      for (const c of result.checks) console.log(`preflight ${c.id}: ${c.ok ? 'ok' : 'NO'}: ${c.saw}`);
    } finally {
      poller.stop();
    }
  }, 60_000);

  it('verifies a step whose reply was lost by reading /zookeeper/config, and a resend is safe under its condition', async () => {
    const before = await readConfig();
    const member = before.members.at(-1)!;
    const step = { joining: `server.${member.id}=${member.value}`, leaving: null, fromConfig: before.version! };
    // A deadline shorter than the reconfig's round trip: the reply (if the request went out) is dropped, as on CONNECTION_LOSS.
    const lost = await executeReconfigStep(gateway, step, { deadlineMs: 15 });
    const after = await readConfig();
    console.log(
      `a reconfig with a 15 ms deadline: ${lost.kind}${lost.kind === 'applied' ? ` (after loss: ${lost.afterLoss})` : ''}; version ${before.version} -> ${after.version}`,
    );
    if (lost.kind === 'applied') {
      expect(lost.afterLoss).toBe(true);
      expect(lost.version).toBe(after.version);
      expect(after.version).not.toBe(before.version);
      // Resent with the same condition: refused on the version, never applied twice.
      const again = await executeReconfigStep(gateway, step);
      expect(again).toMatchObject({ kind: 'refused', code: 'BAD_VERSION' });
    } else {
      expect(lost.kind).toBe('notApplied');
      expect(after.version).toBe(before.version);
      const again = await executeReconfigStep(gateway, step);
      expect(again).toMatchObject({ kind: 'applied', afterLoss: false });
    }
    expect((await readConfig()).members.map((m) => [m.id, m.role])).toEqual(before.members.map((m) => [m.id, m.role]));
  }, 60_000);
});
