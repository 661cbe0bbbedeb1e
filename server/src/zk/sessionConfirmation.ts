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
 */
import type zookeeper from 'node-zookeeper-client';

export interface ConfirmationOptions {
  /** How often a probe may be sent when nothing else was heard. */
  intervalMs: number;
  /** No answer for this long: unconfirmed. */
  unconfirmedAfterMs: number;
  /** A probe unanswered for this long is forgotten, so one more may go (its reply may never come). */
  probeDeadlineMs: number;
}

export const DEFAULT_CONFIRMATION: ConfirmationOptions = { intervalMs: 1_000, unconfirmedAfterMs: 2_000, probeDeadlineMs: 5_000 };

export interface ProbeTarget {
  readonly client: zookeeper.Client;
  /** When the member last sent anything on this connection (0: never). */
  readonly lastAnswerAt: number;
}

export type Verdict = 'confirmed' | 'unconfirmed';

export class SessionConfirmation {
  private probeSentAt: number | null = null;
  private probeTarget: ProbeTarget | null = null;
  /** Probes sent in all; for tests and the README's cost figure. */
  probesSent = 0;

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
    }
    const outstanding = this.probeSentAt !== null && now - this.probeSentAt < this.options.probeDeadlineMs;
    if (!outstanding && now - lastAnswerAt >= this.options.intervalMs) this.sendProbe(target, now, onProbeError);
    return { verdict: now - lastAnswerAt > this.options.unconfirmedAfterMs ? 'unconfirmed' : 'confirmed', lastAnswerAt };
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
