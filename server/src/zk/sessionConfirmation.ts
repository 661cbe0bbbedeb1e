/**
 * Is the member the console's session is on still answering? The client library only notices a
 * hung member (SIGSTOPped, swapping, stuck in a GC pause) at 2/3 of the session timeout, 20 s for
 * a 30 s session, and until then the console would show frozen data as live. So, about every
 * second, one cheap read (`exists /`) goes to the member unless something else it sent already
 * proved it alive; when nothing has come back for `unconfirmedAfterMs`, the session is reported
 * unconfirmed, and the moment anything comes back, confirmed again.
 *
 * Cost: at most one request a second per ensemble while the console is otherwise idle, none while
 * other traffic answers, and never more than one probe outstanding (a hung member is not sent a
 * queue of them). The probe bypasses the gateway's request limiter on purpose: a full queue of
 * slow reads must not make a healthy member look hung, and the probe is its own lane of one.
 *
 * Keeper's own stalls are not the member's. When Keeper's process is frozen (SIGSTOP, a long GC,
 * a blocked event loop), answers wait unread in the socket while the clock runs; on waking, the
 * timer that makes this check runs before the socket is read, and "nothing heard for 10 s" would
 * blame the member for 100-250 ms until the next check. So each check measures how late it came
 * (the event loop's own lateness): after a stall, silence is counted from the moment Keeper
 * resumed, and a probe sent before the stall no longer holds the lane. The member is unconfirmed
 * only after it has had `unconfirmedAfterMs` of Keeper's running time to answer.
 */
import type zookeeper from 'node-zookeeper-client';

export interface ConfirmationOptions {
  /** How often a probe may be sent when nothing else was heard. */
  intervalMs: number;
  /** No answer for this long: unconfirmed. */
  unconfirmedAfterMs: number;
  /** A probe unanswered for this long is forgotten, so one more may go (its reply may never come). */
  probeDeadlineMs: number;
  /** Checks come about this often (the gateway's timer); one this much later than due means Keeper itself stalled. */
  checkEveryMs: number;
  stallSlackMs: number;
}

export const DEFAULT_CONFIRMATION: ConfirmationOptions = {
  intervalMs: 1_000,
  unconfirmedAfterMs: 2_000,
  probeDeadlineMs: 5_000,
  checkEveryMs: 250,
  stallSlackMs: 500,
};

export interface ProbeTarget {
  readonly client: zookeeper.Client;
  /** When the member last sent anything on this connection (0: never). */
  readonly lastAnswerAt: number;
}

export type Verdict = 'confirmed' | 'unconfirmed';

export class SessionConfirmation {
  private probeSentAt: number | null = null;
  private probeTarget: ProbeTarget | null = null;
  private lastCheckAt: number | null = null;
  /** Silence is counted from here at the earliest: when Keeper last resumed from a stall of its own. */
  private judgeFrom = 0;
  /** Probes sent in all; for tests and the cost figure in docs/benchmarks.md. */
  probesSent = 0;
  /** Stalls of Keeper's own event loop seen so far (each one longer than the slack); for tests and logs. */
  stallsSeen = 0;

  constructor(private readonly options: ConfirmationOptions) {}

  /**
   * One look, made by the gateway's timer while the session is connected: sends a probe when due
   * and says whether the member has answered recently enough.
   */
  check(target: ProbeTarget, now: number, onProbeError: (error: unknown) => void): { verdict: Verdict; lastAnswerAt: number } {
    const lastAnswerAt = target.lastAnswerAt;
    if (this.probeTarget !== target) {
      // A new connection: whatever was outstanding on the old one is not waited for.
      this.probeTarget = target;
      this.probeSentAt = null;
      this.lastCheckAt = null;
    }
    const lateBy = this.lastCheckAt === null ? 0 : now - this.lastCheckAt - this.options.checkEveryMs;
    this.lastCheckAt = now;
    const stalled = lateBy > this.options.stallSlackMs;
    if (stalled) {
      // Keeper itself stood still: what the member sent meanwhile is still unread, and the probe
      // sent before the stall proves nothing either way. Judge from now, with a fresh probe.
      this.stallsSeen++;
      this.judgeFrom = now;
      this.probeSentAt = null;
    }
    const outstanding = this.probeSentAt !== null && now - this.probeSentAt < this.options.probeDeadlineMs;
    const silentSince = Math.max(lastAnswerAt, this.judgeFrom);
    if (!outstanding && (now - lastAnswerAt >= this.options.intervalMs || stalled)) this.sendProbe(target, now, onProbeError);
    return { verdict: now - silentSince > this.options.unconfirmedAfterMs ? 'unconfirmed' : 'confirmed', lastAnswerAt };
  }

  /** No check is due while the session is not connected: the gap until the next one is not a stall. */
  rest(): void {
    this.lastCheckAt = null;
  }

  private sendProbe(target: ProbeTarget, now: number, onProbeError: (error: unknown) => void): void {
    this.probeSentAt = now;
    this.probesSent++;
    try {
      // The answer itself is what counts (the connection records it); an error answer
      // (CONNECTION_LOSS as the socket is replaced) only frees the lane for the next probe.
      target.client.exists('/', (error) => {
        if (this.probeTarget === target) this.probeSentAt = null;
        if (error) onProbeError(error);
      });
    } catch (error) {
      this.probeSentAt = null;
      onProbeError(error);
    }
  }
}
