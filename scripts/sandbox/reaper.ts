/**
 * Last line of defence against JVMs outliving their launcher. Every member is a process
 * group leader (spawned detached); this module SIGKILLs the groups still registered when
 * the launcher exits, synchronously, since 'exit' listeners cannot await.
 * (A launcher killed with SIGKILL is covered by setpriv --pdeathsig, see memberProcess.ts.)
 */
const groups = new Set<number>();
let installed = false;

function killAllSync(): void {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGCONT');
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  groups.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  // Someone else (scripts/start.ts) handles this signal and closes in order (server,
  // then sandbox); the 'exit' hook still backs them up.
  if (process.listenerCount(signal) > 1) return;
  killAllSync();
  // Restore the default action and re-raise, so the launcher dies of the signal as it
  // would have without us.
  process.removeListener(signal, onSignal);
  process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAllSync);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);
}

export function trackGroup(pgid: number): void {
  install();
  groups.add(pgid);
}

export function untrackGroup(pgid: number): void {
  groups.delete(pgid);
}
