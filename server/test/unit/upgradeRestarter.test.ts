/**
 * The restartCommand as the upgrade runs it: an argv with no shell (or a shell line when asked
 * for), a deadline, its own process group recorded for a Keeper started after a kill, the
 * output's tail; and the state files, keyed by the ensemble's identity.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWorkflow, planUpgrade, type CommandProcess, type EnsembleHealth, EMPTY_METRICS, summarizeQuorum, type MemberStatus } from '@keeper/shared';
import { describeProcess, isStillRunning, killProcessGroup } from '../../src/upgrades/commandProcess.js';
import { commandRestarter, OutputTail, runShell } from '../../src/upgrades/restarter.js';
import { migrateNameKeyed, nameKeyedUpgradesDir, UpgradeStore, upgradesDir } from '../../src/upgrades/upgradeStore.js';
import { parseFileConfig } from '../../src/config/fileConfig.js';
import { testLogger } from '../support/logger.js';

function member(id: number, state: MemberStatus['state']): MemberStatus {
  return {
    id,
    host: `zk${id}`,
    clientPort: 2181,
    adminPort: 8080,
    address: `zk${id}:2181`,
    state,
    configuredRole: 'participant',
    detail: null,
    source: 'admin',
    metrics: { ...EMPTY_METRICS, syncedFollowers: state === 'leader' ? 2 : null },
    polledAt: 1,
    lastServingAt: 1,
  };
}

const members = [member(1, 'leader'), member(2, 'follower'), member(3, 'follower')];
const health: EnsembleHealth = { ensemble: 'prod', polledAt: 1, pollIntervalMs: 1000, members, quorum: summarizeQuorum(members), alerts: [] };

describe('runShell', () => {
  it('keeps the exit code and the last bytes of stdout and stderr', async () => {
    const outcome = await runShell('printf "%05000d" 0; echo tail-line >&2; exit 3', 10_000, 1024);
    expect(outcome.exitCode).toBe(3);
    expect(outcome.timedOut).toBeUndefined();
    expect(outcome.outputTail.endsWith('tail-line\n')).toBe(true);
    expect(Buffer.byteLength(outcome.outputTail)).toBeLessThanOrEqual(1024 + 3);
    expect(outcome.outputTail.startsWith('…')).toBe(true);
  });

  it('kills the whole process group at the deadline and says so', async () => {
    // The deadline on a virtual clock (the shell stays real): it fires at 300 ms exactly, however
    // slow the machine. The background sleep holds the output pipe open: had only the shell been
    // killed, the outcome would wait 30 s for it, past the test's timeout.
    const marker = join(mkdtempSync(join(tmpdir(), 'keeper-runshell-')), 'started');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let outcome: Awaited<ReturnType<typeof runShell>> | null = null;
      const running = runShell(`echo started; touch ${marker}; sleep 30 & sleep 30; echo never`, 300).then((o) => (outcome = o));
      while (!existsSync(marker)) await new Promise((r) => setImmediate(r));
      await vi.advanceTimersByTimeAsync(299);
      expect(outcome).toBeNull();
      await vi.advanceTimersByTimeAsync(1);
      await running;
      expect(outcome!.timedOut).toBe(true);
      expect(outcome!.exitCode).toBeNull();
      expect(outcome!.outputTail).toBe('started\n');
    } finally {
      vi.useRealTimers();
      rmSync(join(marker, '..'), { recursive: true, force: true });
    }
  });
});

describe('commandRestarter', () => {
  const step = { memberId: 2, host: 'zk2', clientPort: 2181, adminPort: 8080 };

  it('runs an argv with no shell: shell syntax in a word stays a word', async () => {
    const restarter = commandRestarter(['/bin/echo', '{host}:{clientPort}', '$(id);', '`id`', '&&', 'zk-{id}'], 5);
    expect(restarter.describe(step as never, 1_000)).toEqual({ commandLine: "/bin/echo zk2:2181 '$(id);' '`id`' '&&' zk-2", commandDeadlineAt: 6_000 });
    const processes: CommandProcess[] = [];
    const outcome = await restarter.run(step as never, (p) => processes.push(p))!;
    expect(outcome).toMatchObject({ exitCode: 0, outputTail: 'zk2:2181 $(id); `id` && zk-2\n' });
    // Its process, for the durable state: a pid, and what tells it apart from a later process with the same pid.
    expect(processes).toHaveLength(1);
    expect(processes[0]!.pid).toBeGreaterThan(1);
    expect(processes[0]!.startTicks).toEqual(expect.any(Number));
    expect(processes[0]!.bootId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('runs /bin/sh only for {"shell": true}, the values quoted', async () => {
    const restarter = commandRestarter({ shell: true, line: 'echo {host} && echo {id}' }, 5);
    expect(restarter.describe(step as never, 0).commandLine).toBe('echo zk2 && echo 2');
    expect(await restarter.run(step as never)!).toMatchObject({ exitCode: 0, outputTail: 'zk2\n2\n' });
  });

  it('refuses a member whose host is an option before anything runs', () => {
    const restarter = commandRestarter(['ssh', '{host}', 'restart'], 5);
    expect(() => restarter.describe({ ...step, host: '-oProxyCommand=touch /tmp/keeper-pwned' } as never, 0)).toThrow('is not a host name or address');
  });

  it('a program that does not exist: no exit code, and why', async () => {
    const outcome = await commandRestarter(['/nonexistent/restart-zk', '{id}'], 5).run(step as never)!;
    expect(outcome.exitCode).toBeNull();
    expect(outcome.outputTail).toContain('ENOENT');
  });
});

describe('the command process a Keeper started after a kill finds again', () => {
  it('is running while it runs, and is killed with its whole group', async () => {
    const processes: CommandProcess[] = [];
    const done = commandRestarter({ shell: true, line: 'sleep 30 & sleep 30' }, 60).run(
      { memberId: 1, host: 'zk1', clientPort: 1, adminPort: null } as never,
      (p) => processes.push(p),
    )!;
    const recorded = processes[0]!;
    expect(isStillRunning(recorded)).toBe(true);
    // Another process with the same pid (after a reboot, or the pid reused) is not it.
    expect(isStillRunning({ ...recorded, startTicks: recorded.startTicks! + 1 })).toBe(false);
    expect(isStillRunning({ ...recorded, bootId: '00000000-0000-0000-0000-000000000000' })).toBe(false);
    expect(killProcessGroup({ ...recorded, startTicks: recorded.startTicks! + 1 })).toBe(false);
    expect(killProcessGroup(recorded)).toBe(true);
    const outcome = await done;
    expect(outcome.exitCode).toBeNull();
    expect(isStillRunning(recorded)).toBe(false);
    expect(killProcessGroup(recorded)).toBe(false);
    expect(isStillRunning(describeProcess(process.pid))).toBe(true);
  });
});

describe('OutputTail', () => {
  it('never holds much more than its bound, whatever arrives', () => {
    const tail = new OutputTail(100);
    for (let i = 0; i < 1000; i++) tail.push(Buffer.from(`line ${i}\n`));
    expect(tail.text().endsWith('line 999\n')).toBe(true);
    expect(tail.text().length).toBeLessThanOrEqual(101);
  });
});

describe('UpgradeStore', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const ID = '5d0c7f0e-aaaa-4bbb-8ccc-123456789abc';
  const workflow = (id: string) => createWorkflow({ id, plan: planUpgrade({ health }), at: 5, restartMethod: 'manual' });

  it("writes each workflow owner-only under the ensemble's identity and reads it back validated", () => {
    dir = mkdtempSync(join(tmpdir(), 'keeper-upgrade-store-'));
    const store = new UpgradeStore(upgradesDir(dir, ID), testLogger);
    const wf = workflow('0b7a6c1e-2f3d-4e5f-8a9b-0c1d2e3f4a5b');
    store.save(wf);
    const file = join(dir, 'ensembles', ID, 'upgrades', `${wf.id}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'ensembles', ID)).mode & 0o777).toBe(0o700);
    expect(readdirSync(upgradesDir(dir, ID))).toEqual([`${wf.id}.json`]);
    const again = new UpgradeStore(upgradesDir(dir, ID), testLogger).load();
    expect(again).toEqual([wf]);
    expect(again[0]!.plan.order.map((m) => m.memberId)).toEqual([2, 3, 1]);
    // Another ensemble's identity sees none of it.
    expect(new UpgradeStore(upgradesDir(dir, 'another-ensemble-id'), testLogger).load()).toEqual([]);
  });

  it("moves a name-keyed file (a Keeper before) only when its plan names this ensemble's members", () => {
    dir = mkdtempSync(join(tmpdir(), 'keeper-upgrade-store-'));
    const old = nameKeyedUpgradesDir(dir, 'prod');
    mkdirSync(old, { recursive: true });
    const ours = workflow('11111111-2f3d-4e5f-8a9b-0c1d2e3f4a5b');
    const theirs = {
      ...workflow('22222222-2f3d-4e5f-8a9b-0c1d2e3f4a5b'),
      steps: ours.steps.map((s) => ({ ...s, address: s.address.replace('2181', '2182') })),
    };
    writeFileSync(join(old, `${ours.id}.json`), JSON.stringify(ours));
    writeFileSync(join(old, `${theirs.id}.json`), JSON.stringify(theirs));
    const members = health.members.map((m) => m.address);
    expect(migrateNameKeyed(dir, 'prod', ID, members, testLogger)).toEqual({ moved: [ours.id], left: [theirs.id] });
    expect(new UpgradeStore(upgradesDir(dir, ID), testLogger).load().map((w) => w.id)).toEqual([ours.id]);
    expect(readdirSync(old)).toEqual([`${theirs.id}.json`]);
    // The other ensemble's Keeper takes its own later; the old directory goes once empty.
    expect(
      migrateNameKeyed(
        dir,
        'prod',
        'other-ensemble-id',
        theirs.steps.map((s) => s.address),
        testLogger,
      ),
    ).toEqual({ moved: [theirs.id], left: [] });
    expect(existsSync(old)).toBe(false);
    expect(migrateNameKeyed(dir, 'prod', ID, members, testLogger)).toEqual({ moved: [], left: [] });
  });
});

describe('the restartCommand in the config file', () => {
  const ensemble = (extra: object) => ({ ensembles: [{ name: 'p', connectionString: 'zk1:2181', ...extra }] });

  it('takes a template in each of its shapes, with a timeout', () => {
    for (const restartCommand of [
      'ssh {host} sudo systemctl restart zookeeper',
      ['ssh', '{host}', 'sudo', 'systemctl', 'restart', 'zookeeper'],
      { shell: true, line: 'ssh {host} sudo systemctl restart zookeeper && logger restarted {id}' },
    ]) {
      const config = parseFileConfig(ensemble({ restartCommand, restartCommandTimeoutSeconds: 60 }), '/tmp/k.json');
      expect(config.ensembles[0]).toMatchObject({ restartCommand, restartCommandTimeoutSeconds: 60 });
    }
  });

  it('refuses a placeholder inside quotes, and shell syntax without "shell": true', () => {
    expect(() => parseFileConfig(ensemble({ restartCommand: { shell: true, line: 'ssh zk "restart {host}"' } }), '/tmp/k.json')).toThrow(
      /ensembles\[0\]\.restartCommand: restartCommand puts \{host\} inside double quotes/,
    );
    expect(() => parseFileConfig(ensemble({ restartCommand: 'echo {id} >> /tmp/log' }), '/tmp/k.json')).toThrow(/restartCommand runs without a shell/);
  });

  it('refuses an unknown placeholder when the config is read, naming the field', () => {
    expect(() => parseFileConfig(ensemble({ restartCommand: 'kubectl delete pod zk-{myid}' }), '/tmp/k.json')).toThrow(
      /ensembles\[0\]\.restartCommand: restartCommand has an unknown placeholder \{myid\}/,
    );
    expect(() => parseFileConfig(ensemble({ restartCommand: 'x', restartCommandTimeoutSeconds: 0 }), '/tmp/k.json')).toThrow(/restartCommandTimeoutSeconds/);
  });
});
