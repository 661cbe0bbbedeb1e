/**
 * The JSON answers of the HTTP routes that api.ts, ops.ts, access.ts and ensemble/types.ts do not
 * already declare: written once here, used by the server to type what it sends, by the web to
 * parse what it gets, and by the OpenAPI document (routes.ts).
 */
import { z } from 'zod/mini';
import { aclEntrySchema, importPlanSchema, jobSnapshotSchema, skippedNodeSchema } from '../ops.js';
import { auditEntrySchema, shareLinkSchema } from '../access.js';
import { statSchema } from '../schemas.js';

/** create and setData: where the value is now and its stat. */
export const writeAnswerSchema = z.object({
  /** For a sequential create: the name ZooKeeper gave it. */
  path: z.string(),
  stat: statSchema,
  /** After a lost reply resolved by reading back ("reply lost; read back: applied"). */
  note: z.optional(z.string()),
  /** create with an ephemeral mode: the node belongs to the console's own session. */
  warning: z.optional(z.string()),
});
export type WriteAnswer = z.infer<typeof writeAnswerSchema>;

export const deleteAnswerSchema = z.object({ path: z.string(), note: z.optional(z.string()) });
export type DeleteAnswer = z.infer<typeof deleteAnswerSchema>;

export const subtreeCountSchema = z.object({
  path: z.string(),
  /** Nodes a recursive delete (or an export) would touch, the root included. */
  count: z.number(),
  /** True past the server's counting limit (200,000): "at least". */
  truncated: z.boolean(),
  depth: z.number(),
  /** Nodes the console may not list, so the count is short below them. */
  skipped: z.optional(z.array(skippedNodeSchema)),
  skippedTotal: z.optional(z.number()),
});
export type SubtreeCount = z.infer<typeof subtreeCountSchema>;

export const aclAnswerSchema = z.object({ path: z.string(), acl: z.array(aclEntrySchema), stat: statSchema });
export type AclAnswer = z.infer<typeof aclAnswerSchema>;
export const setAclAnswerSchema = z.extend(aclAnswerSchema, { note: z.optional(z.string()) });
export type SetAclAnswer = z.infer<typeof setAclAnswerSchema>;

export const importPreviewSchema = z.object({ dryRun: z.literal(true), overwrite: z.boolean(), plan: importPlanSchema });
export type ImportPreview = z.infer<typeof importPreviewSchema>;

/** A job started (202), read or cancelled. */
export const jobAnswerSchema = z.object({ job: jobSnapshotSchema });
export const jobsAnswerSchema = z.object({ jobs: z.array(jobSnapshotSchema) });

export const shareLinksAnswerSchema = z.object({ links: z.array(shareLinkSchema) });

export const auditPageSchema = z.object({
  entries: z.array(auditEntrySchema),
  /** Pass as `before` for the next (older) page; absent when this page reached the beginning. */
  next: z.optional(z.number()),
  /** With replicas: the entries are the shared recent window of every replica, bounded as said here; older ones are in each replica's file. */
  shared: z.optional(z.object({ maxEntries: z.number(), maxBytes: z.number(), note: z.string() })),
});
export type AuditPage = z.infer<typeof auditPageSchema>;

/** GET .../stat/<path>: the stat alone, from `exists` (no ACL permission needed). */
export const znodeStatAnswerSchema = z.object({
  path: z.string(),
  /** null when no node is at the path. */
  stat: z.nullable(statSchema),
});
export type ZnodeStatAnswer = z.infer<typeof znodeStatAnswerSchema>;

/** Headers of GET .../data/<path>, whose body is the node's bytes exactly. */
export const ZNODE_DATA_HEADERS = {
  /** stat.version of the bytes sent: the version a setData must name. */
  version: 'X-Keeper-Version',
  mzxid: 'X-Keeper-Mzxid',
} as const;
