/**
 * What an admin may do to a lock (issue 12, item 9), each through ZnodeOps.audited (viewers
 * refused and audited, every outcome audited):
 *  - delete one contender, re-checked right before: still there with the owner and version the
 *    admin saw, and not holding now unless the admin typed its name (`confirmHolder`);
 *  - clean every `leaked` contender at or under a path, with a dry run that only lists them;
 *    each one re-checked as above, never deleted if it became the holder meanwhile.
 * The re-check reads ZooKeeper now (exists + the directory's children), not the tracker's view:
 * the tracker may be a watch event behind.
 */
import {
  baseName,
  isProtectedFromDelete,
  leakCheckSummary,
  NO_SESSION,
  normalizeSessionId,
  parentPath,
  type LockCleanAnswer,
  type LockCleanBody,
  type LockDeleteAnswer,
  type LockDeleteBody,
} from '@keeper/shared';
import type { Ensemble } from '../ensemble/ensemble.js';
import type { Ensembles } from '../ensemble/ensembles.js';
import { OpError, toOpError } from '../ops/opError.js';
import type { Caller, ZnodeOps } from '../ops/znodeOps.js';

const HOLDER_CONSEQUENCE = 'the next waiter enters while the old owner still believes it holds the lock';

interface Rechecked {
  lockPath: string;
  name: string;
  holding: boolean;
  version: number;
}

/** Owner ids compare in ZooKeeper's hex form; "0x0" for a persistent node. */
function sameOwner(a: string, b: string): boolean {
  return (normalizeSessionId(a) ?? a) === (normalizeSessionId(b) ?? b);
}

export class LockActions {
  constructor(
    private readonly ops: ZnodeOps,
    private readonly ensembles: Ensembles,
  ) {}

  /** Reads the contender and its directory now; throws what the admin must hear. */
  private async recheck(ensemble: Ensemble, path: string, owner: string, version: number): Promise<Rechecked> {
    const lockPath = parentPath(path);
    if (lockPath === null) throw new OpError('INVALID_PATH', `${path} is not a node inside a lock directory`);
    if (isProtectedFromDelete(path)) throw new OpError('PROTECTED_PATH', `${path} is ZooKeeper's own and cannot be deleted`);
    const { gateway } = ensemble;
    const stat = await gateway.exists(path);
    if (!stat) throw new OpError('NO_NODE', `${path} is gone already: nothing to delete`);
    const nowOwner = normalizeSessionId(stat.ephemeralOwner) ?? stat.ephemeralOwner;
    if (!sameOwner(nowOwner, owner) || stat.version !== version) {
      throw new OpError(
        'LOCK_CHANGED',
        `${path} changed since you saw it (owner ${nowOwner === NO_SESSION ? 'none: persistent' : nowOwner}, version ${stat.version}; you saw ${owner}, version ${version}): nothing deleted, look again`,
      );
    }
    const { children } = await gateway.getChildren(lockPath);
    const name = baseName(path);
    const directoryData = await gateway.getData(lockPath).then(
      (d) => d.data,
      () => null,
    );
    const seen = ensemble.locks.recognizeNow(lockPath, children, directoryData);
    if (!seen) throw new OpError('NOT_A_LOCK', `${lockPath} is not a lock Keeper recognizes now: nothing deleted`);
    const index = seen.lock.contenders.findIndex((c) => c.name === name);
    if (index < 0) throw new OpError('NO_NODE', `${path} is gone already: nothing to delete`);
    return { lockPath, name, holding: seen.plan.holding[index] ?? false, version: stat.version };
  }

  async delete(caller: Caller, ensembleName: string, body: LockDeleteBody): Promise<LockDeleteAnswer> {
    const ensemble = this.ensembles.get(ensembleName);
    const { path } = body;
    return this.ops.audited(
      caller,
      { action: 'lock.delete', ensemble: ensembleName, path, details: { owner: body.owner, expectedVersion: body.version } },
      async (record) => {
        const status =
          ensemble.locks
            .reportsUnder(parentPath(path) ?? '/')
            .flatMap((r) => r.contenders)
            .find((c) => c.path === path)?.status ?? 'unknown';
        const checked = await this.recheck(ensemble, path, body.owner, body.version);
        if (checked.holding && body.confirmHolder !== checked.name) {
          throw new OpError(
            'LOCK_HOLDER',
            `${checked.name} holds ${checked.lockPath} now: deleting it means ${HOLDER_CONSEQUENCE}. To delete it anyway, type its name (${checked.name}) to confirm`,
          );
        }
        record.details = { ...record.details, wasHolder: checked.holding, status };
        try {
          const outcome = await ensemble.mutations.remove(path, checked.version);
          if (outcome.note) record.note = outcome.note;
        } catch (error) {
          if (toOpError(error).code === 'BAD_VERSION')
            throw new OpError('LOCK_CHANGED', `${path} changed while it was being deleted: nothing deleted, look again`);
          throw error;
        }
        record.after = null;
        return { path, lock: checked.lockPath, deleted: true as const, wasHolder: checked.holding, status };
      },
    );
  }

  async clean(caller: Caller, ensembleName: string, body: LockCleanBody): Promise<LockCleanAnswer> {
    const ensemble = this.ensembles.get(ensembleName);
    return this.ops.audited(caller, { action: 'lock.clean', ensemble: ensembleName, path: body.path, details: { dryRun: body.dryRun } }, async (record) => {
      const leakCheck = leakCheckSummary(ensemble.locks.gatherer.gatherings);
      const candidates = ensemble.locks
        .reportsUnder(body.path)
        .flatMap((r) => r.contenders.filter((c) => c.status === 'leaked' && c.owner !== null && c.version !== null).map((c) => ({ c, lock: r.path })))
        .map(({ c, lock }) => ({ path: c.path, lock, owner: c.owner!.sessionId, version: c.version! }));
      const answer: LockCleanAnswer = {
        path: body.path,
        dryRun: body.dryRun,
        candidates,
        deleted: [],
        skipped: [],
        leakCheck: { ready: leakCheck.ready, sentence: leakCheck.sentence },
      };
      if (!body.dryRun) {
        for (const candidate of candidates) {
          try {
            const checked = await this.recheck(ensemble, candidate.path, candidate.owner, candidate.version);
            if (checked.holding) {
              answer.skipped.push({ path: candidate.path, reason: `it holds ${checked.lockPath} now: delete it on its own, with typed confirmation` });
              continue;
            }
            await ensemble.mutations.remove(candidate.path, checked.version);
            answer.deleted.push(candidate.path);
          } catch (error) {
            const e = toOpError(error, candidate.path);
            answer.skipped.push({ path: candidate.path, reason: `${e.code}: ${e.message}` });
          }
        }
      }
      record.details = { ...record.details, candidates: candidates.length, deleted: answer.deleted, skipped: answer.skipped.length };
      return answer;
    });
  }
}
