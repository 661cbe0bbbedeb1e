/**
 * Query strings of the HTTP routes (bodies are in ops.ts and access.ts): the server parses with
 * these, and the OpenAPI document describes them. Query values arrive as text, hence coerce.
 */
import { z } from 'zod/mini';
import { DEFAULT_CHILDREN_PAGE, MAX_CHILDREN_PAGE } from '../api.js';

export const MAX_AUDIT_PAGE = 1_000;

/** true, 1 or a bare `?flag` mean yes. */
const flag = z.pipe(
  z.optional(z.enum(['true', 'false', '1', '0', ''])),
  z.transform((v) => v === 'true' || v === '1' || v === ''),
);

const trueOrFalse = z.optional(z.enum(['true', 'false']));

/** A znode version: decimal digits only ("", "0x0", "1e3" and " 7" are not versions). */
const versionParam = z.pipe(
  z.pipe(z.string().check(z.regex(/^\d{1,10}$/, 'must be a decimal integer (the version you read)')), z.transform(Number)),
  z.int().check(z.gte(0), z.lte(2_147_483_647)),
);

export const childrenPageQuerySchema = z.object({
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0)), 0),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(MAX_CHILDREN_PAGE)), DEFAULT_CHILDREN_PAGE),
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
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(MAX_AUDIT_PAGE)), 100),
  /** The `next` of the previous page: entries older than this seq. */
  before: z.optional(z.coerce.number().check(z.int(), z.gte(1))),
});

export const sessionsQuerySchema = z.object({ refresh: flag });
export const watchesQuerySchema = z.object({ byPath: flag });

const memberCount = z.coerce.number().check(z.int(), z.gte(0), z.lte(99));
export const sizingQuerySchema = z.object({
  /** A member (id or host:port) to imagine down. */
  down: z.optional(z.string().check(z.minLength(1), z.maxLength(300))),
  /** The calculator: an ensemble of this many voters... */
  voters: z.optional(memberCount),
  observers: z.optional(memberCount),
  votersDown: z.optional(memberCount),
});
