/** One member JVM: launch, signal its process group, wait for it to exit. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { planClassArchive } from './classArchive.js';
import { trackGroup, untrackGroup } from './reaper.js';

const SETPRIV = '/usr/bin/setpriv';

export interface LaunchSpec {
  java: string;
  classpath: string;
  configPath: string;
  logPath: string;
  /** System properties and other JVM options (SASL's JAAS file, read-only mode). */
  jvmFlags?: string[];
}

export interface MemberProcess {
  pid: number;
  /** Resolves with a description ("code 0", "signal SIGKILL") once the JVM is gone. */
  exited: Promise<string>;
  hasExited(): boolean;
}

export function javaArgs(spec: LaunchSpec, extra: string[] = []): string[] {
  return [
    '-Xmx128m',
    '-XX:+UseSerialGC',
    // C1 only: a member serves after ~1.2 s of CPU instead of ~1.7 s, and never spends a core on
    // C2 compiles while tests run beside it. A sandbox member's load is far too light to miss C2.
    '-XX:TieredStopAtLevel=1',
    ...extra,
    // Timestamps in member-N.log make the logs comparable with test output.
    '-Dorg.slf4j.simpleLogger.showDateTime=true',
    '-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS',
    ...(spec.jvmFlags ?? []),
    '-cp',
    spec.classpath,
    'org.apache.zookeeper.server.quorum.QuorumPeerMain',
    spec.configPath,
  ];
}

export function launchMember(spec: LaunchSpec): MemberProcess {
  const logFd = fs.openSync(spec.logPath, 'a');
  fs.writeSync(logFd, `\n=== keeper sandbox: launching at ${new Date().toISOString()} ===\n`);
  // setpriv execs java with PR_SET_PDEATHSIG=KILL: the kernel kills the JVM if the
  // launcher dies without running any handler (kill -9, OOM). pid stays the JVM's pid.
  const archive = planClassArchive(spec.java, spec.classpath);
  const java = [spec.java, ...javaArgs(spec, archive.args)];
  const [cmd, args] = fs.existsSync(SETPRIV) ? [SETPRIV, ['--pdeathsig', 'KILL', '--', ...java]] : [java[0]!, java.slice(1)];
  let child;
  try {
    // detached: own process group, so signals reach the JVM and nothing else of ours.
    child = spawn(cmd, args, { detached: true, stdio: ['ignore', logFd, logFd] });
  } finally {
    fs.closeSync(logFd);
  }
  // Without a listener a spawn failure (ENOENT) would be thrown from the event loop.
  child.on('error', () => {});
  const pid = child.pid;
  if (pid === undefined) {
    archive.afterExit();
    throw new Error(`could not launch ${cmd}`);
  }
  trackGroup(pid);
  // The JVM must not keep the launcher's event loop alive; the reaper covers exit.
  child.unref();
  let done = false;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      untrackGroup(pid);
      archive.afterExit();
      resolve(signal ? `signal ${signal}` : `code ${code}`);
    });
  });
  return { pid, exited, hasExited: () => done };
}

/** Signals the member's whole process group; a group already gone is not an error. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/**
 * Waits until every thread of `pid` is stopped (SIGSTOP is delivered asynchronously: kill() returns
 * once it is queued), so a member said to be paused is one that can answer nothing. Reads
 * /proc/<pid>/task/<tid>/stat (state T, or gone); 1 ms synchronous waits, at most `timeoutMs`. Where
 * /proc is absent it returns at once.
 */
export function waitUntilStopped(pid: number, timeoutMs = 2_000): void {
  const tasks = `/proc/${pid}/task`;
  if (!fs.existsSync(tasks)) return;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = threadsNotStopped(tasks);
    if (running.length === 0) return;
    if (Date.now() >= deadline)
      throw new Error(`sandbox: pid ${pid} not stopped ${timeoutMs} ms after SIGSTOP (threads ${running.slice(0, 5).join(', ')} still run)`);
    Atomics.wait(nap, 0, 0, 1);
  }
}

function threadsNotStopped(tasksDir: string): string[] {
  let tids: string[];
  try {
    tids = fs.readdirSync(tasksDir);
  } catch {
    return []; // the process is gone: nothing runs
  }
  return tids.filter((tid) => {
    try {
      const stat = fs.readFileSync(`${tasksDir}/${tid}/stat`, 'utf8');
      // "tid (comm) S ...": the state follows the last ')' (comm may hold spaces and parentheses).
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return !['T', 't', 'Z', 'X'].includes(state);
    } catch {
      return false; // the thread ended
    }
  });
}

/** SIGTERM (or SIGKILL), escalating to SIGKILL after graceMs. Resumes a paused JVM first. */
export async function terminate(proc: MemberProcess, signal: 'SIGTERM' | 'SIGKILL', graceMs = 5000): Promise<void> {
  if (proc.hasExited()) return;
  // A stopped process keeps SIGTERM pending until it is continued.
  signalGroup(proc.pid, 'SIGCONT');
  signalGroup(proc.pid, signal);
  let timer: NodeJS.Timeout | undefined;
  const escalate = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      signalGroup(proc.pid, 'SIGKILL');
      resolve();
    }, graceMs);
  });
  await Promise.race([proc.exited, escalate]);
  clearTimeout(timer);
  await proc.exited;
}
