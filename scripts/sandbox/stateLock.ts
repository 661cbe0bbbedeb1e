/**
 * One launcher per state directory. The owner's pid is kept in <stateDir>/sandbox.pid so
 * that a second launcher fails clearly, and so that JVMs orphaned by a launcher that died
 * (without setpriv on this system) are found and killed instead of holding the ports.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findProcesses, isAlive } from './procfs.js';

export function ownerFile(stateDir: string): string {
  return path.join(stateDir, 'sandbox.pid');
}

export function readOwner(stateDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(ownerFile(stateDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** JVMs whose command line names a config in this state dir. */
export function sandboxJvms(stateDir: string): number[] {
  const marker = `${path.resolve(stateDir)}${path.sep}member-`;
  return findProcesses((argv) => argv.some((a) => a.includes('QuorumPeerMain')) && argv.some((a) => a.startsWith(marker)));
}

export async function acquire(stateDir: string, log: (line: string) => void): Promise<void> {
  const owner = readOwner(stateDir);
  if (owner !== null && owner !== process.pid && isAlive(owner)) {
    throw new Error(
      `state dir ${stateDir} is in use by a running sandbox (pid ${owner}); ` +
        `stop it (npm run sandbox -- stop --state-dir ${stateDir}) or use another --state-dir`,
    );
  }
  const orphans = sandboxJvms(stateDir);
  for (const pid of orphans) {
    log(`killing orphaned sandbox JVM pid ${pid} left by a previous launcher`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  // Their ports are only released once they are really gone.
  const deadline = Date.now() + 5000;
  while (orphans.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  fs.writeFileSync(ownerFile(stateDir), `${process.pid}\n`);
}

export function release(stateDir: string): void {
  if (readOwner(stateDir) === process.pid) fs.rmSync(ownerFile(stateDir), { force: true });
}
