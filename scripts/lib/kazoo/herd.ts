/**
 * Seed 000's request herd: many kazoo sessions, each looping getChildren on one node as fast as
 * the ensemble answers, with no back-off (workers polling a task list). One Python process, one
 * thread and one session per worker.
 */
import { killHard, readyLine, spawnKazoo } from './process.js';

export interface RequestHerdPlan {
  hosts: string;
  /** The node every worker lists (give it thousands of children). */
  path: string;
  workers: number;
  /** Seconds, as kazoo takes it. */
  sessionTimeoutS?: number;
  readyWithinMs?: number;
  /** Seconds each worker waits between calls (workers a loaded ensemble has slowed); none by default. */
  pauseS?: number;
  /** A node each worker keeps a data watch on (exists with a watch, re-armed when it fires): a queue head. */
  watchPath?: string;
}

export interface RunningRequestHerd {
  /** The workers' session ids (0x...). */
  ids: string[];
  /** Stops the calls but keeps the sessions (a herd that eases off); resume() starts them again. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Ends the loop and the sessions; resolves with the getChildren calls answered in all. */
  stop(): Promise<number>;
}

export async function startRequestHerd({
  hosts,
  path,
  workers,
  sessionTimeoutS = 30,
  readyWithinMs = 60_000,
  pauseS,
  watchPath,
}: RequestHerdPlan): Promise<RunningRequestHerd> {
  const config = { hosts, path, workers, sessionTimeoutS, ...(pauseS !== undefined ? { pauseS } : {}), ...(watchPath !== undefined ? { watchPath } : {}) };
  const { child, stderr } = spawnKazoo(['herd', JSON.stringify(config)]);
  const command = async (word: 'pause' | 'resume') => {
    const answered = readyLine(child, word === 'pause' ? 'paused' : 'resumed', { withinMs: 10_000, stderr });
    child.stdin!.write(`${word}\n`);
    await answered;
  };
  try {
    const ids = JSON.parse(await readyLine(child, 'ready ', { withinMs: readyWithinMs, stderr })) as string[];
    return {
      ids,
      pause: () => command('pause'),
      resume: () => command('resume'),
      stop: async () => {
        // Listening before stdin closes: "done" comes only after.
        const done = readyLine(child, 'done ', { withinMs: 30_000, stderr });
        child.stdin!.end();
        const total = await done;
        await new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
        return Number(total);
      },
    };
  } catch (error) {
    await killHard(child);
    throw error;
  }
}
