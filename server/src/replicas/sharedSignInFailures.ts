/**
 * Sign-in failures counted across the replicas (docs/operating/replicas.md), so that N replicas behind a
 * load balancer allow about the guesses one allows, not N times as many:
 *   <root>/sign-in-failures/w<window start>/<key hash>   {failures}
 * one directory per aligned window of the limiter's length (a minute), the current and the
 * previous kept, older ones deleted by whichever replica starts a new window. The key (address,
 * name tried, or a known browser's device) is never stored: its HMAC with a key from the cluster
 * secret is. Each failure is a compare-and-set increment (two replicas counting at once lose no
 * failure) whose result, the total, becomes the failing replica's own count (signInLimiter.ts).
 *
 * Bounded: at most MAX_SHARED_FAILURE_KEYS keys per window (a key past it is counted by the replica
 * alone), and a count waits at most COUNT_WAIT_MS for the home ensemble (then the replica's own
 * count holds: never no limit).
 */
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { FailureShare } from '../auth/signInLimiter.js';
import type { ReplicaStore } from './replicaStore.js';

export const MAX_SHARED_FAILURE_KEYS = 10_000;
/** How long a failed sign-in waits for the replicas' count before answering with this replica's own. */
export const COUNT_WAIT_MS = 2_000;
const WINDOWS_KEPT = 2;

const countSchema = z.object({ failures: z.number().int().min(0) });

export class SharedSignInFailures implements FailureShare {
  private readonly hmacKey: Buffer;
  private readonly knownWindows = new Set<number>();
  private pruning: Promise<void> | null = null;

  constructor(
    private readonly store: ReplicaStore,
    secret: string,
    private readonly windowMs: number,
    private readonly log: Logger,
    private readonly maxKeys = MAX_SHARED_FAILURE_KEYS,
  ) {
    this.hmacKey = createHmac('sha256', secret).update('keeper-sign-in-failures').digest();
  }

  private get dir(): string {
    return this.store.path('sign-in-failures');
  }

  add(key: string, now: number): Promise<number | null> {
    const counted = this.count(key, now).catch((error: unknown) => {
      this.log.debug({ err: error }, 'sign-in failure not counted in the home ensemble: this replica counts it alone');
      return null;
    });
    return Promise.race([counted, sleep(COUNT_WAIT_MS, null, { ref: false })]);
  }

  private async count(key: string, now: number): Promise<number | null> {
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    const window = `${this.dir}/w${start}`;
    if (!this.knownWindows.has(start)) {
      await this.store.ensureRoot();
      await this.store.createIfMissing(this.dir, {});
      await this.store.createIfMissing(window, {});
      this.knownWindows.add(start);
      this.pruning ??= this.prune(start).finally(() => (this.pruning = null));
    }
    const path = `${window}/${createHmac('sha256', this.hmacKey).update(key).digest('hex').slice(0, 32)}`;
    if ((await this.store.stat(path)) === null) {
      const stat = await this.store.stat(window);
      if (stat && stat.numChildren >= this.maxKeys) return null;
    }
    const stored = await this.store.update(path, countSchema, (current) => ({ failures: (current?.failures ?? 0) + 1 }));
    return stored.value.failures;
  }

  /** Windows before the previous one go, their keys first (whoever gets there first; the others find nothing). */
  private async prune(current: number): Promise<void> {
    try {
      for (const name of await this.store.children(this.dir)) {
        const start = /^w(\d+)$/.exec(name) ? Number(name.slice(1)) : null;
        if (start === null || start > current - WINDOWS_KEPT * this.windowMs) continue;
        const window = `${this.dir}/${name}`;
        for (const child of await this.store.children(window)) await this.store.remove(`${window}/${child}`, -1);
        await this.store.remove(window, -1).catch(() => false);
        this.knownWindows.delete(start);
      }
    } catch (error) {
      this.log.warn({ err: error }, 'sign-in failures: old windows not pruned this time');
    }
  }
}
