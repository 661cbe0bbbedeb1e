/** The restartCommand as the upgrade runs it: a real shell, a deadline, the output's tail; and the state files. */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWorkflow, planUpgrade, type EnsembleHealth, EMPTY_METRICS, summarizeQuorum, type MemberStatus } from '@keeper/shared';
import { commandRestarter, OutputTail, runShell } from '../../src/upgrades/restarter.js';
import { UpgradeStore } from '../../src/upgrades/upgradeStore.js';
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

  it('fills the template shell-quoted: a hostile host name stays one word', async () => {
    const restarter = commandRestarter('echo {host} {id} {clientPort}', 5);
    const step = { memberId: 2, host: "zk2; touch /tmp/pwned-'x'", clientPort: 2181, adminPort: 8080 };
    expect(restarter.describe(step as never).commandLine).toBe(`echo 'zk2; touch /tmp/pwned-'"'"'x'"'"'' 2 2181`);
    const outcome = await restarter.run(step as never)!;
    expect(outcome).toMatchObject({ exitCode: 0, outputTail: "zk2; touch /tmp/pwned-'x' 2 2181\n" });
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

  it('writes each workflow owner-only and reads it back validated; a foreign file is ignored', () => {
    dir = mkdtempSync(join(tmpdir(), 'keeper-upgrade-store-'));
    const store = new UpgradeStore(dir, 'prod', testLogger);
    const wf = createWorkflow({ id: '0b7a6c1e-2f3d-4e5f-8a9b-0c1d2e3f4a5b', plan: planUpgrade({ health }), at: 5, restartMethod: 'manual' });
    store.save(wf);
    const file = join(dir, 'upgrades', 'prod', `${wf.id}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, 'upgrades', 'prod'))).toEqual([`${wf.id}.json`]);
    const again = new UpgradeStore(dir, 'prod', testLogger).load();
    expect(again).toEqual([wf]);
    expect(again[0]!.plan.order.map((m) => m.memberId)).toEqual([2, 3, 1]);
  });
});

describe('the restartCommand in the config file', () => {
  const ensemble = (extra: object) => ({ ensembles: [{ name: 'p', connectionString: 'zk1:2181', ...extra }] });

  it('takes a template with known placeholders and a timeout', () => {
    const config = parseFileConfig(
      ensemble({ restartCommand: 'ssh {host} sudo systemctl restart zookeeper', restartCommandTimeoutSeconds: 60 }),
      '/tmp/k.json',
    );
    expect(config.ensembles[0]).toMatchObject({ restartCommand: 'ssh {host} sudo systemctl restart zookeeper', restartCommandTimeoutSeconds: 60 });
  });

  it('refuses an unknown placeholder when the config is read, naming the field', () => {
    expect(() => parseFileConfig(ensemble({ restartCommand: 'kubectl delete pod zk-{myid}' }), '/tmp/k.json')).toThrow(
      /ensembles\[0\]\.restartCommand: restartCommand has an unknown placeholder \{myid\}/,
    );
    expect(() => parseFileConfig(ensemble({ restartCommand: 'x', restartCommandTimeoutSeconds: 0 }), '/tmp/k.json')).toThrow(/restartCommandTimeoutSeconds/);
  });
});
