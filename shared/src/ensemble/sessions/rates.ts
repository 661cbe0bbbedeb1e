/**
 * Request rates from successive readings of monotonic counters: a session's `recved`/`sent` in
 * `cons`, a member's `zk_packets_received`/`zk_packets_sent` in `mntr`. Pure: the collector and
 * the poller keep the previous reading and pass it in.
 *
 * A rate is null rather than wrong:
 *  - on the first reading (nothing to subtract);
 *  - when the session moved to another member: cons counts per CONNECTION, so the new
 *    member's count starts again from zero;
 *  - when a counter went backwards (the member restarted, `srst` reset it, or the session
 *    reconnected to the same member);
 *  - when the readings are too close together for a meaningful figure.
 */

/** One reading of a pair of counters, stamped with Keeper's clock. */
export interface CounterReading {
  /** Where the counters live: a member's address (a session's counts restart on another member). */
  member: string;
  received: number | null;
  sent: number | null;
  /** Keeper's clock at the reading (epoch ms). */
  at: number;
}

export interface Rates {
  /** Requests (packets) received per second: what the client sends. */
  receivedPerSecond: number | null;
  /** Answers and notifications sent per second. */
  sentPerSecond: number | null;
}

/** Below this interval a difference of counters says more about timing jitter than about load (polls 1 s apart may land 990 ms apart). */
export const MIN_RATE_INTERVAL_MS = 500;

export const NO_RATES: Rates = { receivedPerSecond: null, sentPerSecond: null };

function perSecond(before: number | null, after: number | null, elapsedMs: number): number | null {
  if (before === null || after === null || after < before) return null;
  return ((after - before) * 1000) / elapsedMs;
}

export function ratesBetween(previous: CounterReading | undefined, current: CounterReading): Rates {
  if (!previous || previous.member !== current.member) return NO_RATES;
  const elapsedMs = current.at - previous.at;
  if (elapsedMs < MIN_RATE_INTERVAL_MS) return NO_RATES;
  return {
    receivedPerSecond: perSecond(previous.received, current.received, elapsedMs),
    sentPerSecond: perSecond(previous.sent, current.sent, elapsedMs),
  };
}

/** Rounded for the wire: tenths below 10/s (an idle session's pings are ~0.1/s), whole numbers above. */
export function roundRate(rate: number | null): number | null {
  if (rate === null) return null;
  return rate < 10 ? Math.round(rate * 10) / 10 : Math.round(rate);
}

/** When a `cons` reading happened: between the question and its answer, so the middle. */
export function readingTime(askedAt: number, answeredAt: number): number {
  return Math.round((askedAt + answeredAt) / 2);
}
