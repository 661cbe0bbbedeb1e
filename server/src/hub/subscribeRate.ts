/**
 * Subscribe frames are rate-limited per socket and per person, by what they cost the server: each
 * subscribe answers with the topic's current state, and building that state afresh (a locks
 * list of 3 MB, a long health history) is the work a flood would multiply. A subscribe costs one
 * unit, plus one per SERIALIZED_BYTES_PER_UNIT of state serialized afresh for it; state already
 * serialized for another browser (the same event, shared) costs nothing more. Buckets refill at
 * `perSecond` units a second and hold BURST_SECONDS of them, so a page re-subscribing its views
 * after a reconnect passes at once, and a flood is refused after the burst with the time to wait.
 * The charge lands after the work, so at most one subscribe overdraws a bucket.
 */

/** State bytes serialized afresh that cost one more unit. */
export const SERIALIZED_BYTES_PER_UNIT = 16 * 1024;
/** A bucket holds this many seconds of its rate. */
export const BURST_SECONDS = 5;

export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = this.capacity;
    this.at = now();
  }

  get capacity(): number {
    return this.perSecond * BURST_SECONDS;
  }

  /** Milliseconds until one unit is available; 0 when one is. */
  waitMs(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }

  charge(units: number): void {
    this.refill();
    this.tokens -= units;
  }

  /** True when the bucket is back to full: nothing to remember about its owner. */
  get full(): boolean {
    this.refill();
    return this.tokens >= this.capacity;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
  }
}

/** What a subscribe costs, once its state is built: one unit plus the fresh bytes' share. */
export function subscribeUnits(freshBytes: number): number {
  return 1 + freshBytes / SERIALIZED_BYTES_PER_UNIT;
}

/** One bucket per person, created on demand and forgotten once full again. */
export class PersonBuckets {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  of(person: string): TokenBucket {
    let bucket = this.buckets.get(person);
    if (!bucket) this.buckets.set(person, (bucket = new TokenBucket(this.perSecond, this.now)));
    return bucket;
  }

  /** Drops buckets that are full again (called from the hub's periodic sweep), so the map stays as small as the active persons. */
  sweep(): void {
    for (const [person, bucket] of this.buckets) if (bucket.full) this.buckets.delete(person);
  }

  get size(): number {
    return this.buckets.size;
  }
}
