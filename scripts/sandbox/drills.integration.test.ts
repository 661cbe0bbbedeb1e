/**
 * Fault drills on real ZooKeeper JVMs, through the same path `npm run sandbox -- kill 2`
 * takes: the control socket of the launcher that owns the members. Then the drills as an
 * operator runs them, from the CLI beside a running `npm start`, whose Ctrl-C must still
 * stop a member a drill restarted. Ports: PORT_OFFSETS.sandboxDrillTest.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdSessions } from '../lib/kazoo/index.js';
import { runDrill } from './controlClient.js';
import { controlSocketPath } from './controlProtocol.js';
import { fourLetterWord, parseSrvrMode, SandboxEnsemble } from './index.js';
import { PORT_OFFSETS } from './portOffsets.js';
import { isAlive } from './procfs.js';
import { sandboxJvms } from './stateLock.js';
import { sandboxStatus } from './status.js';

const OFFSET = PORT_OFFSETS.sandboxDrillTest;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const clientPort = (id: number) => 2190 + id + OFFSET;

const srvr = (id: number, timeoutMs = 1500) => fourLetterWord('127.0.0.1', clientPort(id), 'srvr', timeoutMs);

async function eventually<T>(fn: () => Promise<T | null> | T | null, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await Promise.resolve()
      .then(fn)
      .catch(() => null);
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A short state dir: the control socket's path must fit a Unix socket address. */
const tempStateDir = (tag: string) => fs.mkdtempSync(path.join(os.tmpdir(), `kd-${tag}-`));

describe('drills through the launcher (library and control socket)', () => {
  let stateDir: string;
  let ensemble: SandboxEnsemble;
  /** A member that follows now: elections during the drills move the leader around. */
  const aFollower = async () => ((await ensemble.leaderId()) === 3 ? 2 : 3);

  beforeAll(async () => {
    stateDir = tempStateDir('lib');
    ensemble = await SandboxEnsemble.start({ stateDir, portOffset: OFFSET });
  });

  afterAll(async () => {
    await ensemble?.close();
    expect(fs.existsSync(controlSocketPath(stateDir))).toBe(false);
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('kill: the member refuses connections and status says killed; start: it serves again', async () => {
    const follower = await aFollower();
    const before = ensemble.member(follower).pid!;
    const killed = await runDrill(stateDir, 'kill', follower);
    expect(killed.previousPid).toBe(before);
    expect(killed.member).toMatchObject({ state: 'stopped', pid: null, lastExit: 'signal SIGKILL' });
    expect(isAlive(before)).toBe(false);
    // The window before recovery: a dead daemon, as clients see it.
    await expect(srvr(follower)).rejects.toThrow(/ECONNREFUSED/);
    const down = await sandboxStatus(stateDir, { size: 3, portOffset: OFFSET });
    expect(down.launcherPid).toBe(process.pid);
    expect(down.healthy).toBe(false);
    expect(down.members[follower - 1]).toMatchObject({ process: 'stopped', pid: null, mode: null });
    expect(down.members[follower - 1]!.detail).toMatch(/^down: killed \(signal SIGKILL\)/);

    const started = await runDrill(stateDir, 'start', follower);
    expect(started.member.state).toBe('running');
    expect(started.member.pid).not.toBe(before);
    expect(started.mode).toBe('follower');
    expect(parseSrvrMode(await srvr(follower))).toBe('follower');
    const up = await sandboxStatus(stateDir, { size: 3, portOffset: OFFSET });
    expect(up.healthy).toBe(true);
    expect(up.members[follower - 1]).toMatchObject({ process: 'running', pid: started.member.pid, mode: 'follower' });
  });

  it('restart: a new pid, the old JVM gone, the member serving when it resolves', async () => {
    const follower = await aFollower();
    const before = ensemble.member(follower).pid!;
    // The library call a rolling upgrade would make, with its deadline.
    const outcome = await ensemble.restartMember(follower, { timeoutMs: 45_000 });
    expect(outcome.previousPid).toBe(before);
    expect(outcome.member.pid).not.toBe(before);
    expect(outcome.member.pid).toBe(ensemble.member(follower).pid);
    expect(isAlive(before)).toBe(false);
    expect(outcome.mode).toBe('follower');
    expect(parseSrvrMode(await srvr(follower))).toBe('follower');
    expect(outcome.message).toContain(`pid ${before} -> ${outcome.member.pid}`);
  });

  it('restart gives up at its deadline with a report, instead of waiting forever', async () => {
    const follower = await aFollower();
    // One member cannot form a quorum with the other two stopped: it never serves.
    const others = [1, 2, 3].filter((id) => id !== follower);
    await Promise.all(others.map((id) => ensemble.stopMember(id)));
    try {
      const began = Date.now();
      await expect(ensemble.restartMember(follower, { timeoutMs: 4_000 })).rejects.toThrow(/timed out after \d+ ms waiting for member/);
      expect(Date.now() - began).toBeLessThan(12_000);
    } finally {
      await ensemble.startAll();
    }
    expect(await ensemble.leaderId()).not.toBeNull();
  });

  it('freeze: connections hang and status says frozen; thaw: the same JVM serves again', async () => {
    const follower = await aFollower();
    const pid = ensemble.member(follower).pid!;
    const frozen = await runDrill(stateDir, 'freeze', follower);
    expect(frozen.member).toMatchObject({ state: 'paused', pid });
    try {
      await expect(srvr(follower, 800)).rejects.toThrow(/timed out/);
      const status = await sandboxStatus(stateDir, { size: 3, portOffset: OFFSET });
      expect(status.members[follower - 1]).toMatchObject({ process: 'paused', pid, mode: null });
      expect(status.members[follower - 1]!.detail).toMatch(/^frozen \(SIGSTOP\)/);
      expect(status.healthy).toBe(false);
    } finally {
      const thawed = await runDrill(stateDir, 'thaw', follower);
      expect(thawed.member).toMatchObject({ state: 'running', pid });
    }
    expect(await eventually(async () => parseSrvrMode(await srvr(follower)), 10_000)).toBe('follower');
  });

  it('refuses what cannot be done, with the reason, and keeps serving', async () => {
    const follower = await aFollower();
    await expect(runDrill(stateDir, 'kill', 7)).rejects.toThrow('no member 7 (members are 1..3)');
    await ensemble.stopMember(follower);
    await expect(runDrill(stateDir, 'freeze', follower)).rejects.toThrow(/not running: start it before freezing it/);
    expect((await runDrill(stateDir, 'stop', follower)).message).toBe(`member ${follower} was not running`);
    await runDrill(stateDir, 'start', follower);
    expect((await runDrill(stateDir, 'thaw', follower)).message).toBe(`member ${follower} was not frozen (running)`);
    expect((await sandboxStatus(stateDir, { size: 3, portOffset: OFFSET })).healthy).toBe(true);
  });

  it('a 900 s session negotiates 900 s (maxSessionTimeout), as seed 000 needs', async () => {
    const sessions = await holdSessions([{ hosts: ensemble.connectionString, timeout: 900 }]);
    try {
      const sid = sessions.ids[0]!;
      // cons on every member: the one holding the connection prints the negotiated timeout.
      const line = await eventually(async () => {
        const answers = await Promise.all([1, 2, 3].map((id) => fourLetterWord('127.0.0.1', clientPort(id), 'cons')));
        return answers.flatMap((a) => a.split('\n')).find((l) => l.includes(`sid=${sid}`)) ?? null;
      }, 10_000);
      expect(/\bto=(\d+)/.exec(line)?.[1]).toBe('900000');
    } finally {
      await sessions.kill();
    }
  });
});

describe('drills from the CLI beside a running npm start', () => {
  let stateDir: string;
  let dataDir: string;
  let keeper: ChildProcess;
  let keeperExit: Promise<number | null>;

  const cli = (...args: string[]) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/sandbox-cli.ts', ...args, '--state-dir', stateDir, '--port-offset', String(OFFSET)], {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += String(d)));
      child.stderr.on('data', (d) => (out += String(d)));
      child.once('exit', (code) => resolve({ code, out }));
    });

  beforeAll(async () => {
    stateDir = tempStateDir('npm');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kd-data-'));
    keeper = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/start.ts', '--port', '0', '--sandbox-port-offset', String(OFFSET), '--state-dir', stateDir, '--data-dir', dataDir],
      {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, KEEPER_ADMIN_TOKEN: 'drill-test-admin-token-0123456789', KEEPER_WEB_DIST: path.join(dataDir, 'no-web') },
      },
    );
    keeperExit = new Promise((resolve) => keeper.once('exit', (code) => resolve(code)));
    let out = '';
    keeper.stderr!.on('data', (d) => (out += String(d)));
    await new Promise<void>((resolve, reject) => {
      keeper.stdout!.on('data', (d) => {
        out += String(d);
        if (out.includes('Keeper is serving')) resolve();
      });
      void keeperExit.then((code) => reject(new Error(`npm start exited (${code}) before serving:\n${out}`)));
    });
  });

  afterAll(async () => {
    if (keeper.exitCode === null && keeper.signalCode === null) keeper.kill('SIGKILL');
    await keeperExit;
    for (const pid of sandboxJvms(stateDir)) process.kill(pid, 'SIGKILL');
    fs.rmSync(stateDir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('kill, status, restart from the CLI; Ctrl-C on npm start then stops the restarted member too', async () => {
    const help = await cli('--help');
    expect(help.out).toMatch(/kill <id>\s+SIGKILL/);
    expect(help.out).toMatch(/freeze <id>\s+SIGSTOP/);

    const healthy = await cli('status');
    expect(healthy.code).toBe(0);
    expect(healthy.out).toContain(`launcher pid ${keeper.pid}`);
    const pidOf = (out: string, id: number) => Number(new RegExp(`member ${id} \\S+ pid (\\d+)`).exec(out)?.[1]);
    const oldPid = pidOf(healthy.out, 2);
    expect(oldPid).toBeGreaterThan(0);

    const killed = await cli('kill', '3');
    expect(killed.code).toBe(0);
    expect(killed.out).toContain('member 3 killed (SIGKILL');
    const degraded = await cli('status');
    expect(degraded.code).toBe(1);
    expect(degraded.out).toMatch(/member 3 127\.0\.0\.1:\d+: down: killed \(signal SIGKILL\)/);
    expect((await cli('start', '3')).code).toBe(0);

    const restarted = await cli('restart', '2', '--timeout', '45');
    expect(restarted.code).toBe(0);
    const m = /member 2 restarted: pid (\d+) -> (\d+), serving as (\w+)/.exec(restarted.out);
    expect(m?.[1]).toBe(String(oldPid));
    const newPid = Number(m?.[2]);
    expect(newPid).not.toBe(oldPid);
    expect(isAlive(oldPid)).toBe(false);
    expect(isAlive(newPid)).toBe(true);
    expect(pidOf((await cli('status')).out, 2)).toBe(newPid);

    keeper.kill('SIGINT');
    expect(await keeperExit).toBe(0);
    expect(isAlive(newPid)).toBe(false);
    expect(sandboxJvms(stateDir)).toEqual([]);
    expect(fs.existsSync(controlSocketPath(stateDir))).toBe(false);
    const after = await cli('kill', '2');
    expect(after.code).toBe(1);
    expect(after.out).toContain('no sandbox launcher answers');
  });
});
