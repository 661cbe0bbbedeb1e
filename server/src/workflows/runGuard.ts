/**
 * What an upgrade and a resize both check before they act on an ensemble, with the same errors:
 * that the ensemble's stored workflows are read (they are kept by its identity, which may not be
 * known yet), that its members have been polled, and that this session holds the ensemble's
 * upgrade lock (workflowLock.ts), which upgrades and resizes share because they never run together.
 * Written once so the two runners cannot drift apart in what they let through.
 */
import type { EnsembleHealth } from '@keeper/shared';
import { OpError, toOpError } from '../admin/opError.js';
import type { EnsembleIdentityReader } from '../config/ensembleState.js';
import type { WorkflowLock } from './workflowLock.js';

export interface RunGuardOptions {
  /** The ensemble's configured name, for the errors. */
  ensemble: string;
  /** What the runner keeps, for the errors: "the upgrades of …", "the resizes of …". */
  kept: string;
  /** True once the runner has read its stored workflows. */
  isLoaded: () => boolean;
  identity: Pick<EnsembleIdentityReader, 'whyUnknown'>;
  health: { current(): EnsembleHealth | null };
  lock: Pick<WorkflowLock, 'acquire'>;
  /** The refusal when another session holds the lock, given who holds it. */
  lockHeld: (holder: string) => string;
}

export class RunGuard {
  constructor(private readonly options: RunGuardOptions) {}

  /** Refuses (NOT_READY) until the runner has read its stored workflows. */
  requireReady(): void {
    if (this.options.isLoaded()) return;
    const { ensemble, kept, identity } = this.options;
    throw new OpError(
      'NOT_READY',
      `the ${kept} of ${ensemble} are not read yet: they are kept by the ensemble's identity, which is not known yet (${identity.whyUnknown() ?? 'reading it'}); try again in a few seconds`,
    );
  }

  /** The members' latest health; refuses (NOT_READY) before their first poll. */
  requireHealth(): EnsembleHealth {
    const health = this.options.health.current();
    if (!health) throw new OpError('NOT_READY', `the members of ${this.options.ensemble} have not been polled yet: try again in a few seconds`);
    return health;
  }

  /** Takes the ensemble's upgrade lock for `id`, or refuses (UPGRADE_IN_PROGRESS) saying who holds it. */
  async takeLock(id: string, by: string): Promise<void> {
    const attempt = await this.options.lock.acquire(id, by).catch((error: unknown) => {
      throw toOpError(error);
    });
    if (!attempt.held) throw new OpError('UPGRADE_IN_PROGRESS', this.options.lockHeld(attempt.holder));
  }
}
