/**
 * The sandbox against real ZooKeeper JVMs: elections, crashes, hangs and clean-up.
 * Ports: see portOffsets.ts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fourLetterWord, parseSrvrMode, SandboxEnsemble } from './index.js';
import { isPortFree } from './ports.js';
import { PORT_OFFSETS } from './portOffsets.js';

const OFFSET = PORT_OFFSETS.sandboxLauncherTest;
/** The documented layout, written out here (not through memberPorts) so the test checks it. */
const client = (id: number) => 2190 + id + OFFSET;
const admin = (id: number) => 8090 + id + OFFSET;
const FIXTURE = fileURLToPath(new URL('./fixtures/holdEnsemble.ts', import.meta.url));

/** Live ZooKeeper JVMs whose command line mentions the text (read straight from /proc). */
function jvmsMentioning(text: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return cmdline.includes('QuorumPeerMain') && cmdline.includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Polls fn until it returns non-null; a throw counts as "not yet". */
async function eventually<T>(fn: () => Promise<T | null> | T | null, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await Promise.resolve()
      .then(fn)
      .catch(() => null);
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const srvrMode = async (port: number) => parseSrvrMode(await fourLetterWord('127.0.0.1', port, 'srvr'));

describe('SandboxEnsemble with real ZooKeeper', () => {
  let stateDir: string;
  let ensemble: SandboxEnsemble;
  const log: string[] = [];

  beforeAll(async () => {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keeper-sandbox-it-'));
    ensemble = await SandboxEnsemble.start({
      stateDir,
      portOffset: OFFSET,
      // Member 3 allows only ruok (and srvr, which ZooKeeper always allows).
      memberConfig: (id): Record<string, string> => (id === 3 ? { '4lw.commands.whitelist': 'ruok' } : {}),
      log: (line) => log.push(line),
    });
  });

  afterAll(async () => {
    await ensemble?.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('starts three serving members with one leader', async () => {
    expect(ensemble.connectionString).toBe(`127.0.0.1:${client(1)},127.0.0.1:${client(2)},127.0.0.1:${client(3)}`);
    expect(ensemble.members.map((m) => [m.id, m.clientPort, m.adminPort, m.state])).toEqual([
      [1, client(1), admin(1), 'running'],
      [2, client(2), admin(2), 'running'],
      [3, client(3), admin(3), 'running'],
    ]);
    for (const m of ensemble.members) expect(m.pid).toBeGreaterThan(0);
    expect(['leader', 'follower']).toContain(await srvrMode(client(1)));
    expect(await fourLetterWord('127.0.0.1', client(3), 'mntr')).toContain('not in the whitelist');
    expect(await fourLetterWord('127.0.0.1', client(2), 'mntr')).toContain('zk_server_state');
    expect(await fourLetterWord('127.0.0.1', client(3), 'ruok')).toBe('imok');
    expect(['leader', 'follower']).toContain(await srvrMode(client(3)));
    const leader = await ensemble.leaderId();
    expect([1, 2, 3]).toContain(leader);
    expect(fs.readFileSync(path.join(stateDir, 'member-1.log'), 'utf8')).toContain('QuorumPeer');
    expect(log.some((l) => l.includes('3 members serving'))).toBe(true);
  });

  it('refuses to start on busy ports and names the holder', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'keeper-sandbox-busy-'));
    try {
      await expect(SandboxEnsemble.start({ stateDir: other, portOffset: OFFSET })).rejects.toThrow(
        `port ${client(1)} is in use (by pid ${ensemble.member(1).pid}: java`,
      );
      expect(jvmsMentioning(other)).toEqual([]);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('elects a new leader within seconds after the leader is killed, and the old one rejoins', async () => {
    const old = (await ensemble.leaderId())!;
    const oldPid = ensemble.member(old).pid!;
    const began = Date.now();
    await ensemble.killMember(old);
    expect(ensemble.member(old)).toMatchObject({ state: 'stopped', pid: null });
    expect(jvmsMentioning(path.join(stateDir, `member-${old}`, 'zoo.cfg'))).toEqual([]);
    const next = await eventually(() => ensemble.leaderId(), 10_000);
    expect(next).not.toBe(old);
    expect(Date.now() - began).toBeLessThan(10_000);

    await ensemble.startMember(old);
    expect(ensemble.member(old).state).toBe('running');
    expect(ensemble.member(old).pid).not.toBe(oldPid);
    await ensemble.waitForQuorum(10_000);
    expect(await ensemble.leaderId()).toBe(next);
  });

  it('a paused member hangs without losing the quorum, and serves again when resumed', async () => {
    const leader = (await ensemble.leaderId())!;
    const follower = leader === 1 ? 2 : 1;
    const port = ensemble.member(follower).clientPort;
    ensemble.pauseMember(follower);
    expect(ensemble.member(follower).state).toBe('paused');
    await expect(fourLetterWord('127.0.0.1', port, 'srvr', 500)).rejects.toThrow(/timed out/);
    expect(await ensemble.leaderId()).toBe(leader);
    ensemble.resumeMember(follower);
    expect(ensemble.member(follower).state).toBe('running');
    expect(await eventually(() => srvrMode(port), 10_000)).toBe('follower');
  });

  it('stops a paused member with SIGTERM (resumed for the caller) and restarts members', async () => {
    const leader = (await ensemble.leaderId())!;
    const follower = leader === 2 ? 1 : 2;
    ensemble.pauseMember(follower);
    const began = Date.now();
    await ensemble.stopMember(follower);
    // Well under the 5 s SIGKILL escalation: SIGTERM reached a continued JVM.
    expect(Date.now() - began).toBeLessThan(4000);
    expect(ensemble.member(follower)).toMatchObject({ state: 'stopped', pid: null });
    await ensemble.startMember(follower);
    expect(await srvrMode(ensemble.member(follower).clientPort)).toBe('follower');

    const pid = ensemble.member(follower).pid;
    await ensemble.restartMember(follower);
    expect(ensemble.member(follower).pid).not.toBe(pid);
    expect(await srvrMode(ensemble.member(follower).clientPort)).toBe('follower');

    // Started without startOn, the sandbox has only the installed build; asking for another touches nothing.
    expect(ensemble.member(follower).build).toBe('installed');
    const running = ensemble.member(follower).pid;
    await expect(ensemble.restartMember(follower, { build: 'older' })).rejects.toThrow(/no older build to restart member/);
    expect(ensemble.member(follower)).toMatchObject({ state: 'running', pid: running, build: 'installed' });
  });

  it('stopAll and startAll bring the whole ensemble down and back', async () => {
    await ensemble.stopAll();
    expect(ensemble.members.every((m) => m.state === 'stopped')).toBe(true);
    expect(await ensemble.leaderId()).toBeNull();
    await ensemble.startAll();
    expect(ensemble.members.every((m) => m.state === 'running')).toBe(true);
    expect(await ensemble.leaderId()).not.toBeNull();
  });

  it('close() leaves no JVM and frees the ports; it is idempotent', async () => {
    await ensemble.close();
    await ensemble.close();
    expect(jvmsMentioning(stateDir)).toEqual([]);
    expect(ensemble.members.every((m) => m.state === 'stopped')).toBe(true);
    for (const m of ensemble.members) expect(await isPortFree(m.clientPort)).toBe(true);
    expect(fs.existsSync(path.join(stateDir, 'sandbox.pid'))).toBe(false);
    await expect(ensemble.startMember(1)).rejects.toThrow(/closed/);
  });
});

describe('a launcher that dies takes its JVMs with it', () => {
  async function holdEnsemble(stateDir: string, offset: number) {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, stateDir, String(offset)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const jvm = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += String(d);
        const m = /ready (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`fixture exited early (code ${code})`)));
    });
    return { child, jvm };
  }

  for (const [signal, offset] of [
    ['SIGTERM', PORT_OFFSETS.sandboxSigtermTest],
    ['SIGKILL', PORT_OFFSETS.sandboxSigkillTest],
  ] as const) {
    it(`on ${signal}`, async () => {
      const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `keeper-sandbox-${signal}-`));
      try {
        const { child, jvm } = await holdEnsemble(stateDir, offset);
        expect(jvmsMentioning(stateDir)).toEqual([jvm]);
        const exited = new Promise((r) => child.once('exit', r));
        child.kill(signal);
        await exited;
        // SIGTERM: the reaper's handler; SIGKILL: the kernel, via setpriv --pdeathsig.
        await eventually(() => (jvmsMentioning(stateDir).length === 0 ? true : null), 5000);
      } finally {
        for (const pid of jvmsMentioning(stateDir)) process.kill(pid, 'SIGKILL');
        fs.rmSync(stateDir, { recursive: true, force: true });
      }
    });
  }
});
