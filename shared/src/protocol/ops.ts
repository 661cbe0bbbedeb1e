/**
 * Admin operations on znodes: the inputs (HTTP bodies and socket messages share them) and
 * the jobs long operations run as. One source for the server, the web app and scripts.
 */
import { z } from 'zod/mini';
import { ACL_SCHEMES } from '../acl.js';

/**
 * The most data Keeper writes into one znode: node-zookeeper-client refuses more. The real
 * limit is lower and depends on the path: ZooKeeper's jute.maxbuffer (1,048,575 by default)
 * counts the whole request (requestSize.ts), and Keeper refuses longer requests before sending.
 */
export const MAX_ZNODE_DATA_BYTES = 1_048_576;

export const CREATE_MODES = ['persistent', 'persistent_sequential', 'ephemeral', 'ephemeral_sequential'] as const;
export type CreateModeName = (typeof CREATE_MODES)[number];

/** How `data` is written in a request: text as UTF-8, or bytes as base64. */
export const INPUT_ENCODINGS = ['utf8', 'base64'] as const;
export type InputEncoding = (typeof INPUT_ENCODINGS)[number];

/** base64 of 1 MiB is 1,398,104 characters; the exact byte limit is checked after decoding. */
const dataText = z.string().check(z.maxLength(1_400_000));
const version = z.int().check(z.gte(0), z.lte(2_147_483_647));

/** One ACL entry as written by people: letters (`cdrwa`) or bits (`permissions`), exactly one of them. */
export const aclEntryInputSchema = z.object({
  scheme: z.enum(ACL_SCHEMES),
  id: z.string().check(z.maxLength(1024)),
  perms: z.optional(z.string().check(z.maxLength(5))),
  permissions: z.optional(z.int().check(z.gte(0), z.lte(31))),
});
export type AclEntryInput = z.infer<typeof aclEntryInputSchema>;

/** One ACL entry as the server reports it: both forms. */
export const aclEntrySchema = z.object({
  scheme: z.string(),
  id: z.string(),
  perms: z.string(),
  permissions: z.number(),
});
export type AclEntryView = z.infer<typeof aclEntrySchema>;

export const createBodySchema = z.object({
  data: z.optional(dataText),
  encoding: z.optional(z.enum(INPUT_ENCODINGS)),
  mode: z.optional(z.enum(CREATE_MODES)),
});
export type CreateBody = z.infer<typeof createBodySchema>;

export const setDataBodySchema = z.object({
  data: dataText,
  encoding: z.optional(z.enum(INPUT_ENCODINGS)),
  version,
});
export type SetDataBody = z.infer<typeof setDataBodySchema>;

export const setAclBodySchema = z.object({
  acl: z.array(aclEntryInputSchema).check(z.minLength(1), z.maxLength(100)),
  /** The ACL version (stat.aversion) the change was made against. */
  version,
  /**
   * The node's path, typed by the operator, when the new ACL takes read or admin away from the
   * console itself (otherwise 409 ACL_LOCKS_OUT with the reason, and nothing is changed).
   */
  confirm: z.optional(z.string().check(z.maxLength(4096))),
});
export type SetAclBody = z.infer<typeof setAclBodySchema>;

export const JOB_KINDS = ['recursiveDelete', 'import', 'lockScan'] as const;
export const JOB_STATES = ['running', 'done', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** At most this many remaining paths are listed; `remainingTotal` has the full count. */
export const MAX_REPORTED_REMAINING = 200;

export const jobSnapshotSchema = z.object({
  id: z.string(),
  kind: z.enum(JOB_KINDS),
  ensemble: z.string(),
  path: z.string(),
  state: z.enum(JOB_STATES),
  /** Nodes handled so far and the total known so far (it grows if nodes are added meanwhile). */
  done: z.number(),
  total: z.number(),
  /** The node being worked on, for a progress line. */
  current: z.nullable(z.string()),
  startedBy: z.string(),
  startedAt: z.number(),
  finishedAt: z.optional(z.number()),
  cancelRequested: z.boolean(),
  /** When the job did not complete: what is still there (capped at MAX_REPORTED_REMAINING). */
  remaining: z.optional(z.array(z.string())),
  remainingTotal: z.optional(z.number()),
  /** True when `remaining` was read back from ZooKeeper after stopping, false when it is the job's own bookkeeping. */
  remainingVerified: z.optional(z.boolean()),
  error: z.optional(z.object({ code: z.string(), message: z.string() })),
  /** Kind-specific counts (import: created, updated, skipped, conflicts). */
  summary: z.optional(z.record(z.string(), z.number())),
});
export type JobSnapshot = z.infer<typeof jobSnapshotSchema>;

/** Export and import: a subtree as JSON (GET .../export/<path>, POST .../import/<path>). */
export const MAX_EXPORT_NODES = 10_000;

export const exportNodeSchema = z.object({
  /** Relative to the exported root: '' for the root itself, 'a/b' below it. */
  rel: z.string().check(z.maxLength(4096)),
  /** The bytes, base64. */
  data: z.string().check(z.maxLength(1_400_000)),
  /** How the console would show the value (utf8, json or base64): a hint for people reading the file. */
  encoding: z.enum(['utf8', 'json', 'base64']),
  acl: z
    .array(
      z.object({
        scheme: z.enum(ACL_SCHEMES),
        id: z.string().check(z.maxLength(1024)),
        perms: z.optional(z.string().check(z.maxLength(5))),
        permissions: z.int().check(z.gte(0), z.lte(31)),
      }),
    )
    .check(z.maxLength(100)),
  stat: z.object({
    version: z.number(),
    aversion: z.number(),
    cversion: z.number(),
    ctime: z.number(),
    mtime: z.number(),
    dataLength: z.number(),
    numChildren: z.number(),
    ephemeral: z.boolean(),
  }),
});
export type ExportNode = z.infer<typeof exportNodeSchema>;

export const exportDocumentSchema = z.object({
  format: z.literal('keeper-export'),
  version: z.literal(1),
  ensemble: z.string(),
  root: z.string(),
  exportedAt: z.number(),
  nodes: z.array(exportNodeSchema).check(z.minLength(1), z.maxLength(MAX_EXPORT_NODES)),
  /** Nodes left out because the console may not read them (and so nothing below them either). */
  skipped: z.optional(
    z.array(z.object({ path: z.string().check(z.maxLength(4096)), reason: z.string().check(z.maxLength(1024)) })).check(z.maxLength(MAX_EXPORT_NODES)),
  ),
});
export type ExportDocument = z.infer<typeof exportDocumentSchema>;

export const IMPORT_PROBLEM_REASONS = [
  'tooLarge',
  'duplicatePath',
  'invalidAcl',
  'aclLocksOut',
  'aclNotGranted',
  'aclDeniesChildren',
  'underZookeeper',
] as const;
export type ImportProblemReason = (typeof IMPORT_PROBLEM_REASONS)[number];
export const MAX_REPORTED_PROBLEMS = 200;

/** Nodes a walk (count, export) could not read, and why; at most this many are listed. */
export const MAX_REPORTED_SKIPPED = 200;
export const skippedNodeSchema = z.object({ path: z.string(), reason: z.string() });
export type SkippedNode = z.infer<typeof skippedNodeSchema>;

export const IMPORT_CONFLICT_REASONS = ['dataDiffers', 'ephemeralInExport', 'ephemeralInTarget', 'invalidPath', 'changedMeanwhile', 'createFailed'] as const;

export const importPlanSchema = z.object({
  root: z.string(),
  /** Absent in the target: created (parents first), with the exported ACL. */
  create: z.array(z.string()),
  /** Present with other data, and overwrite=true: set, checked against the version read for this plan. */
  update: z.array(z.object({ path: z.string(), version: z.number() })),
  unchanged: z.array(z.string()),
  /** Left alone; the reason says why (dataDiffers: pass overwrite=true to update it). */
  conflicts: z.array(z.object({ path: z.string(), reason: z.enum(IMPORT_CONFLICT_REASONS) })),
  /**
   * What ZooKeeper (or Keeper) would refuse: with any of these the import is refused as a whole
   * before writing anything (400 IMPORT_REFUSED). Capped at MAX_REPORTED_PROBLEMS; `problemsTotal` counts all.
   */
  problems: z.optional(z.array(z.object({ path: z.string(), reason: z.enum(IMPORT_PROBLEM_REASONS), detail: z.string() }))),
  problemsTotal: z.optional(z.number()),
});
export type ImportPlan = z.infer<typeof importPlanSchema>;
