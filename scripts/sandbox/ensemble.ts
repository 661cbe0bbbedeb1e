/**
 * A real ZooKeeper ensemble on loopback, owned by this process: for `npm start`, the
 * integration tests and the e2e setup. Members are separate JVMs that the tests stop,
 * kill, pause and restart to reproduce the failures Keeper has to show.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { findJava, findZooKeeperClasspath, MISSING_ZOOKEEPER, withNettyTls } from './classpath.js';
import { prepareSecurity, type SandboxSecurity } from './security.js';
import { launchMember, signalGroup, terminate, waitUntilStopped, type MemberProcess } from './memberProcess.js';
import { olderBuildClasspath, type OlderBuild } from './olderBuild.js';
import { allPorts, assertPortsFree, MAX_SIZE, maxPortOffset, memberPorts, type MemberPorts } from './ports.js';
import { memberMode, pollUntil } from './probe.js';
import { acquire, release } from './stateLock.js';
import { fourLetterWord } from './fourLetterWord.js';
import type { AddOutcome, DrillOp, DrillOutcome, MemberBuild, MemberRestarter, SandboxMember, SandboxOptions } from './types.js';
import { serveControl, type ControlServer } from './controlServer.js';
import { renderDynamicConfig, renderZooCfg, sandboxServerLine } from './zooCfg.js';

interface Resolved {
  size: number;
  portOffset: number;
  stateDir: string;
  tickTime: number;
  extraConfig: Record<string, string>;
  memberConfig: (id: number) => Record<string, string>;
  log: (line: string) => void;
  startTimeoutMs: number;
  startOn: OlderBuild | null;
  security: SandboxSecurity | null;
  readOnlyMode: boolean;
  reconfig: { superPassword: string } | null;
}

/** The classpath of each build this sandbox can run. */
type Classpaths = Record<MemberBuild, string | null>;

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
/** A TLS-only member starts slower (Netty, the keystores) and answers its first TLS handshakes slowly. */
const SECURE_SERVING_TIMEOUT_MS = 60_000;
/** A restart's whole budget: SIGTERM (SIGKILL after 5 s), launch, election, serving. */
export const RESTART_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

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
    startOn: o.startOn ?? null,
    security: null,
    readOnlyMode: o.readOnlyMode ?? false,
    reconfig: o.reconfig ?? null,
  };
}

/** ZooKeeper's superDigest for user `super` (DigestAuthenticationProvider: base64 of SHA-1 of "super:<password>"). */
export function superDigest(password: string): string {
  return `super:${createHash('sha1').update(`super:${password}`).digest('base64')}`;
}

/** How often a reconfig-enabled sandbox looks for members a reconfig removed (to stop them). */
const REMOVED_CHECK_MS = 2_000;

/** The server lines and version of a `conf` answer (a quorum member prints its dynamic config there). */
function confMembership(conf: string): { version: bigint; ids: Set<number>; lines: string[] } | null {
  const lines = conf
    .split(/\r?\n/)
    .filter((l) => /^server\.\d+=/.test(l.trim()))
    .map((l) => l.trim());
  const version = /^version=([0-9a-f]+)$/im.exec(conf)?.[1];
  if (lines.length === 0 || version === undefined) return null;
  return { version: BigInt(`0x${version}`), ids: new Set(lines.map((l) => Number(/^server\.(\d+)=/.exec(l)![1]))), lines };
}

function tail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export class SandboxEnsemble implements MemberRestarter {
  readonly connectionString: string;
  readonly members: SandboxMember[];
  readonly stateDir: string;
  /** TLS and SASL of a secure sandbox (certificates, JAAS users), else null. */
  readonly security: SandboxSecurity | null;
  private readonly slots = new Map<number, Slot>();
  private closing: Promise<void> | null = null;
  /** The tail of each member's queue: one operation at a time per member, whoever asks. */
  private readonly queues = new Map<number, Promise<unknown>>();
  private control: ControlServer | null = null;
  /** Members seen in the dynamic configuration: one missing from it later was removed by a reconfig. */
  private readonly seenInConfig = new Set<number>();
  private removedTimer: NodeJS.Timeout | null = null;
  /** Members the sandbox does not stop when a reconfig removes them (leaveRunningWhenRemoved). */
  private readonly leftRunning = new Set<number>();
  private checkingRemoved = false;

  private constructor(
    private readonly cfg: Resolved,
    private readonly java: string,
    private readonly classpaths: Classpaths,
  ) {
    this.stateDir = cfg.stateDir;
    this.security = cfg.security;
    for (let id = 1; id <= cfg.size; id++) this.slots.set(id, this.newSlot(id, cfg.startOn ? 'older' : 'installed'));
    this.members = [...this.slots.values()].map((s) => s.info);
    this.connectionString = this.members.map((m) => `${m.host}:${m.clientPort}`).join(',');
  }

  /** Launches every member; resolves once all answer srvr with a Mode and one leads. */
  static async start(opts: SandboxOptions): Promise<SandboxEnsemble> {
    const cfg = resolveOptions(opts);
    if (cfg.reconfig && opts.secure)
      throw new Error('sandbox: reconfig and secure cannot be combined yet (a TLS-only member has no plain client part in its server line)');
    const found = findZooKeeperClasspath();
    if (found === null) throw new Error(MISSING_ZOOKEEPER);
    const installed = opts.secure ? withNettyTls(found) : found;
    const java = findJava();
    if (java === null) throw new Error('java not found: install a JRE (Debian: apt-get install -y default-jre-headless) or set JAVA_HOME');
    const classpaths: Classpaths = { installed, older: cfg.startOn ? olderBuildClasspath(installed, cfg.startOn) : null };
    fs.mkdirSync(cfg.stateDir, { recursive: true });
    await acquire(cfg.stateDir, cfg.log);
    try {
      cfg.security = opts.secure ? prepareSecurity(cfg.stateDir, opts.secure) : null;
      writeSecureMarker(cfg.stateDir, cfg.security);
      writeSuperPassword(cfg.stateDir, cfg.reconfig);
    } catch (err) {
      release(cfg.stateDir);
      throw err;
    }
    const ensemble = new SandboxEnsemble(cfg, java, classpaths);
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
      // Drills from another terminal (npm run sandbox -- kill 2) reach this launcher here, so
      // members it restarts stay its children: tracked, and stopped by close() and Ctrl-C.
      ensemble.control = await serveControl(ensemble, cfg.stateDir, cfg.log);
      if (cfg.reconfig) ensemble.watchForRemovedMembers();
      const on = cfg.startOn ? ` on the older build (${cfg.startOn.label}, "${cfg.startOn.version}")` : '';
      cfg.log(`${cfg.size} members serving on ${ensemble.connectionString}${on}, leader ${leader}, in ${Date.now() - began} ms`);
      return ensemble;
    } catch (err) {
      await ensemble.close();
      throw err;
    }
  }

  member(id: number): SandboxMember {
    return this.slot(id).info;
  }

  /**
   * Whether the sandbox's 2 s check has seen member `id` in the dynamic configuration: only such a
   * member counts as removed when a later configuration leaves it out (a member started by
   * addMember waits outside it until a reconfig adds it, and must not be stopped meanwhile).
   */
  seenInConfiguration(id: number): boolean {
    return this.seenInConfig.has(id);
  }

  /**
   * Lets member `id` run on once a reconfig removes it, as an operator who has not stopped it yet
   * would (a test of Keeper showing "removed from the ensemble, still running: stop it").
   */
  leaveRunningWhenRemoved(id: number): void {
    this.leftRunning.add(id);
  }

  async stopMember(id: number): Promise<void> {
    await this.exclusive(id, () => this.halt(this.slot(id), 'SIGTERM'));
  }

  async killMember(id: number): Promise<void> {
    await this.exclusive(id, () => this.halt(this.slot(id), 'SIGKILL'));
  }

  /** Starts a stopped member (a paused one is resumed); by default waits until it serves. */
  async startMember(id: number, opts: { waitServing?: boolean } = {}): Promise<void> {
    await this.exclusive(id, () => this.boot(this.slot(id), (opts.waitServing ?? true) ? this.servingTimeoutMs : null));
  }

  /**
   * Stops the member (SIGTERM, SIGKILL after 5 s) and starts it again on `build` (default the
   * installed one: on a sandbox started on the older build, that is the upgrade); resolves once
   * it serves (srvr has a Mode), or throws when timeoutMs (default 60 s) has passed. One member
   * at a time: what a rolling upgrade needs, and what `npm run sandbox -- restart <id>` runs.
   */
  restartMember(id: number, opts: { timeoutMs?: number; build?: MemberBuild } = {}): Promise<DrillOutcome> {
    return this.drill('restart', id, opts);
  }

  /**
   * Runs one fault drill on a member, after any operation already under way on it. Drills
   * that find nothing to do (kill a stopped member, thaw a running one) say so and succeed.
   * `build` applies to restart only: a start after a kill or stop is a recovery, not an
   * upgrade, so the member comes back on the build it ran.
   */
  async drill(op: DrillOp, id: number, opts: { timeoutMs?: number; build?: MemberBuild } = {}): Promise<DrillOutcome> {
    const slot = this.slot(id);
    const timeoutMs = opts.timeoutMs ?? RESTART_TIMEOUT_MS;
    const restartBuild = opts.build ?? 'installed';
    if (op === 'restart' && this.classpaths[restartBuild] === null) {
      throw new Error(`sandbox: no ${restartBuild} build to restart member ${id} on (start the sandbox with startOn to have the older one)`);
    }
    return this.exclusive(id, async () => {
      this.assertOpen();
      const began = Date.now();
      const previousPid = slot.info.pid;
      const was = slot.info.state;
      let mode: string | null = null;
      let message: string;
      const name = `member ${id}`;
      switch (op) {
        case 'kill':
        case 'stop': {
          if (previousPid === null) {
            message = `${name} was not running`;
            break;
          }
          await this.halt(slot, op === 'kill' ? 'SIGKILL' : 'SIGTERM');
          message =
            op === 'kill'
              ? `${name} killed (SIGKILL pid ${previousPid}): clients get "connection refused" until it starts`
              : `${name} stopped (SIGTERM pid ${previousPid}, ${slot.info.lastExit ?? 'exited'})`;
          break;
        }
        case 'freeze': {
          if (previousPid === null) throw new Error(`sandbox: ${name} is not running: start it before freezing it`);
          if (was === 'paused') {
            message = `${name} was already frozen (pid ${previousPid})`;
            break;
          }
          this.pauseMember(id);
          message = `${name} frozen (SIGSTOP pid ${previousPid}): it accepts connections and answers nothing, like a hung server; thaw it to resume`;
          break;
        }
        case 'thaw': {
          if (was !== 'paused') {
            message = `${name} was not frozen (${was})`;
            break;
          }
          this.resumeMember(id);
          message = `${name} thawed (SIGCONT pid ${previousPid})`;
          break;
        }
        case 'start': {
          if (was === 'running') {
            message = `${name} was already running (pid ${previousPid})`;
            break;
          }
          mode = await this.boot(slot, timeoutMs);
          message = `${name} ${was === 'paused' ? 'thawed' : 'started'}, pid ${slot.info.pid}, serving as ${mode} in ${secondsSince(began)}`;
          break;
        }
        case 'restart': {
          const deadline = began + timeoutMs;
          const wasBuild = slot.info.build;
          if (previousPid !== null) await this.halt(slot, 'SIGTERM', Math.min(STOP_GRACE_MS, timeoutMs / 2));
          slot.info.build = restartBuild;
          mode = await this.boot(slot, Math.max(0, deadline - Date.now()));
          const change = wasBuild === restartBuild ? '' : `, ${this.buildName(wasBuild)} -> ${this.buildName(restartBuild)}`;
          message = `${name} restarted: pid ${previousPid ?? '-'} -> ${slot.info.pid}${change}, serving as ${mode} in ${secondsSince(began)}`;
          break;
        }
      }
      return { op, member: { ...slot.info }, previousPid, mode, message, tookMs: Date.now() - began };
    });
  }

  /**
   * Starts member `id` as a learner ready to be added by a reconfig (issue 24): its dynamic config
   * lists the ensemble's current members (read from a serving member's `conf`) plus itself with
   * `role`. It syncs with the leader and waits there, answering srvr, until `reconfig -add <line>`.
   * `waitServing: false` returns once it is launched (a test's member that is not meant to serve).
   */
  async addMember(id: number, opts: { role?: 'participant' | 'observer'; timeoutMs?: number; waitServing?: boolean } = {}): Promise<AddOutcome> {
    this.assertOpen();
    if (!this.cfg.reconfig) throw new Error('sandbox: members can be added only to a sandbox started with reconfig (npm start does)');
    intIn('member id', id, 1, MAX_SIZE);
    const existing = this.slots.get(id);
    if (existing?.proc) throw new Error(`sandbox: member ${id} is already running (pid ${existing.info.pid})`);
    const began = Date.now();
    const role = opts.role ?? 'participant';
    return this.exclusive(id, async () => {
      const current = await this.currentMembership();
      if (current === null) throw new Error('sandbox: no running member answered conf with a dynamic configuration: is the ensemble serving?');
      if (current.ids.has(id)) throw new Error(`sandbox: member ${id} is already in the ensemble's configuration (version ${current.version.toString(16)})`);
      const line = sandboxServerLine(id, this.cfg.portOffset, role);
      const slot = this.slots.get(id) ?? this.newSlot(id, 'installed');
      if (!this.slots.has(id)) {
        this.slots.set(id, slot);
        this.members.push(slot.info);
      }
      this.writeConfig(slot, [...current.lines, line]);
      fs.writeFileSync(slot.logPath, '');
      await assertPortsFree(allPorts(slot.ports));
      this.launch(slot);
      const mode = (opts.waitServing ?? true) ? await this.waitServing(slot, opts.timeoutMs ?? this.servingTimeoutMs) : null;
      const message =
        `member ${id} ${mode === null ? 'launched' : 'started as a learner'} (pid ${slot.info.pid}${mode === null ? '' : `, srvr says ${mode}`}) with the ensemble's configuration version ` +
        `${current.version.toString(16)} plus itself; add it with: reconfig -add ${line}`;
      this.cfg.log(message);
      return { member: { ...slot.info }, line, mode, message, tookMs: Date.now() - began };
    });
  }

  /** Copies of every member's process state, for status reports. */
  snapshot(): SandboxMember[] {
    return this.members.map((m) => ({ ...m }));
  }

  /** SIGSTOP: the FAQ's hung server. Connections stay open and nothing is answered. Returns once every thread has stopped. */
  pauseMember(id: number): void {
    const slot = this.slot(id);
    if (slot.proc === null) throw new Error(`sandbox: member ${id} is not running`);
    signalGroup(slot.proc.pid, 'SIGSTOP');
    waitUntilStopped(slot.proc.pid);
    slot.info.state = 'paused';
    slot.info.since = Date.now();
    this.cfg.log(`member ${id} paused (SIGSTOP pid ${slot.proc.pid})`);
  }

  resumeMember(id: number): void {
    const slot = this.slot(id);
    if (slot.proc === null || slot.info.state !== 'paused') return;
    signalGroup(slot.proc.pid, 'SIGCONT');
    slot.info.state = 'running';
    slot.info.since = Date.now();
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
  async waitForQuorum(timeoutMs = this.servingTimeoutMs, opts: { failOnExit?: boolean } = {}): Promise<void> {
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
      // No drill may start a member once closing began (launch() checks), and none arrives.
      const control = this.control;
      this.control = null;
      if (this.removedTimer) clearInterval(this.removedTimer);
      this.removedTimer = null;
      await Promise.all([this.stopAll(), control?.close()]);
      release(this.cfg.stateDir);
      this.cfg.log('sandbox stopped');
    })();
    return this.closing;
  }

  // ---- internals ----

  private get servingTimeoutMs(): number {
    return this.security ? SECURE_SERVING_TIMEOUT_MS : SERVING_TIMEOUT_MS;
  }

  private newSlot(id: number, build: MemberBuild): Slot {
    const ports = memberPorts(id, this.cfg.portOffset);
    const dir = path.join(this.cfg.stateDir, `member-${id}`);
    const info: SandboxMember = {
      id,
      host: '127.0.0.1',
      clientPort: ports.clientPort,
      adminPort: ports.adminPort,
      pid: null,
      state: 'stopped',
      since: Date.now(),
      lastExit: null,
      build,
    };
    return { info, ports, dir, configPath: path.join(dir, 'zoo.cfg'), logPath: path.join(this.cfg.stateDir, `member-${id}.log`), proc: null, stopping: false };
  }

  /** The newest dynamic configuration any running member reports in `conf` (a lagging or removed one may show an older one). */
  private async currentMembership(): Promise<{ version: bigint; ids: Set<number>; lines: string[] } | null> {
    const running = [...this.slots.values()].filter((s) => s.info.state === 'running');
    const answers = await Promise.all(
      running.map((s) =>
        fourLetterWord(s.info.host, s.ports.clientPort, 'conf', 1_500).then(
          (conf) => confMembership(conf),
          () => null,
        ),
      ),
    );
    let newest: { version: bigint; ids: Set<number>; lines: string[] } | null = null;
    for (const answer of answers) if (answer && (newest === null || answer.version > newest.version)) newest = answer;
    return newest;
  }

  /**
   * A member a reconfig removed keeps running on its own, outside the ensemble: the sandbox stops
   * it (issue 24: "removed members are stopped by the sandbox"). Only a member once seen in the
   * configuration counts as removed; one started by addMember waits there until it is added.
   */
  private watchForRemovedMembers(): void {
    const check = async () => {
      if (this.checkingRemoved || this.closing) return;
      this.checkingRemoved = true;
      try {
        const current = await this.currentMembership();
        if (current === null) return;
        for (const id of current.ids) this.seenInConfig.add(id);
        for (const slot of this.slots.values()) {
          const id = slot.info.id;
          if (!this.seenInConfig.has(id) || current.ids.has(id) || slot.proc === null || this.leftRunning.has(id)) continue;
          this.seenInConfig.delete(id);
          this.cfg.log(`member ${id} was removed from the ensemble (configuration version ${current.version.toString(16)}): stopping it`);
          await this.exclusive(id, () => this.halt(slot, 'SIGTERM'));
        }
      } finally {
        this.checkingRemoved = false;
      }
    };
    this.removedTimer = setInterval(() => void check().catch(() => undefined), REMOVED_CHECK_MS);
    this.removedTimer.unref();
    void check().catch(() => undefined);
  }

  private slot(id: number): Slot {
    const slot = this.slots.get(id);
    if (!slot) throw new Error(`sandbox: no member ${id} (members are 1..${this.cfg.size})`);
    return slot;
  }

  private assertOpen(): void {
    if (this.closing) throw new Error('sandbox: ensemble is closed');
  }

  private exclusive<T>(id: number, fn: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(id) ?? Promise.resolve()).catch(() => {}).then(fn);
    this.queues.set(id, run);
    return run;
  }

  /** Launches a stopped member or resumes a paused one; with a timeout, waits until it serves and returns its mode. */
  private async boot(slot: Slot, servingTimeoutMs: number | null): Promise<string | null> {
    this.assertOpen();
    if (slot.proc === null) {
      await assertPortsFree(allPorts(slot.ports));
      this.launch(slot);
    } else if (slot.info.state === 'paused') {
      this.resumeMember(slot.info.id);
    }
    return servingTimeoutMs === null ? null : this.waitServing(slot, servingTimeoutMs);
  }

  /** `dynamicLines`: a joiner's membership (addMember); by default the sandbox's own members, all voters. */
  private writeConfig(slot: Slot, dynamicLines?: readonly string[]): void {
    const id = slot.info.id;
    const dataDir = path.join(slot.dir, 'data');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'myid'), `${id}\n`);
    // reconfigEnabled makes ZooKeeper rewrite zoo.cfg and add these next to it.
    for (const f of fs.readdirSync(slot.dir)) {
      if (f === 'zoo.cfg.bak' || f.startsWith('zoo.cfg.dynamic')) fs.rmSync(path.join(slot.dir, f), { force: true });
    }
    const dynamicFile = path.join(slot.dir, 'zoo.cfg.dynamic');
    if (this.cfg.reconfig) {
      const lines = dynamicLines ?? Array.from({ length: this.cfg.size }, (_, i) => sandboxServerLine(i + 1, this.cfg.portOffset));
      fs.writeFileSync(dynamicFile, renderDynamicConfig(lines));
    }
    const text = renderZooCfg({
      id,
      size: this.cfg.size,
      portOffset: this.cfg.portOffset,
      dataDir,
      tickTime: this.cfg.tickTime,
      overrides: [this.cfg.extraConfig, this.cfg.memberConfig(id)],
      readOnlyMode: this.cfg.readOnlyMode,
      ...(this.cfg.reconfig ? { dynamic: { file: dynamicFile, superDigest: superDigest(this.cfg.reconfig.superPassword) } } : {}),
      ...(this.security
        ? {
            tls: {
              keystore: this.security.tls.serverKeystore,
              truststore: this.security.tls.truststore,
              password: this.security.tls.storePassword,
              clientAuth: this.security.clientAuth,
            },
          }
        : {}),
    });
    fs.writeFileSync(slot.configPath, text);
  }

  private launch(slot: Slot): void {
    // close() may have begun while a drill awaited: a JVM launched now would outlive it.
    if (this.closing) throw new Error('sandbox: ensemble is closed');
    const classpath = this.classpaths[slot.info.build];
    if (classpath === null) throw new Error(`sandbox: member ${slot.info.id} is set to the ${slot.info.build} build, which this sandbox does not have`);
    const proc = launchMember({
      java: this.java,
      classpath,
      configPath: slot.configPath,
      logPath: slot.logPath,
      jvmFlags: [...(this.security?.jvmFlags ?? []), ...(this.cfg.readOnlyMode ? ['-Dreadonlymode.enabled=true'] : [])],
    });
    slot.proc = proc;
    slot.stopping = false;
    slot.info.pid = proc.pid;
    slot.info.state = 'running';
    slot.info.since = Date.now();
    const on = slot.info.build === 'older' ? ` on ${this.buildName('older')}` : '';
    this.cfg.log(`member ${slot.info.id} launched${on}, pid ${proc.pid}, client port ${slot.ports.clientPort}`);
    void proc.exited.then((how) => {
      if (slot.proc !== proc) return;
      slot.proc = null;
      slot.info.pid = null;
      slot.info.state = 'stopped';
      slot.info.since = Date.now();
      slot.info.lastExit = how;
      if (!slot.stopping) this.cfg.log(`member ${slot.info.id} exited unexpectedly (${how}); see ${slot.logPath}`);
    });
  }

  private async halt(slot: Slot, signal: 'SIGTERM' | 'SIGKILL', graceMs = STOP_GRACE_MS): Promise<void> {
    const proc = slot.proc;
    if (proc === null) return;
    slot.stopping = true;
    await terminate(proc, signal, graceMs);
    await proc.exited;
    this.cfg.log(`member ${slot.info.id} ${signal === 'SIGKILL' ? 'killed' : 'stopped'}`);
  }

  private async waitServing(slot: Slot, timeoutMs: number): Promise<string> {
    const proc = slot.proc;
    return pollUntil(
      async () => {
        if (slot.proc !== proc || proc === null) throw new Error(this.crashReport(slot));
        return memberMode(this.target(slot));
      },
      { timeoutMs, describe: () => this.timeoutReport(`member ${slot.info.id} to serve`, timeoutMs) },
    );
  }

  /** "the older build (libzookeeper-java 3.8.0-11+deb12u1)" or "the installed build", for messages. */
  private buildName(build: MemberBuild): string {
    return build === 'older' && this.cfg.startOn ? `the older build (${this.cfg.startOn.label})` : `the ${build} build`;
  }

  private target(slot: Slot) {
    return { host: slot.info.host, clientPort: slot.ports.clientPort, tls: this.security?.pem ?? null };
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

/** `<stateDir>/super.password` (mode 0600): ZooKeeper's super user's password for a reconfig-enabled sandbox (zkCli: addauth digest super:<it>). */
export const SUPER_PASSWORD_FILE = 'super.password';

function writeSuperPassword(stateDir: string, reconfig: { superPassword: string } | null): void {
  const file = path.join(stateDir, SUPER_PASSWORD_FILE);
  if (!reconfig) return fs.rmSync(file, { force: true });
  fs.writeFileSync(file, `${reconfig.superPassword}\n`, { mode: 0o600 });
}

/** `<stateDir>/secure.json` tells `npm run sandbox -- status` to ask its members over TLS. */
export const SECURE_MARKER = 'secure.json';

function writeSecureMarker(stateDir: string, security: SandboxSecurity | null): void {
  const file = path.join(stateDir, SECURE_MARKER);
  if (!security) return fs.rmSync(file, { force: true });
  fs.writeFileSync(file, `${JSON.stringify({ tls: security.tls.dir, sasl: security.saslUsers !== null })}\n`);
}

function secondsSince(t: number): string {
  return `${((Date.now() - t) / 1000).toFixed(1)} s`;
}
