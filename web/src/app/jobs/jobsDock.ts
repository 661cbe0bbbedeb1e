/**
 * Jobs this tab started and then hid (closed their dialog while they ran): the dock keeps showing
 * them, so long work never disappears from view until the operator dismisses its report.
 */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { createStore } from '../../lib/store';

const docked = createStore<readonly string[]>([]);

export function dockJob(id: string): void {
  if (!docked.get().includes(id)) docked.set([...docked.get(), id]);
}

export function undockJob(id: string): void {
  docked.set(docked.get().filter((j) => j !== id));
}

export function useDockedJobs(): readonly string[] {
  return useSyncExternalStore(docked.subscribe, docked.get);
}

/**
 * For a job's dialog: whatever closes it (Hide, Esc, the close button) while the job runs puts
 * the job in the dock.
 */
export function useDockOnClose(jobId: string, running: boolean): void {
  const latest = useRef(running);
  useEffect(() => {
    latest.current = running;
  }, [running]);
  useEffect(() => {
    undockJob(jobId);
    return () => {
      if (latest.current) dockJob(jobId);
    };
  }, [jobId]);
}
