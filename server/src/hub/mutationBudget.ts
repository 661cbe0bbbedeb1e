/**
 * The API's rate limit, applied to mutations sent over the socket: without it a socket would be
 * a way around the HTTP limiter, and a viewer could flood the audit trail (every refusal is
 * written and flushed to disk). Token buckets per remote address, so opening more sockets buys
 * nothing; idle buckets are forgotten.
 */
export interface BudgetSettings {
  /** Mutations allowed per window and address (the bucket's size). */
  limit: number;
  windowMs: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_BUCKETS = 10_000;

export class MutationBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settings: BudgetSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one mutation's worth from `key`'s bucket; false when it is empty. */
  take(key: string): boolean {
    const { limit, windowMs } = this.settings;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: limit, at: now };
    bucket.tokens = Math.min(limit, bucket.tokens + ((now - bucket.at) * limit) / windowMs);
    bucket.at = now;
    // Re-inserted so the Map's order is least recently used first, for pruning.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_BUCKETS) this.prune(now);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      // A bucket refilled to full holds nothing worth remembering.
      const full = bucket.tokens + ((now - bucket.at) * this.settings.limit) / this.settings.windowMs >= this.settings.limit;
      if (full || this.buckets.size > MAX_BUCKETS) this.buckets.delete(key);
      if (this.buckets.size <= MAX_BUCKETS / 2) return;
    }
  }
}
