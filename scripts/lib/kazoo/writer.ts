/**
 * A real kazoo client writing `{"counter": N}` to one znode every `intervalMs`, and recording each
 * ACKNOWLEDGED write with the time the ack arrived. Fault tests use it as "the truth": which
 * values exist, and from when, whatever the console shows.
 */
import type { ChildProcess } from 'node:child_process';
import { killHard, readyLine, spawnKazoo } from './process.js';

export interface AckedWrite {
  value: number;
  /** Epoch ms when kazoo had the ack (this machine's clock, like the console's). */
  at: number;
}

export class KazooWriter {
  readonly acks: AckedWrite[] = [];
  private readonly child: ChildProcess;
  private readonly ready: Promise<string>;

  constructor(hosts: string, path: string, { intervalMs = 500, sessionTimeoutMs = 10_000 } = {}) {
    const config = { hosts, path, intervalS: intervalMs / 1000, sessionTimeoutS: sessionTimeoutMs / 1000 };
    const { child, stderr } = spawnKazoo(['write', JSON.stringify(config)]);
    this.child = child;
    this.ready = readyLine(child, 'ready', {
      withinMs: 60_000,
      stderr,
      onLine: (line) => {
        const m = /^ack (\d+) (\d+)$/.exec(line);
        if (m) this.acks.push({ value: Number(m[1]), at: Number(m[2]) });
      },
    });
    // A writer nobody waited for must not crash the run with an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** Resolves once the path exists and the first write is on its way. */
  async started(): Promise<void> {
    await this.ready;
  }

  /** The first acknowledged write after `value`, if any: the first truth a frozen view missed. */
  firstAckAfter(value: number): AckedWrite | undefined {
    return this.acks.find((a) => a.value > value);
  }

  stop(): Promise<void> {
    return killHard(this.child);
  }
}
