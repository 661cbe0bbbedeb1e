/**
 * Seed 000's request herd: many kazoo sessions, each looping getChildren on one node as fast as
 * the ensemble answers, with no back-off (workers polling a task list). One Python process, one
 * thread and one session per worker.
 */
import { killHard, readyLine, spawnKazoo } from './process.js';

export interface HerdPlan {
  hosts: string;
  /** The node every worker lists (give it thousands of children). */
  path: string;
  workers: number;
  /** Seconds, as kazoo takes it. */
  sessionTimeoutS?: number;
  readyWithinMs?: number;
}

export interface RunningHerd {
  /** The workers' session ids (0x...). */
  ids: string[];
  /** Ends the loop and the sessions; resolves with the getChildren calls answered in all. */
  stop(): Promise<number>;
}

export async function startHerd({ hosts, path, workers, sessionTimeoutS = 30, readyWithinMs = 60_000 }: HerdPlan): Promise<RunningHerd> {
  const { child, stderr } = spawnKazoo(['herd', JSON.stringify({ hosts, path, workers, sessionTimeoutS })]);
  try {
    const ids = JSON.parse(await readyLine(child, 'ready ', { withinMs: readyWithinMs, stderr })) as string[];
    return {
      ids,
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
