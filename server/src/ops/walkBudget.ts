/**
 * Subtree walks (count and export) are budgeted by what they cost ZooKeeper, not by how many
 * HTTP requests asked for them: one request can read 200,000 nodes.
 *
 *  - Slots: at most `maxConcurrentWalks` walks at once on the server, of which
 *    `adminReservedWalks` only admins may take, so viewers can never starve an admin.
 *  - One walk at a time per non-admin identity (`walksPerIdentity`); a second is refused.
 *  - Cost: every ZooKeeper read a walk makes is charged (a count costs its node count, an
 *    export about three times that: the listing, the data and the ACL of each node) to the
 *    identity's budget of `readsPerMinutePerIdentity` and to a budget that all non-admins share,
 *    `viewerReadsPerMinute`. Both are token buckets holding a minute's worth: a walk runs at full
 *    speed while its budget lasts, then is paced to the budget's rate; a walk asked for while its
 *    budget is spent is refused with the time to wait. Admins' walks are not charged.
 *
 * The walk code (subtree.ts, exportImport.ts) charges the ticket of the walk it runs in, which
 * `run` keeps in an AsyncLocalStorage, so the operations between the route and the walk need not
 * carry it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Identity } from '../auth/identity.js';
import type { LimitsConfig } from '../config/types.js';
import { OpError } from '../admin/opError.js';

export interface WalkLimits {
  maxConcurrentWalks: number;
  adminReservedWalks: number;
  walksPerIdentity: number;
  readsPerMinutePerIdentity: number;
  viewerReadsPerMinute: number;
}

export const DEFAULT_WALK_LIMITS: WalkLimits = Object.freeze({
  maxConcurrentWalks: 4,
  adminReservedWalks: 1,
  walksPerIdentity: 1,
  readsPerMinutePerIdentity: 30_000,
  viewerReadsPerMinute: 120_000,
});

/** A pacing wait longer than this means the budget is hopelessly spent: give up instead. */
const MAX_PACING_WAIT_MS = 30_000;

/** A walk refused for its budget: HTTP 429 with Retry-After. */
export class WalkRefused extends OpError {
  constructor(
    code: 'WALK_IN_PROGRESS' | 'WALKS_BUSY' | 'WALK_BUDGET_SPENT',
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, message);
  }
}

/** Reads per minute, holding at most one minute's worth; may go into debt, which is paid by waiting. */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    readonly perMinute: number,
    now: number,
  ) {
    this.tokens = perMinute;
    this.updatedAt = now;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.perMinute, this.tokens + ((now - this.updatedAt) * this.perMinute) / 60_000);
    this.updatedAt = now;
  }

  /** Milliseconds until the bucket is out of debt (0: it is not in debt). */
  debtMs(now: number): number {
    this.refill(now);
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 60_000) / this.perMinute);
  }

  /** Charges n; returns how long the caller should wait for the charge to be covered. */
  charge(n: number, now: number): number {
    this.refill(now);
    this.tokens -= n;
    return this.debtMs(now);
  }

  isFull(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.perMinute;
  }
}

/** The budget one walk runs under; the walk code charges it for every read. */
export class WalkTicket {
  /** ZooKeeper reads charged so far. */
  reads = 0;

  constructor(
    readonly identity: Identity,
    private readonly buckets: readonly TokenBucket[],
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly abandoned?: AbortSignal,
  ) {}

  /** Charges `reads`; resolves at once while the budget lasts, later when the walk must slow down. */
  async charge(reads: number): Promise<void> {
    // Nobody waits for the answer any more (the browser cancelled or went away): stop reading.
    if (this.abandoned?.aborted) throw new OpError('CANCELLED', 'the caller went away: walk stopped');
    this.reads += reads;
    if (this.buckets.length === 0) return;
    const now = this.now();
    let wait = 0;
    for (const bucket of this.buckets) wait = Math.max(wait, bucket.charge(reads, now));
    if (wait === 0) return;
    if (wait > MAX_PACING_WAIT_MS) {
      throw new WalkRefused(
        'WALK_BUDGET_SPENT',
        `this walk used up the subtree-read budget (${this.buckets[0]?.perMinute ?? 0} reads a minute); try again in ${Math.ceil(wait / 1000)} s`,
        Math.ceil(wait / 1000),
      );
    }
    await this.sleep(wait);
  }
}

const currentTicket = new AsyncLocalStorage<WalkTicket>();

/** The ticket of the walk being run, if it runs under a budget. */
export function currentWalkTicket(): WalkTicket | undefined {
  return currentTicket.getStore();
}

export interface WalkStats {
  running: number;
  runningForAdmins: number;
  refused: number;
}

export class WalkBudget {
  readonly limits: WalkLimits;
  private readonly running = new Map<string, number>();
  private active = 0;
  private activeAdmins = 0;
  private refused = 0;
  private readonly identityBuckets = new Map<string, TokenBucket>();
  private readonly viewersBucket: TokenBucket;

  constructor(
    limits: Partial<WalkLimits> = {},
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    this.limits = { ...DEFAULT_WALK_LIMITS, ...Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) };
    this.viewersBucket = new TokenBucket(this.limits.viewerReadsPerMinute, now());
  }

  get stats(): WalkStats {
    return { running: this.active, runningForAdmins: this.activeAdmins, refused: this.refused };
  }

  /**
   * Runs one walk under the caller's budget, or refuses it (WalkRefused) without starting.
   * `abandoned`: aborted when nobody waits for the answer; the walk stops at its next read.
   */
  async run<T>(identity: Identity, walk: () => Promise<T>, abandoned?: AbortSignal): Promise<T> {
    const ticket = this.admit(identity, abandoned);
    try {
      return await currentTicket.run(ticket, walk);
    } finally {
      this.release(identity);
    }
  }

  private admit(identity: Identity, abandoned?: AbortSignal): WalkTicket {
    const admin = identity.role === 'admin';
    const key = `${identity.role}\0${identity.name}`;
    const { maxConcurrentWalks, adminReservedWalks, walksPerIdentity } = this.limits;
    if (!admin && (this.running.get(key) ?? 0) >= walksPerIdentity) {
      throw this.refuse(
        'WALK_IN_PROGRESS',
        `${identity.name} already has ${walksPerIdentity === 1 ? 'a subtree count or export' : `${walksPerIdentity} subtree counts or exports`} running: wait for it to finish`,
        5,
      );
    }
    const open = admin ? maxConcurrentWalks : maxConcurrentWalks - adminReservedWalks;
    const taken = admin ? this.active : this.active - this.activeAdmins + Math.max(0, this.activeAdmins - adminReservedWalks);
    if (taken >= open) {
      throw this.refuse(
        'WALKS_BUSY',
        `${this.active} subtree counts or exports are running on this server, its limit${admin ? '' : ' for viewers'}: try again in a few seconds`,
        5,
      );
    }
    const now = this.now();
    let buckets: TokenBucket[] = [];
    if (!admin) {
      this.pruneBuckets(now);
      let mine = this.identityBuckets.get(key);
      if (!mine) {
        mine = new TokenBucket(this.limits.readsPerMinutePerIdentity, now);
        this.identityBuckets.set(key, mine);
      }
      const debt = Math.max(mine.debtMs(now), this.viewersBucket.debtMs(now));
      if (debt > 0) {
        const seconds = Math.ceil(debt / 1000);
        throw this.refuse(
          'WALK_BUDGET_SPENT',
          `subtree counts and exports by ${identity.name} have used their budget (${this.limits.readsPerMinutePerIdentity} ZooKeeper reads a minute, ${this.limits.viewerReadsPerMinute} for all viewers together): try again in ${seconds} s`,
          seconds,
        );
      }
      buckets = [mine, this.viewersBucket];
    }
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
    this.active++;
    if (admin) this.activeAdmins++;
    return new WalkTicket(identity, buckets, this.now, this.sleep, abandoned);
  }

  private release(identity: Identity): void {
    const key = `${identity.role}\0${identity.name}`;
    const mine = (this.running.get(key) ?? 1) - 1;
    if (mine <= 0) this.running.delete(key);
    else this.running.set(key, mine);
    this.active--;
    if (identity.role === 'admin') this.activeAdmins--;
  }

  private refuse(code: 'WALK_IN_PROGRESS' | 'WALKS_BUSY' | 'WALK_BUDGET_SPENT', message: string, retryAfterSeconds: number): WalkRefused {
    this.refused++;
    return new WalkRefused(code, message, retryAfterSeconds);
  }

  /** A bucket that has refilled completely carries no memory of its identity: drop it (the map stays as small as the active identities). */
  private pruneBuckets(now: number): void {
    for (const [key, bucket] of this.identityBuckets) if (bucket.isFull(now) && !this.running.has(key)) this.identityBuckets.delete(key);
  }
}

/** The walk limits from the config file's "limits" (unset fields keep their defaults). */
export function walkLimitsFromConfig(config: LimitsConfig | undefined): Partial<WalkLimits> {
  const c = config ?? {};
  return {
    ...(c.walks !== undefined ? { maxConcurrentWalks: c.walks } : {}),
    ...(c.walksReservedForAdmins !== undefined ? { adminReservedWalks: c.walksReservedForAdmins } : {}),
    ...(c.walksPerIdentity !== undefined ? { walksPerIdentity: c.walksPerIdentity } : {}),
    ...(c.walkReadsPerMinutePerIdentity !== undefined ? { readsPerMinutePerIdentity: c.walkReadsPerMinutePerIdentity } : {}),
    ...(c.walkReadsPerMinuteForViewers !== undefined ? { viewerReadsPerMinute: c.walkReadsPerMinuteForViewers } : {}),
  };
}
