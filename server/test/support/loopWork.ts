/**
 * How long Keeper's event loop is held at a stretch, in CPU time: a timer every `intervalMs`
 * reads the CPU clock of the main thread (the one running the event loop: /proc/self/task/<pid>,
 * in 10 ms clock ticks), so the CPU it spent between two ticks is what ran in between (the
 * requests and slices queued in one turn of the loop, and its own garbage collection pauses). An
 * admin's request that arrives meanwhile waits for that much of Keeper's own work. Unlike wall
 * time, it does not grow when a shared machine lends the process less of a core, and unlike the
 * process's CPU clock it leaves out the collector's helper threads: it measures the loop.
 */
import { readFileSync } from 'node:fs';

const MAIN_THREAD_STAT = `/proc/self/task/${process.pid}/stat`;
/** Linux's USER_HZ: /proc reports CPU time in hundredths of a second. */
const TICK_MS = 10;

/** The main thread's CPU time, ms (10 ms resolution); the whole process's where /proc is not there. */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(MAIN_THREAD_STAT, 'utf8');
    // Fields after the command (which may contain spaces) start after its closing parenthesis: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  }
}
export interface LoopWork {
  /** The most CPU between two ticks, and the 99th percentile, ms. */
  maxCpuMs: number;
  p99CpuMs: number;
  /** The longest wall time between two ticks (starvation included), ms. */
  maxWallMs: number;
  ticks: number;
}

export function watchLoopWork(intervalMs = 10): { stop(): LoopWork } {
  const cpu: number[] = [];
  let maxWallMs = 0;
  let lastCpu = mainThreadCpuMs();
  let lastWall = performance.now();
  const timer = setInterval(() => {
    const nowCpu = mainThreadCpuMs();
    const nowWall = performance.now();
    cpu.push(nowCpu - lastCpu);
    maxWallMs = Math.max(maxWallMs, nowWall - lastWall);
    lastCpu = nowCpu;
    lastWall = nowWall;
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      const sorted = [...cpu].sort((a, b) => a - b);
      return {
        maxCpuMs: sorted.at(-1) ?? 0,
        p99CpuMs: sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0,
        maxWallMs,
        ticks: sorted.length,
      };
    },
  };
}
