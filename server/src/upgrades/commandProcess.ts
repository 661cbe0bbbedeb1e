/**
 * The restart command's process, as the upgrade's state records it: the command runs in its own
 * process group (detached), so it outlives a Keeper killed while it runs, and the next Keeper
 * must know it is still at work before asking a person to restart the member. A pid alone may
 * be reused, so the record holds the process's start time and the boot's id (Linux /proc); where
 * /proc is not there, the pid alone is trusted.
 */
import fs from 'node:fs';
import type { CommandProcess } from '@keeper/shared';

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** /proc/<pid>/stat after the command name: [state, ppid, pgrp, ...]; the start time is the 20th of them (field 22). */
function statFields(pid: number): string[] | null {
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (stat === null) return null;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

const bootId = (): string | null => readOrNull('/proc/sys/kernel/random/boot_id')?.trim() ?? null;

export function describeProcess(pid: number): CommandProcess {
  const start = statFields(pid)?.[19];
  return { pid, startTicks: start !== undefined && /^\d+$/.test(start) ? Number(start) : null, bootId: bootId() };
}

/** The same process, still running: not gone, not a zombie left unreaped, not another process with its pid. */
export function isStillRunning(recorded: CommandProcess): boolean {
  try {
    process.kill(recorded.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = statFields(recorded.pid);
  if (fields === null) return true;
  if (fields[0] === 'Z' || fields[0] === 'X') return false;
  if (recorded.bootId !== null && bootId() !== null && recorded.bootId !== bootId()) return false;
  return recorded.startTicks === null || Number(fields[19]) === recorded.startTicks;
}

/** Kills the command's whole process group if it is still the recorded process; true when it did. */
export function killProcessGroup(recorded: CommandProcess): boolean {
  if (!isStillRunning(recorded)) return false;
  try {
    process.kill(-recorded.pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}
