/** JSON shapes of the HTTP API (GET /api/...), shared so scripts, tests and the web agree. */
import { z } from 'zod/mini';
import { encodedDataSchema, ensembleSummarySchema, statSchema } from './schemas.js';

export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  uptimeSeconds: z.number(),
  ensembles: z.array(z.object({ name: z.string(), state: z.string() })),
});
export type HealthAnswer = z.infer<typeof healthSchema>;

export const ensemblesAnswerSchema = z.object({ ensembles: z.array(ensembleSummarySchema) });

export const znodeAnswerSchema = z.object({
  ensemble: z.string(),
  path: z.string(),
  stat: statSchema,
  data: encodedDataSchema,
  children: z.object({
    total: z.number(),
    offset: z.number(),
    limit: z.number(),
    /** Sorted in natural order, so pages are stable. */
    names: z.array(z.string()),
  }),
});
export type ZnodeAnswer = z.infer<typeof znodeAnswerSchema>;

export const MAX_CHILDREN_PAGE = 10_000;
export const DEFAULT_CHILDREN_PAGE = 1_000;
