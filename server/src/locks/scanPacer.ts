/**
 * Paces the lock scan so that other clients do not notice it (issue 12: the ensemble's average
 * latency during a scan stays within 1.2x of idle). It is a "scavenger" in the sense of LEDBAT
 * (RFC 6817), the congestion control for background transfers: it measures its own round
 * trips, compares them with the idle ones, and backs off as soon as they grow, because a
 * member that answers the scan later is also answering everybody else later.
 *
 * Two controls, both on the time the scan keeps the member busy:
 *  - A duty cycle: the scan may have requests outstanding at most `dutyCycle` of the wall
 *    time (overlapping requests count once: it is a share of one connection). A credit meter
 *    does the bookkeeping: it drains while a request is out and refills, at `dutyCycle` per
 *    millisecond, while none is; a request may go when the credit is not negative. A big
 *    answer (a directory of thousands of children) keeps the member busy longer and so earns
 *    a longer pause, with no special case.
 *  - AIMD on that duty cycle, from the scan's own latency: every `windowSamples` clean samples
 *    (sent while nothing else of the scan's was out, small answers only: their time is the
 *    member's queue, not their size), if the median exceeds `slowdownThreshold` x the idle
 *    baseline the duty cycle halves and concurrency drops to 1; otherwise the duty cycle grows
 *    by a step, and at its ceiling concurrency grows by one up to the cap. A failed request
 *    (a deadline, a lost connection) halves it too.
 *
 * The baseline is the median of `calibrationSamples` clean samples sent one at a time at a
 * low duty cycle (as far as the scan goes, the member is idle), compared with the
 * median of each window: the same statistic, so noise alone does not read as a slowdown. It is
 * measured at the start and again every `recalibrateMs` (as BBR re-measures its minimum round
 * trip): the ensemble's idle latency drifts with other clients' load, and a stale baseline
 * would either crawl for nothing or press on while others suffer. And when the scan is at its
 * lowest duty cycle and latency is still high, the slowness is not the scan's doing: that
 * window becomes the baseline at once, so the scan does not crawl until the next calibration.
 *
 * Measured (bench/locks.ts, loopback): a member answers a stream of requests faster than
 * requests after pauses, so on an idle ensemble the duty-cycle ceiling is what bounds the
 * scan; the latency feedback matters when the member is loaded by others.
 */

export interface PacingOptions {
  /** The largest share of wall time the scan may keep a request outstanding; (0, 1], default 0.5. */
  maxDutyCycle?: number;
  /** The smallest; the scan always makes some progress. (0, maxDutyCycle], default 0.02. */
  minDutyCycle?: number;
  /** Latency above baseline x this means the ensemble is slowing down; default 1.1. */
  slowdownThreshold?: number;
  /** Clean samples taken one at a time to learn the idle latency; default 8. */
  calibrationSamples?: number;
  /**
   * The duty cycle while calibrating; [minDutyCycle, maxDutyCycle], default 0.02: gaps of about
   * 50 answers' time, as an idle client's requests come (a probe every 20 ms), because a member
   * answers a request after a pause more slowly than one in a busy stream, and the baseline must
   * be the idle kind.
   */
  calibrationDutyCycle?: number;
  /** The idle latency is measured again this often, ms; default 10,000. */
  recalibrateMs?: number;
  /** Clean samples per AIMD decision; default 16. */
  windowSamples?: number;
  /** Additive increase of the duty cycle per good window; default 0.05. */
  increaseStep?: number;
  /** Answers with more children than this are not latency samples; default 64. */
  smallAnswerChildren?: number;
  /** The most credit (ms) idle time can bank: how long a burst may last; default 5. */
  burstMs?: number;
}

const DEFAULTS: Required<PacingOptions> = {
  maxDutyCycle: 0.5,
  minDutyCycle: 0.02,
  slowdownThreshold: 1.1,
  calibrationSamples: 8,
  calibrationDutyCycle: 0.02,
  recalibrateMs: 10_000,
  windowSamples: 16,
  increaseStep: 0.05,
  smallAnswerChildren: 64,
  burstMs: 5,
};

const CREDIT_EPSILON_MS = 1e-6;
/** Where the scan starts after its first calibration (then AIMD takes over). */
const START_DUTY_CYCLE = 0.1;

/** What a send looks like to the pacer: remember it and hand it back with the answer. */
export interface SendTicket {
  sentAt: number;
  /** Nothing else of the scan's was outstanding: its latency is the member's, not our own queue. */
  solo: boolean;
}

export interface PacerState {
  dutyCycle: number;
  concurrency: number;
  baselineMs: number | null;
  /** Median latency of the last full window, ms. */
  recentMs: number | null;
  /** Times the pacer slowed down (a slow window or a failed request). */
  slowdowns: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function sortedCopy(xs: readonly number[]): number[] {
  return [...xs].sort((a, b) => a - b);
}

export class ScanPacer {
  private readonly o: Required<PacingOptions>;
  private readonly calibrationDuty: number;
  private duty: number;
  private concurrencyNow = 1;
  private baseline: number | null = null;
  private recent: number | null = null;
  private slowdownCount = 0;
  private credit = 0;
  private lastAt: number;
  private outstanding = 0;
  /** Samples of a calibration in progress; null when none is. */
  private calibration: number[] | null = [];
  private calibratedAt = 0;
  /** The duty cycle to return to after a re-calibration. */
  private resumeDuty: number;
  private resumeConcurrency = 1;
  private window: number[] = [];

  constructor(
    /** Never more requests outstanding than this. */
    private readonly cap: number,
    options: PacingOptions = {},
    now: number = performance.now(),
  ) {
    const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
    this.o = { ...DEFAULTS, ...defined };
    const { maxDutyCycle, minDutyCycle } = this.o;
    if (!(maxDutyCycle > 0 && maxDutyCycle <= 1)) throw new RangeError(`maxDutyCycle must be in (0, 1], not ${maxDutyCycle}`);
    if (!(minDutyCycle > 0 && minDutyCycle <= maxDutyCycle)) throw new RangeError(`minDutyCycle must be in (0, maxDutyCycle], not ${minDutyCycle}`);
    if (!(cap >= 1)) throw new RangeError(`the outstanding-request cap must be at least 1, not ${cap}`);
    // Never outside the bounds, whatever was asked: a scan limited to 5 % is never sent at 10 %.
    this.calibrationDuty = Math.min(maxDutyCycle, Math.max(minDutyCycle, this.o.calibrationDutyCycle));
    this.duty = this.calibrationDuty;
    this.resumeDuty = Math.min(maxDutyCycle, Math.max(minDutyCycle, START_DUTY_CYCLE));
    this.lastAt = now;
  }

  get state(): PacerState {
    return { dutyCycle: this.duty, concurrency: this.concurrencyNow, baselineMs: this.baseline, recentMs: this.recent, slowdowns: this.slowdownCount };
  }

  /** How many requests may be outstanding now (1 while calibrating or after a slowdown; never above the cap). */
  get concurrency(): number {
    return this.concurrencyNow;
  }

  /**
   * 0: send now. A positive number: wait that long (ms) first. Infinity: wait for an
   * outstanding answer (the credit cannot refill while a request is out).
   */
  waitMs(now: number): number {
    this.account(now);
    if (this.outstanding >= this.concurrencyNow) return Number.POSITIVE_INFINITY;
    // Not exactly 0: rounding must not leave a wait of 1e-17 ms that never ends.
    if (this.credit >= -CREDIT_EPSILON_MS) return 0;
    if (this.outstanding > 0) return Number.POSITIVE_INFINITY;
    return -this.credit / this.duty;
  }

  onSend(now: number): SendTicket {
    this.account(now);
    const ticket = { sentAt: now, solo: this.outstanding === 0 };
    this.outstanding++;
    return ticket;
  }

  /** An answer came back with `children` names. */
  onAnswer(ticket: SendTicket, now: number, children: number): void {
    this.account(now);
    this.outstanding--;
    if (!ticket.solo || children > this.o.smallAnswerChildren) return;
    this.sample(now - ticket.sentAt, now);
  }

  /** The request failed (other than "no such node"): the ensemble may be struggling, so halve at once. */
  onFailure(now: number): void {
    this.account(now);
    this.outstanding--;
    this.slowDown();
  }

  /** The request was abandoned without an answer (the scan stopped). */
  onAbandon(now: number): void {
    this.account(now);
    this.outstanding--;
  }

  /** Advances the credit meter to `now`: drains while busy, refills (capped) while idle. */
  private account(now: number): void {
    const dt = Math.max(0, now - this.lastAt);
    this.lastAt = now;
    if (this.outstanding > 0) this.credit -= dt * (1 - this.duty);
    else this.credit = Math.min(this.o.burstMs, this.credit + dt * this.duty);
  }

  private sample(ms: number, now: number): void {
    if (this.calibration !== null) {
      this.calibration.push(ms);
      if (this.calibration.length < this.o.calibrationSamples) return;
      this.baseline = percentile(sortedCopy(this.calibration), 0.5);
      this.calibration = null;
      this.calibratedAt = now;
      this.duty = this.resumeDuty;
      this.concurrencyNow = this.resumeConcurrency;
      return;
    }
    this.window.push(ms);
    if (this.window.length < this.o.windowSamples) return;
    const median = percentile(sortedCopy(this.window), 0.5);
    this.window = [];
    this.recent = median;
    if (median > this.o.slowdownThreshold * this.baseline!) {
      // At its floor the scan's share is too small to be the cause: this is the ensemble's idle now.
      if (this.duty <= this.o.minDutyCycle) this.baseline = median;
      else this.slowDown();
    } else {
      const ceiling = this.o.maxDutyCycle;
      if (this.duty >= ceiling) this.concurrencyNow = Math.min(this.cap, this.concurrencyNow + 1);
      this.duty = Math.min(ceiling, this.duty + this.o.increaseStep);
    }
    if (now - this.calibratedAt >= this.o.recalibrateMs) this.recalibrate();
  }

  /** Back to one request at a time at the calibration duty cycle for a few samples, then resume where it was. */
  private recalibrate(): void {
    this.resumeDuty = this.duty;
    this.resumeConcurrency = this.concurrencyNow;
    this.calibration = [];
    this.duty = Math.min(this.duty, this.calibrationDuty);
    this.concurrencyNow = 1;
  }

  private slowDown(): void {
    this.slowdownCount++;
    this.window = [];
    // During a calibration the duty cycle is already low: lower the one it resumes at.
    if (this.calibration !== null) {
      this.resumeDuty = Math.max(this.o.minDutyCycle, this.resumeDuty / 2);
      this.resumeConcurrency = 1;
      return;
    }
    this.duty = Math.max(this.o.minDutyCycle, this.duty / 2);
    this.concurrencyNow = 1;
  }
}
