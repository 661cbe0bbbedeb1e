/**
 * A real ZooKeeper ensemble on loopback, owned by this process: for `npm start`, the
 * integration tests and the e2e setup. Members are separate JVMs that the tests stop,
 * kill, pause and restart to reproduce the failures Keeper has to show.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findJava, findZooKeeperClasspath, MISSING_ZOOKEEPER } from './classpath.js';
import { launchMember, signalGroup, terminate, type MemberProcess } from './memberProcess.js';
import { allPorts, assertPortsFree, MAX_SIZE, maxPortOffset, memberPorts, type MemberPorts } from './ports.js';
import { memberMode, pollUntil } from './probe.js';
import { acquire, release } from './stateLock.js';
import type { SandboxMember, SandboxOptions } from './types.js';
import { renderZooCfg } from './zooCfg.js';

interface Resolved {
  size: number;
  portOffset: number;
  stateDir: string;
  tickTime: number;
  extraConfig: Record<string, string>;
  memberConfig: (id: number) => Record<string, string>;
  log: (line: string) => void;
  startTimeoutMs: number;
}

interface Slot {
  info: SandboxMember;
  ports: MemberPorts;
  dir: string;
  configPath: string;
  logPath: string;
  proc: MemberProcess | null;
  /** Set while we stop it ourselves, so its exit is not reported as a crash. */
  stopping: boolean;
}

const SERVING_TIMEOUT_MS = 30_000;

function intIn(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`sandbox: ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

function resolveOptions(o: SandboxOptions): Resolved {
  if (!o.stateDir) throw new Error('sandbox: stateDir is required');
  const size = intIn('size', o.size ?? 3, 1, MAX_SIZE);
  return {
    size,
    portOffset: intIn('portOffset', o.portOffset ?? 0, 0, maxPortOffset(size)),
    stateDir: path.resolve(o.stateDir),
    tickTime: intIn('tickTime', o.tickTime ?? 2000, 10, 60_000),
    extraConfig: o.extraConfig ?? {},
    memberConfig: o.memberConfig ?? (() => ({})),
    log: o.log ?? (() => {}),
    startTimeoutMs: o.startTimeoutMs ?? 60_000,
  };
}

function tail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export class SandboxEnsemble {
  readonly connectionString: string;
  readonly members: SandboxMember[];
  readonly stateDir: string;
  private readonly slots = new Map<number, Slot>();
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly cfg: Resolved,
    private readonly java: string,
    private readonly classpath: string,
  ) {
    this.stateDir = cfg.stateDir;
    for (let id = 1; id <= cfg.size; id++) {
      const ports = memberPorts(id, cfg.portOffset);
      const dir = path.join(cfg.stateDir, `member-${id}`);
      const info: SandboxMember = {
        id,
        host: '127.0.0.1',
        clientPort: ports.clientPort,
        adminPort: ports.adminPort,
        pid: null,
        state: 'stopped',
      };
      this.slots.set(id, {
        info,
        ports,
        dir,
        configPath: path.join(dir, 'zoo.cfg'),
        logPath: path.join(cfg.stateDir, `member-${id}.log`),
        proc: null,
        stopping: false,
      });
    }
    this.members = [...this.slots.values()].map((s) => s.info);
    this.connectionString = this.members.map((m) => `${m.host}:${m.clientPort}`).join(',');
  }

  /** Launches every member; resolves once all answer srvr with a Mode and one leads. */
  static async start(opts: SandboxOptions): Promise<SandboxEnsemble> {
    const cfg = resolveOptions(opts);
    const classpath = findZooKeeperClasspath();
    if (classpath === null) throw new Error(MISSING_ZOOKEEPER);
    const java = findJava();
    if (java === null) throw new Error('java not found: install a JRE (Debian: apt-get install -y default-jre-headless) or set JAVA_HOME');
    fs.mkdirSync(cfg.stateDir, { recursive: true });
    await acquire(cfg.stateDir, cfg.log);
    const ensemble = new SandboxEnsemble(cfg, java, classpath);
    try {
      await assertPortsFree([...ensemble.slots.values()].flatMap((s) => allPorts(s.ports)));
      const began = Date.now();
      for (const slot of ensemble.slots.values()) {
        ensemble.writeConfig(slot);
        fs.writeFileSync(slot.logPath, '');
        ensemble.launch(slot);
      }
      await ensemble.waitForQuorum(cfg.startTimeoutMs, { failOnExit: true });
      const leader = await ensemble.leaderId();
      cfg.log(`${cfg.size} members serving on ${ensemble.connectionString}, leader ${leader}, in ${Date.now() - began} ms`);
      return ensemble;
    } catch (err) {
      await ensemble.close();
      throw err;
    }
  }

  member(id: number): SandboxMember {
    return this.slot(id).info;
  }

  async stopMember(id: number): Promise<void> {
    await this.halt(this.slot(id), 'SIGTERM');
  }

  async killMember(id: number): Promise<void> {
    await this.halt(this.slot(id), 'SIGKILL');
  }

  /** Starts a stopped member (a paused one is resumed); by default waits until it serves. */
  async startMember(id: number, opts: { waitServing?: boolean } = {}): Promise<void> {
    const slot = this.slot(id);
    this.assertOpen();
    if (slot.proc === null) {
      await assertPortsFree(allPorts(slot.ports));
      this.launch(slot);
    } else if (slot.info.state === 'paused') {
      this.resumeMember(id);
    }
    if (opts.waitServing ?? true) await this.waitServing(slot, SERVING_TIMEOUT_MS);
  }

  async restartMember(id: number): Promise<void> {
    await this.stopMember(id);
    await this.startMember(id);
  }

  /** SIGSTOP: the FAQ's hung server. Connections stay open and nothing is answered. */
  pauseMember(id: number): void {
    const slot = this.slot(id);
    if (slot.proc === null) throw new Error(`sandbox: member ${id} is not running`);
    signalGroup(slot.proc.pid, 'SIGSTOP');
    slot.info.state = 'paused';
    this.cfg.log(`member ${id} paused (SIGSTOP pid ${slot.proc.pid})`);
  }

  resumeMember(id: number): void {
    const slot = this.slot(id);
    if (slot.proc === null || slot.info.state !== 'paused') return;
    signalGroup(slot.proc.pid, 'SIGCONT');
    slot.info.state = 'running';
    this.cfg.log(`member ${id} resumed (SIGCONT pid ${slot.proc.pid})`);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.slots.values()].map((s) => this.halt(s, 'SIGTERM')));
  }

  /** Starts every stopped member, resumes paused ones, waits for a full quorum. */
  async startAll(): Promise<void> {
    this.assertOpen();
    const stopped = [...this.slots.values()].filter((s) => s.proc === null);
    await assertPortsFree(stopped.flatMap((s) => allPorts(s.ports)));
    for (const slot of this.slots.values()) {
      if (slot.proc === null) this.launch(slot);
      else this.resumeMember(slot.info.id);
    }
    await this.waitForQuorum(this.cfg.startTimeoutMs);
  }

  /** The member whose srvr says `Mode: leader` (paused members are not asked). */
  async leaderId(): Promise<number | null> {
    const modes = await this.modes();
    return modes.find(([, mode]) => mode === 'leader')?.[0] ?? null;
  }

  /** Until a leader exists and every running (not paused, not stopped) member serves. */
  async waitForQuorum(timeoutMs = SERVING_TIMEOUT_MS, opts: { failOnExit?: boolean } = {}): Promise<void> {
    const launched = opts.failOnExit ? [...this.slots.values()].filter((s) => s.proc !== null) : [];
    await pollUntil(
      async () => {
        const crashed = launched.find((s) => s.proc === null);
        if (crashed) throw new Error(this.crashReport(crashed));
        const modes = await this.modes();
        if (modes.length === 0 || modes.some(([, mode]) => mode === null)) return null;
        return modes.some(([, mode]) => mode === 'leader') ? true : null;
      },
      { timeoutMs, intervalMs: 100, describe: () => this.timeoutReport('a quorum', timeoutMs) },
    );
  }

  /** Stops everything this ensemble started. Idempotent; safe after a failed start. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.stopAll();
      release(this.cfg.stateDir);
      this.cfg.log('sandbox stopped');
    })();
    return this.closing;
  }

  // ---- internals ----

  private slot(id: number): Slot {
    const slot = this.slots.get(id);
    if (!slot) throw new Error(`sandbox: no member ${id} (members are 1..${this.cfg.size})`);
    return slot;
  }

  private assertOpen(): void {
    if (this.closing) throw new Error('sandbox: ensemble is closed');
  }

  private writeConfig(slot: Slot): void {
    const id = slot.info.id;
    const dataDir = path.join(slot.dir, 'data');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'myid'), `${id}\n`);
    // reconfigEnabled makes ZooKeeper rewrite zoo.cfg and add these next to it.
    for (const f of fs.readdirSync(slot.dir)) {
      if (f === 'zoo.cfg.bak' || f.startsWith('zoo.cfg.dynamic')) fs.rmSync(path.join(slot.dir, f), { force: true });
    }
    const text = renderZooCfg({
      id,
      size: this.cfg.size,
      portOffset: this.cfg.portOffset,
      dataDir,
      tickTime: this.cfg.tickTime,
      overrides: [this.cfg.extraConfig, this.cfg.memberConfig(id)],
    });
    fs.writeFileSync(slot.configPath, text);
  }

  private launch(slot: Slot): void {
    const proc = launchMember({
      java: this.java,
      classpath: this.classpath,
      configPath: slot.configPath,
      logPath: slot.logPath,
    });
    slot.proc = proc;
    slot.stopping = false;
    slot.info.pid = proc.pid;
    slot.info.state = 'running';
    this.cfg.log(`member ${slot.info.id} launched, pid ${proc.pid}, client port ${slot.ports.clientPort}`);
    void proc.exited.then((how) => {
      if (slot.proc !== proc) return;
      slot.proc = null;
      slot.info.pid = null;
      slot.info.state = 'stopped';
      if (!slot.stopping) this.cfg.log(`member ${slot.info.id} exited unexpectedly (${how}); see ${slot.logPath}`);
    });
  }

  private async halt(slot: Slot, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const proc = slot.proc;
    if (proc === null) return;
    slot.stopping = true;
    await terminate(proc, signal);
    await proc.exited;
    this.cfg.log(`member ${slot.info.id} ${signal === 'SIGKILL' ? 'killed' : 'stopped'}`);
  }

  private async waitServing(slot: Slot, timeoutMs: number): Promise<void> {
    const proc = slot.proc;
    await pollUntil(
      async () => {
        if (slot.proc !== proc || proc === null) throw new Error(this.crashReport(slot));
        return memberMode(this.target(slot));
      },
      { timeoutMs, describe: () => this.timeoutReport(`member ${slot.info.id} to serve`, timeoutMs) },
    );
  }

  private target(slot: Slot) {
    return { host: slot.info.host, clientPort: slot.ports.clientPort };
  }

  private async modes(): Promise<[number, string | null][]> {
    const running = [...this.slots.values()].filter((s) => s.info.state === 'running');
    return Promise.all(running.map(async (s) => [s.info.id, await memberMode(this.target(s))] as [number, string | null]));
  }

  private crashReport(slot: Slot): string {
    return `sandbox: member ${slot.info.id} exited; last lines of ${slot.logPath}:\n${tail(slot.logPath)}`;
  }

  private async timeoutReport(what: string, timeoutMs: number): Promise<string> {
    const rows = await Promise.all(
      [...this.slots.values()].map(async (s) => {
        const mode = s.info.state === 'running' ? ((await memberMode(this.target(s))) ?? 'not serving') : s.info.state;
        return { s, mode, line: `  member ${s.info.id} (pid ${s.info.pid ?? '-'}, port ${s.ports.clientPort}): ${mode}` };
      }),
    );
    // The log of the first member that is running but not serving says why.
    const culprit = rows.find((r) => r.mode === 'not serving')?.s ?? rows[0]!.s;
    return (
      `sandbox: timed out after ${timeoutMs} ms waiting for ${what}\n${rows.map((r) => r.line).join('\n')}\n` +
      `last lines of ${culprit.logPath}:\n${tail(culprit.logPath)}`
    );
  }
}

