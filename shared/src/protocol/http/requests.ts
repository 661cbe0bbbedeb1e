/**
 * Query strings of the HTTP routes (bodies are in ops.ts and access.ts): the server parses with
 * these, and the OpenAPI document describes them. Query values arrive as text, hence coerce.
 */
import { z } from 'zod';
import { DEFAULT_CHILDREN_PAGE, MAX_CHILDREN_PAGE } from '../api.js';

export const MAX_AUDIT_PAGE = 1_000;

/** true, 1 or a bare `?flag` mean yes. */
const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === '');

const trueOrFalse = z.enum(['true', 'false']).optional();

/** A znode version: decimal digits only ("", "0x0", "1e3" and " 7" are not versions). */
const versionParam = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a decimal integer (the version you read)')
  .transform(Number)
  .pipe(z.number().int().min(0).max(2_147_483_647));

export const childrenPageQuerySchema = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(0).max(MAX_CHILDREN_PAGE).default(DEFAULT_CHILDREN_PAGE),
});

export const deleteQuerySchema = z.object({
  /** The version you read: a stale one deletes nothing (409 BAD_VERSION). */
  version: versionParam,
  /** Delete the whole subtree in a job (202 {job}). */
  recursive: trueOrFalse,
});

export const importQuerySchema = z.object({
  /** Plan only: what would be created, updated, left alone, refused. */
  dryRun: trueOrFalse,
  /** Update nodes whose data differs (else they are conflicts, left alone). */
  overwrite: trueOrFalse,
});

export const auditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_PAGE).default(100),
  /** The `next` of the previous page: entries older than this seq. */
  before: z.coerce.number().int().min(1).optional(),
});

export const sessionsQuerySchema = z.object({ refresh: flag });
export const watchesQuerySchema = z.object({ byPath: flag });

const memberCount = z.coerce.number().int().min(0).max(99);
export const sizingQuerySchema = z.object({
  /** A member (id or host:port) to imagine down. */
  down: z.string().min(1).max(300).optional(),
  /** The calculator: an ensemble of this many voters... */
  voters: memberCount.optional(),
  observers: memberCount.optional(),
  votersDown: memberCount.optional(),
});
