/**
 * Failed sign-ins go through one door: each failure is counted and audited, and a refusal for
 * going over the limit is audited once per window (so a flood of guesses writes a bounded number
 * of lines, never one per guess).
 *
 * A correct credential always passes: a guesser sharing an address with the admin (or a proxy
 * with everyone, without trustProxy) must not lock the admin out. Tokens (admin, viewer, share
 * links, at least 16 characters; generated ones 256 bits) are therefore checked first and the
 * limiter is asked only about wrong ones: answering "right" to a right token tells a guesser
 * nothing it could reach by guessing. Passwords are guessable, so a password is still refused
 * unverified past the limit, except from a browser where that user signed in before (its device
 * cookie, deviceCookies.ts): that browser has its own budget, which a guesser elsewhere cannot spend.
 */
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/auditLog.js';
import { capName, type SignInLimiter } from './signInLimiter.js';

export type SignInMethod = 'password' | 'token' | 'url' | 'bearer' | 'share' | 'oidc';

export interface SignInAttempt {
  address: string;
  /** The user name tried, or "token" / "share" for secrets without a name. */
  name: string;
  method: SignInMethod;
  /** Where the attempt came in (http, socket). */
  transport?: 'http' | 'socket';
  /** A password tried from a browser where this user signed in before: limited on its own. */
  device?: string;
}

export class SignInGuard {
  constructor(
    readonly limiter: SignInLimiter,
    private readonly audit: AuditLog,
    private readonly log: Logger,
  ) {}

  /** null when the attempt may go ahead; else how long to wait (the refusal is audited once). */
  refusal(attempt: SignInAttempt): { retryAfterSeconds: number } | null {
    const verdict = this.limiter.check(attempt.address, attempt.name, attempt.device);
    if (verdict.ok) return null;
    if (verdict.firstRefusal) {
      this.record(attempt, 'refused', { code: 'RATE_LIMITED', message: `too many failed sign-ins; refused for ${verdict.retryAfterSeconds} s` });
    }
    return { retryAfterSeconds: verdict.retryAfterSeconds };
  }

  /** Counts and audits a failure; resolves once the entry is recorded. */
  async failed(attempt: SignInAttempt, message: string, code = 'INVALID_CREDENTIALS'): Promise<void> {
    // Counted (across replicas too) before the answer: the next guess, on any replica, meets it.
    await Promise.all([this.limiter.fail(attempt.address, attempt.name, attempt.device), this.record(attempt, 'failed', { code, message })]);
  }

  /**
   * A credential that did not verify: counted and audited while under the limit (null: answer
   * "wrong"), past it refused with how long to wait (audited once per window).
   */
  async rejected(attempt: SignInAttempt, message: string, code?: string): Promise<{ retryAfterSeconds: number } | null> {
    const refused = this.refusal(attempt);
    if (refused) return refused;
    await this.failed(attempt, message, code);
    return null;
  }

  private record(attempt: SignInAttempt, outcome: 'failed' | 'refused', error: { code: string; message: string }): Promise<void> {
    const via = attempt.method === 'bearer' ? 'bearer' : attempt.method === 'share' ? 'share' : 'cookie';
    return this.audit
      .append({
        action: attempt.method === 'share' ? 'shareLink.use' : 'login',
        outcome,
        actor: { name: capName(attempt.name), role: null, via },
        error,
        details: { method: attempt.method, ...(attempt.transport ? { transport: attempt.transport } : {}), ...(attempt.device ? { knownBrowser: true } : {}) },
        remoteAddress: attempt.address,
      })
      .then(
        () => undefined,
        (err: unknown) => this.log.error({ err }, 'could not record a failed sign-in'),
      );
  }
}
