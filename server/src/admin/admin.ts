/**
 * The admin kernel below znode operations, lock actions and upgrades: who is asking (the
 * caller), whether they may (the admin check), and the audit entry every change leaves, whatever
 * its outcome. Long changes run as jobs in the one registry, their end audited like their start.
 */
import type { JobSnapshot, DataFingerprint } from '@keeper/shared';
import type { Logger } from 'pino';
import type { AuditInput, AuditLog } from '../audit/auditLog.js';
import { actorOf, adminRefusal, canMutate, changeRefusal, type Identity } from '../auth/identity.js';
import type { JobControl, JobRegistry } from './jobs.js';
import { OpError, toOpError } from './opError.js';

/** Who asks for a change, and from where (both go into its audit entry). */
export interface Caller {
  identity: Identity;
  remoteAddress?: string;
}

/** An audit entry while its change runs: the change fills in before/after/details. */
export type AuditRecord = Omit<AuditInput, 'actor' | 'outcome'>;

/**
 * Who may make a change: admins only, or (a znode change at entry.path) admins and the writers
 * whose subtree holds it. The refusal's sentence, or null when the caller may.
 */
export function adminCheck(identity: Identity, entry: AuditRecord, gate: 'admin' | 'znode'): string | null {
  if (gate === 'znode') return changeRefusal(identity, entry.ensemble ?? '', entry.path ?? '');
  return canMutate(identity) ? null : adminRefusal(identity);
}

export interface AdminContext {
  audit: AuditLog;
  jobs: JobRegistry;
  log: Logger;
}

export class Admin {
  constructor(private readonly ctx: AdminContext) {}

  get jobs(): JobRegistry {
    return this.ctx.jobs;
  }

  /**
   * Runs a change as `caller` after the admin check, and audits the outcome either way. A change
   * whose effects begin before it answers (an upgrade's start: its first restart can begin at once)
   * calls `announce` at that moment: its entry is then in the trail before those effects, written
   * once (a failure after it is a second, failed entry).
   */
  async audited<T>(
    caller: Caller,
    entry: AuditRecord,
    run: (record: AuditRecord, announce: () => Promise<void>) => Promise<T>,
    gate: 'admin' | 'znode' = 'admin',
  ): Promise<T> {
    const refusal = adminCheck(caller.identity, entry, gate);
    if (refusal !== null) {
      await this.refuse(caller, entry, refusal);
      throw new OpError('FORBIDDEN', refusal);
    }
    const record: AuditRecord = { ...entry };
    let announced = false;
    const announce = async () => {
      if (announced) return;
      announced = true;
      await this.write({ ...record, actor: actorOf(caller.identity), outcome: 'ok', ...remote(caller) });
    };
    try {
      const value = await run(record, announce);
      if (!announced)
        await this.write({ ...record, actor: actorOf(caller.identity), outcome: 'ok', ...(noteOf(value) ? { note: noteOf(value) } : {}), ...remote(caller) });
      return value;
    } catch (error) {
      const e = toOpError(error, entry.path);
      await this.write({ ...record, actor: actorOf(caller.identity), outcome: 'failed', error: { code: e.code, message: e.message }, ...remote(caller) });
      throw e;
    }
  }

  async refuse(caller: Caller, entry: AuditRecord, message = 'not an admin'): Promise<void> {
    await this.write({
      ...entry,
      actor: actorOf(caller.identity),
      outcome: 'refused',
      error: { code: 'FORBIDDEN', message },
      ...remote(caller),
    });
  }

  /** An entry Keeper writes of its own accord (a scan's hand-over, a cancel another replica asked for): no caller to check. */
  async note(entry: AuditInput): Promise<void> {
    await this.write(entry);
  }

  /** Starts a job whose end is audited too (`before`: the fingerprint its start recorded). */
  startAuditedJob(
    caller: Caller,
    init: Pick<JobSnapshot, 'kind' | 'ensemble' | 'path'>,
    run: (control: JobControl) => Promise<Partial<JobSnapshot> & Pick<JobSnapshot, 'state'>>,
    before: DataFingerprint | null,
  ): JobSnapshot {
    return this.ctx.jobs.start({ ...init, startedBy: caller.identity.name }, run, (end) => this.recordJobEnd(caller, end, before));
  }

  private async recordJobEnd(caller: Caller, job: JobSnapshot, before: DataFingerprint | null): Promise<void> {
    await this.write({
      action: job.kind === 'recursiveDelete' ? 'deleteRecursive' : job.kind === 'lockScan' ? 'lock.scan' : job.kind,
      ensemble: job.ensemble,
      path: job.path,
      actor: actorOf(caller.identity),
      outcome: job.state === 'done' ? 'ok' : 'failed',
      before,
      ...(job.kind === 'recursiveDelete' ? { after: job.state === 'done' ? null : undefined } : {}),
      ...(job.error ? { error: job.error } : {}),
      details: {
        phase: 'end',
        jobId: job.id,
        state: job.state,
        done: job.done,
        total: job.total,
        ...(job.remainingTotal !== undefined ? { remainingTotal: job.remainingTotal } : {}),
        ...(job.summary ? { summary: job.summary } : {}),
      },
      ...remote(caller),
    });
  }

  private async write(entry: AuditInput): Promise<void> {
    try {
      await this.ctx.audit.append(entry);
    } catch (error) {
      // The change already happened: say so loudly rather than hide its result.
      this.ctx.log.error({ err: error, action: entry.action, path: entry.path }, 'could not record an audit entry');
    }
  }
}

function noteOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null && typeof (value as { note?: unknown }).note === 'string' ? (value as { note: string }).note : undefined;
}

function remote(caller: Caller): { remoteAddress?: string } {
  return caller.remoteAddress ? { remoteAddress: caller.remoteAddress } : {};
}
