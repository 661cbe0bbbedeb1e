/**
 * What an admin may do to a lock (issue 12, item 9), each through Admin.audited (viewers
 * refused and audited, every outcome audited):
 *  - delete one contender, re-checked right before: still there with the owner and version the
 *    admin saw, and not holding now unless the admin typed its name (`confirmHolder`);
 *  - clean every `leaked` contender at or under a path, with a dry run that only lists them; the
 *    real run acts only on what its dry run pinned (issue 25, item 2), each one re-checked as
 *    above, never deleted if it became the holder meanwhile.
 * The re-check reads ZooKeeper now (exists + the directory's children), not the tracker's view:
 * the tracker may be a watch event behind. A node deleted as leaked is also re-checked against a
 * watch gathering made right then (wchp + cons on every member): a live waiter whose client was
 * slow to re-arm its watch (kazoo runs every callback on one thread) has re-armed it by now, and is
 * left alone.
 */
import {
  baseName,
  isProtectedFromDelete,
  leakCheckSummary,
  LOCK_CLEAN_MAX,
  NO_SESSION,
  normalizeSessionId,
  parentPath,
  pathWithin,
  provesAbsence,
  watchesInDirectory,
  type Contender,
  type LockCleanCandidate,
  type LockReport,
  type WatchGathering,
  type LockCleanAnswer,
  type LockCleanBody,
  type LockDeleteAnswer,
  type LockDeleteBody,
} from '@keeper/shared';
import type { Admin, Caller } from '../admin/admin.js';
import { OpError, toOpError } from '../admin/opError.js';
import type { ZkGateway } from '../zk/gateway.js';
import type { ZkMutations } from '../zk/mutations.js';
import type { LockTracker } from './lockTracker.js';

/** What the lock actions use of an ensemble (ensemble/ensemble.ts is one), not the whole of it. */
export interface LockActionsEnsemble {
  readonly name: string;
  readonly gateway: ZkGateway;
  readonly mutations: ZkMutations;
  readonly locks: LockTracker;
}

const HOLDER_CONSEQUENCE = 'the next waiter enters while the old owner still believes it holds the lock';

interface Rechecked {
  lockPath: string;
  name: string;
  holding: boolean;
  version: number;
}

/** Why a node seen as leaked must not be deleted after all, by a gathering made right before; null when it is still unwatched. */
function stillUnwatched(fresh: WatchGathering | null, lock: string, owner: string): string | null {
  if (fresh === null) return 'the watches could not be gathered right before deleting: nothing deleted';
  if (watchesInDirectory(fresh, lock, owner).length > 0)
    return 'its owner watches the lock again: a live waiter (its client was slow to re-arm its watch), not deleted';
  if (!provesAbsence(fresh, owner))
    return 'the gathering right before deleting could not prove its owner watches nothing (a member did not answer, or the owner was between connections): not deleted';
  return null;
}

/** Owner ids compare in ZooKeeper's hex form; "0x0" for a persistent node. */
function sameOwner(a: string, b: string): boolean {
  return (normalizeSessionId(a) ?? a) === (normalizeSessionId(b) ?? b);
}

/** What an admin may do to one ensemble's locks (`Ensemble.lockActions`). */
/** The contenders of `reports` that `pick` chooses and that have an owner and a version, as clean candidates. */
function candidatesIn(reports: readonly LockReport[], pick: (c: Contender) => boolean): LockCleanCandidate[] {
  return reports.flatMap((r) =>
    r.contenders
      .filter((c) => pick(c) && c.owner?.sessionId && c.version !== null)
      .map((c) => ({ path: c.path, lock: r.path, owner: c.owner!.sessionId!, version: c.version! })),
  );
}

export class LockActions {
  constructor(
    private readonly admin: Admin,
    private readonly ensemble: LockActionsEnsemble,
  ) {}

  /** Reads the contender and its directory now; throws what the admin must hear. */
  private async recheck(path: string, owner: string, version: number): Promise<Rechecked> {
    const lockPath = parentPath(path);
    if (lockPath === null) throw new OpError('INVALID_PATH', `${path} is not a node inside a lock directory`);
    if (isProtectedFromDelete(path)) throw new OpError('PROTECTED_PATH', `${path} is ZooKeeper's own and cannot be deleted`);
    const { gateway } = this.ensemble;
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
    const seen = this.ensemble.locks.recognizeNow(lockPath, children, directoryData);
    if (!seen) throw new OpError('NOT_A_LOCK', `${lockPath} is not a lock Keeper recognizes now: nothing deleted`);
    const index = seen.lock.contenders.findIndex((c) => c.name === name);
    if (index < 0) throw new OpError('NO_NODE', `${path} is gone already: nothing to delete`);
    return { lockPath, name, holding: seen.plan.holding[index] ?? false, version: stat.version };
  }

  async delete(caller: Caller, body: LockDeleteBody): Promise<LockDeleteAnswer> {
    const { ensemble } = this;
    const { path } = body;
    return this.admin.audited(
      caller,
      { action: 'lock.delete', ensemble: ensemble.name, path, details: { owner: body.owner, expectedVersion: body.version } },
      async (record) => {
        const status =
          ensemble.locks
            .reportsUnder(parentPath(path) ?? '/')
            .flatMap((r) => r.contenders)
            .find((c) => c.path === path)?.status ?? 'unknown';
        const checked = await this.recheck(path, body.owner, body.version);
        if (status === 'leaked' && !checked.holding) {
          const owner = normalizeSessionId(body.owner) ?? body.owner;
          const why = stillUnwatched(await ensemble.locks.gatherer.gatherNow(), checked.lockPath, owner);
          if (why) throw new OpError('LOCK_CHANGED', `${path}: ${why}`);
        }
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

  async clean(caller: Caller, body: LockCleanBody): Promise<LockCleanAnswer> {
    const { ensemble } = this;
    return this.admin.audited(caller, { action: 'lock.clean', ensemble: ensemble.name, path: body.path, details: { dryRun: body.dryRun } }, async (record) => {
      const leakCheck = leakCheckSummary(ensemble.locks.gatherer.gatherings);
      // One reading of the reports for both lists: the leaked contenders a clean may delete, and the
      // leaked holders it never deletes but names.
      const reports = ensemble.locks.reportsUnder(body.path);
      const leakedNow = candidatesIn(reports, (c) => c.status === 'leaked');
      const leakedHolders = candidatesIn(reports, (c) => c.holding && c.flags.some((f) => f.kind === 'leaked-holder')).slice(0, LOCK_CLEAN_MAX);
      // A real run acts only on what its dry run listed, under the path it names.
      const candidates = body.dryRun ? leakedNow.slice(0, LOCK_CLEAN_MAX) : (body.pinned ?? []).filter((p) => pathWithin(body.path, p.path));
      const answer: LockCleanAnswer = {
        path: body.path,
        dryRun: body.dryRun,
        candidates,
        candidatesTotal: body.dryRun ? leakedNow.length : candidates.length,
        deleted: [],
        skipped: [],
        leakedHolders,
        leakCheck: { ready: leakCheck.ready, sentence: leakCheck.sentence },
      };
      if (!body.dryRun && candidates.length > 0) {
        const stillLeaked = new Map(leakedNow.map((c) => [c.path, c]));
        const fresh = await ensemble.locks.gatherer.gatherNow();
        for (const candidate of candidates) {
          try {
            const now = stillLeaked.get(candidate.path);
            if (!now) {
              answer.skipped.push({ path: candidate.path, reason: 'no longer proven leaked since the dry run: not deleted' });
              continue;
            }
            if (!sameOwner(now.owner, candidate.owner) || now.version !== candidate.version || now.lock !== candidate.lock) {
              answer.skipped.push({ path: candidate.path, reason: 'changed since the dry run (owner, version or lock): not deleted, look again' });
              continue;
            }
            const why = stillUnwatched(fresh, candidate.lock, normalizeSessionId(candidate.owner) ?? candidate.owner);
            if (why) {
              answer.skipped.push({ path: candidate.path, reason: why });
              continue;
            }
            const checked = await this.recheck(candidate.path, candidate.owner, candidate.version);
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
