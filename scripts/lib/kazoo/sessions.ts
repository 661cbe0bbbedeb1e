/**
 * Kazoo sessions held for as long as a test needs them: workers with ephemerals, watchers,
 * clients to freeze (SIGSTOP: connected but silent, the hung process) or kill (SIGKILL: the
 * connection drops, the session and its ephemerals stay until they expire). One Python process
 * holds every session of a call, so a test that needs to freeze one client alone holds it alone.
 */
import { killHard, readyLine, spawnKazoo } from './process.js';

export interface KazooClientPlan {
  hosts: string;
  /** Seconds, as kazoo takes it. */
  timeout: number;
  /** Ephemeral nodes the session creates (parents made), each holding `ephemeralData`. */
  ephemerals?: string[];
  ephemeralData?: string;
  /** Paths to set an exists watch on, as lock waiters and config readers do. */
  watch?: string[];
}

export interface HoldOptions {
  /** Read now and then so the sessions look busy, like real workers (default: idle, pings only). */
  busy?: boolean;
  readyWithinMs?: number;
}

export interface HeldSessions {
  /** Session ids in plan order, as ZooKeeper prints them (0x...). */
  ids: string[];
  /** SIGSTOP: the clients stay connected but fall silent. */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
  /** SIGKILL: the connections drop; the sessions and their ephemerals stay until they expire. */
  kill(): Promise<void>;
  /** Closes the sessions (their ephemerals go with them) and waits for the process to end. */
  release(): Promise<void>;
}

/** Resolves once every planned session is open (and its ephemerals and watches are set). */
export async function holdSessions(plans: KazooClientPlan[], { busy = false, readyWithinMs = 60_000 }: HoldOptions = {}): Promise<HeldSessions> {
  const { child, stderr } = spawnKazoo(['hold', JSON.stringify(plans), busy ? 'busy' : 'idle']);
  try {
    const ids = JSON.parse(await readyLine(child, 'ready ', { withinMs: readyWithinMs, stderr })) as string[];
    return {
      ids,
      freeze: () => void child.kill('SIGSTOP'),
      thaw: () => void child.kill('SIGCONT'),
      kill: () => killHard(child),
      release: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.stdin!.end();
        await exited;
      },
    };
  } catch (error) {
    await killHard(child);
    throw error;
  }
}
