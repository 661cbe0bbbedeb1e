/**
 * The Locks view's requests and write answers (issue 12, items 7, 9, 10): list and detail reads,
 * a scan (an admin job), deleting one contender after a re-check, and cleaning leaked ones with
 * a dry run first.
 */
import { z } from 'zod/mini';
import { isValidPath } from '../paths.js';
import { LOCK_LIST_PAGE, LOCK_LIST_PAGE_MAX } from './schemas.js';

const zkPath = z.string().check(z.maxLength(4096), z.refine(isValidPath, 'must be a ZooKeeper path: absolute, no trailing /'));

/** Locks whose path, recipe, worst status or flags contain it (case-insensitive); '' for all. */
export const lockFilterSchema = z.string().check(z.trim(), z.maxLength(200));

/** GET /api/ensembles/<name>/locks?path=<root>&offset=&limit=&q= : one page of the list, worst first. */
export const locksQuerySchema = z.object({
  path: z._default(zkPath, '/'),
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(1_000_000)), 0),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(LOCK_LIST_PAGE_MAX)), LOCK_LIST_PAGE),
  q: z._default(lockFilterSchema, ''),
});
export type LocksQuery = z.infer<typeof locksQuerySchema>;

/** POST /api/ensembles/<name>/locks/scan: find lock directories at or under `path` (a job). */
export const lockScanBodySchema = z.strictObject({ path: zkPath });
export type LockScanBody = z.infer<typeof lockScanBodySchema>;

/**
 * POST /api/ensembles/<name>/locks/delete: one contender node, as the caller saw it. Re-checked
 * right before deleting: still there, same owner and version, and not holding now unless
 * `confirmHolder` repeats its name.
 */
export const lockDeleteBodySchema = z.strictObject({
  path: zkPath,
  /** The owner session as seen ("0x0" for a persistent node). */
  owner: z.string().check(z.regex(/^0x[0-9a-fA-F]{1,16}$/, 'a session id in hex, like 0x100002f75570004')),
  version: z.int().check(z.gte(0)),
  /** Typed by the admin to delete a holder: the node's name. */
  confirmHolder: z.optional(z.string().check(z.maxLength(1024))),
});
export type LockDeleteBody = z.infer<typeof lockDeleteBodySchema>;

export const lockDeleteAnswerSchema = z.object({
  path: z.string(),
  lock: z.string(),
  deleted: z.literal(true),
  /** It was holding when deleted (the admin confirmed). */
  wasHolder: z.boolean(),
  /** The status it had at the re-check. */
  status: z.string(),
});
export type LockDeleteAnswer = z.infer<typeof lockDeleteAnswerSchema>;

/** A dry run lists at most this many leaked contenders; a clean deletes at most these. */
export const LOCK_CLEAN_MAX = 500;

export const lockCleanCandidateSchema = z.strictObject({
  path: zkPath,
  lock: zkPath,
  owner: z.string().check(z.regex(/^0x[0-9a-fA-F]{1,16}$/, 'a session id in hex')),
  version: z.int().check(z.gte(0)),
});
export type LockCleanCandidate = z.infer<typeof lockCleanCandidateSchema>;

/**
 * POST /api/ensembles/<name>/locks/clean: every `leaked` contender at or under `path`. `dryRun`
 * lists them only; a real run names the ones its dry run listed (`pinned`) and deletes only those
 * that are still leaked, unchanged and, in a watch gathering made right then, still unwatched.
 */
export const lockCleanBodySchema = z
  .strictObject({ path: zkPath, dryRun: z.boolean(), pinned: z.optional(z.array(lockCleanCandidateSchema).check(z.maxLength(LOCK_CLEAN_MAX))) })
  .check(
    z.refine((b) => b.dryRun || b.pinned !== undefined, {
      path: ['pinned'],
      message: 'a clean deletes only what its dry run listed: send the dry run’s candidates as "pinned"',
    }),
  );
export type LockCleanBody = z.infer<typeof lockCleanBodySchema>;

export const lockCleanAnswerSchema = z.object({
  path: z.string(),
  dryRun: z.boolean(),
  /** Leaked contenders found (the dry run's list, at most LOCK_CLEAN_MAX) or, for a real run, the pinned ones it tried. */
  candidates: z.array(lockCleanCandidateSchema),
  /** How many leaked contenders there are in all under `path` (the dry run lists LOCK_CLEAN_MAX at most). */
  candidatesTotal: z.int(),
  deleted: z.array(z.string()),
  /** Not deleted, with why ("changed since the dry run", "now the holder"). */
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  /**
   * Leaked nodes that hold their lock now (proven leaked while they waited): Clean never deletes a
   * holder, as its delete hands the lock on; each is deleted on its own, with typed confirmation.
   * Listed so a dry run never says "nothing to clean" beside a lock deadlocked by one.
   */
  leakedHolders: z.array(lockCleanCandidateSchema),
  leakCheck: z.object({ ready: z.boolean(), sentence: z.string() }),
});
export type LockCleanAnswer = z.infer<typeof lockCleanAnswerSchema>;
