/**
 * Just enough of Linux's /proc to name who holds a port and to find sandbox JVMs left
 * behind by a launcher that was killed. Every function degrades to "unknown" elsewhere.
 */
import fs from 'node:fs';

function readOrNull(path: string): string | null {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function numericDirs(dir: string): number[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return [];
  }
}

export function commandLine(pid: number): string[] | null {
  const raw = readOrNull(`/proc/${pid}/cmdline`);
  if (raw === null || raw.length === 0) return null;
  return raw.replace(/\0$/, '').split('\0');
}

/** ", java" style suffix for messages; empty when the process cannot be inspected. */
export function describeProcess(pid: number): string {
  const argv = commandLine(pid);
  if (!argv || argv.length === 0) return '';
  const exe = argv[0]!.split('/').pop() ?? '';
  const main = argv.find((a) => a.includes('QuorumPeerMain') || a.endsWith('.ts') || a.endsWith('.js'));
  return `: ${exe}${main && main !== argv[0] ? ` ${main}` : ''}`;
}

/** Alive and not a zombie (pid 1 here may not reap, so a killed orphan can linger as Z). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: exists but is not ours, so it is alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (stat === null) return true;
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** Pids whose command line satisfies the predicate (never this process). */
export function findProcesses(match: (argv: string[]) => boolean): number[] {
  return numericDirs('/proc').filter((pid) => {
    if (pid === process.pid) return false;
    const argv = commandLine(pid);
    return argv !== null && match(argv) && isAlive(pid);
  });
}

function listeningInode(port: number): string | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = readOrNull(table)?.split('\n').slice(1) ?? [];
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      // f[1] = local "ADDR:PORT", f[3] = state (0A = LISTEN), f[9] = inode
      if (f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A' && f[9]) return f[9];
    }
  }
  return null;
}

/** The pid listening on a TCP port, or null when it cannot be found (not Linux, not ours). */
export function pidListeningOn(port: number): number | null {
  const inode = listeningInode(port);
  if (inode === null) return null;
  const target = `socket:[${inode}]`;
  for (const pid of numericDirs('/proc')) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid;
      } catch {
        // fd closed meanwhile
      }
    }
  }
  return null;
}
