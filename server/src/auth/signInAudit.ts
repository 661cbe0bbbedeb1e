/**
 * Failed sign-ins go through one door: the limiter is asked before anything is verified, each
 * failure is counted and audited, and a refusal for going over the limit is audited once per
 * window (so a flood of guesses writes a bounded number of lines, never one per guess).
 */
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/auditLog.js';
import { capName, type SignInLimiter } from './signInLimiter.js';

export type SignInMethod = 'password' | 'token' | 'url' | 'bearer' | 'share';

export interface SignInAttempt {
  address: string;
  /** The user name tried, or "token" / "share" for secrets without a name. */
  name: string;
  method: SignInMethod;
  /** Where the attempt came in (http, socket). */
  transport?: 'http' | 'socket';
}

export class SignInGuard {
  constructor(
    readonly limiter: SignInLimiter,
    private readonly audit: AuditLog,
    private readonly log: Logger,
  ) {}

  /** null when the attempt may go ahead; else how long to wait (the refusal is audited once). */
  refusal(attempt: SignInAttempt): { retryAfterSeconds: number } | null {
    const verdict = this.limiter.check(attempt.address, attempt.name);
    if (verdict.ok) return null;
    if (verdict.firstRefusal) {
      this.record(attempt, 'refused', { code: 'RATE_LIMITED', message: `too many failed sign-ins; refused for ${verdict.retryAfterSeconds} s` });
    }
    return { retryAfterSeconds: verdict.retryAfterSeconds };
  }

  /** Counts and audits a failure; resolves once the entry is recorded. */
  failed(attempt: SignInAttempt, message: string): Promise<void> {
    this.limiter.fail(attempt.address, attempt.name);
    return this.record(attempt, 'failed', { code: 'INVALID_CREDENTIALS', message });
  }

  private record(attempt: SignInAttempt, outcome: 'failed' | 'refused', error: { code: string; message: string }): Promise<void> {
    const via = attempt.method === 'bearer' ? 'bearer' : attempt.method === 'share' ? 'share' : 'cookie';
    return this.audit
      .append({
        action: attempt.method === 'share' ? 'shareLink.use' : 'login',
        outcome,
        actor: { name: capName(attempt.name), role: null, via },
        error,
        details: { method: attempt.method, ...(attempt.transport ? { transport: attempt.transport } : {}) },
        remoteAddress: attempt.address,
      })
      .then(
        () => undefined,
        (err: unknown) => this.log.error({ err }, 'could not record a failed sign-in'),
      );
  }
}
