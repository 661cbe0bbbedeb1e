/**
 * Expensive gatherings (cons + dump on every member, wchp) shared by everyone who asks:
 *  - one gathering at a time: concurrent callers wait for the same one;
 *  - at most one start per `minIntervalMs` per ensemble, however many ask (a refresh
 *    asked sooner gets the cached result and how long until the next one is allowed);
 *  - never per browser: the callers decide when to ask (sessionsCollector.ts: when the last
 *    gathering is older than its cadence);
 *  - with the replicas' sharedPolling, a replica that does not poll relays its gatherings to the
 *    one that does (`relayTo`) and adopts what that one publishes (`adopt`): the same rate limit
 *    bounds how often it asks.
 */
export interface Gathered<T> {
  value: T;
  /** When the gathering that produced it started (epoch ms). */
  at: number;
}

export class RateLimitedGather<T> {
  private inFlight: Promise<Gathered<T>> | null = null;
  /** Where gatherings come from instead of `gather` (another replica); null: gathered here. */
  private relay: (() => Promise<Gathered<T>>) | null = null;
  private readonly listeners = new Set<(gathered: Gathered<T>) => void>();
  private last: Gathered<T> | null = null;
  private lastStartedAt: number | null = null;
  /** The last gathering started failed (a retry waits out the rate like any other). */
  private lastFailed = false;
  /** The last start asked another replica: its window spared that replica, not the members. */
  private lastStartRelayed = false;
  /**
   * Whether the last result stays held once its callers have it (by default, always: the
   * sessions and watches views answer from it). A holder that keeps its own part of each result
   * says when it needs the whole one too (the Locks gatherer: only while it publishes it for
   * other replicas), so a large result is not kept twice.
   */
  holdWhile: () => boolean = () => true;
  /** Gatherings started so far (tests and benches read it). */
  gatherings = 0;

  constructor(
    private readonly gather: () => Promise<T>,
    readonly minIntervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get cached(): Gathered<T> | null {
    return this.last;
  }

  /** Gatherings start by asking `relay` (another replica) rather than the members; null: here again. */
  relayTo(relay: (() => Promise<Gathered<T>>) | null): void {
    // Gathering here again: this replica now polls for the others. A window its last relay opened
    // cost the members nothing, and holding it would refuse their first asks as "gathered moments
    // ago" (a follower holds no whole Locks gathering), so they would ask the members themselves.
    if (relay === null && this.relay !== null && this.lastStartRelayed) {
      this.lastStartedAt = null;
      this.lastFailed = false;
    }
    this.relay = relay;
  }

  /** Whether gatherings are asked of another replica now. */
  get relayed(): boolean {
    return this.relay !== null;
  }

  /** A gathering made elsewhere: kept when it is newer than the one held (its `at` is when it started). */
  adopt(gathered: Gathered<T>): void {
    if (!this.holdWhile()) this.last = null;
    else if (!this.last || gathered.at > this.last.at) this.last = gathered;
  }

  /** Whether anyone is told of each gathering made here (a replica publishing them). */
  get told(): boolean {
    return this.listeners.size > 0;
  }

  /** Called after each gathering made here (not relayed, not adopted); returns unsubscribe. */
  onGathered(listener: (gathered: Gathered<T>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Milliseconds until a new gathering may start (0 = now). */
  nextAllowedInMs(): number {
    if (this.lastStartedAt === null) return 0;
    return Math.max(0, this.lastStartedAt + this.minIntervalMs - this.now());
  }

  /** Nothing is held and the rate allows no new gathering yet: get() refuses then, unless one is in flight (a holder may keep what it has instead). */
  get waitingOutRate(): boolean {
    return !this.last && this.nextAllowedInMs() > 0;
  }

  /** The cached result, after a new gathering when there is none or `refresh` is asked and allowed. */
  get(refresh: boolean): Promise<Gathered<T>> {
    if (this.inFlight) return this.inFlight;
    if (this.last && !(refresh && this.nextAllowedInMs() === 0)) return Promise.resolve(this.last);
    if (this.waitingOutRate) {
      // Do not ask again faster than the rate allows, whether the last one failed or was not held.
      const next = `next try in ${Math.ceil(this.nextAllowedInMs() / 1000)} s`;
      return Promise.reject(new Error(this.lastFailed ? `gathering failed; ${next}` : `gathered moments ago and not held; ${next}`));
    }
    return this.start();
  }

  private start(): Promise<Gathered<T>> {
    const at = this.now();
    this.lastStartedAt = at;
    this.lastStartRelayed = this.relay !== null;
    this.gatherings++;
    const run = (async () => {
      try {
        const relay = this.relay;
        if (relay) {
          const relayed = await relay();
          this.lastFailed = false;
          this.adopt(relayed);
          // A newer one held wins (a gathering's age is its own time).
          return this.last ?? relayed;
        }
        const value = await this.gather();
        this.lastFailed = false;
        const gathered = { value, at };
        this.last = gathered;
        for (const listener of this.listeners) listener(gathered);
        if (!this.holdWhile()) this.last = null;
        return gathered;
      } catch (error) {
        this.lastFailed = true;
        throw error;
      } finally {
        this.inFlight = null;
      }
    })();
    this.inFlight = run;
    return run;
  }
}
