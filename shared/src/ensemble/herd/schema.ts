/** The request-rate herd as the /sessions answer carries it (detect.ts finds it). */
import { z } from 'zod';

export const requestHerdSchema = z.object({
  /** Sessions in the herd. */
  sessions: z.number(),
  /** Their requests per second together. */
  requestsPerSecond: z.number(),
  /** The slowest and fastest of them (requests per second). */
  minRate: z.number(),
  maxRate: z.number(),
  /** Client hosts, busiest first. */
  hosts: z.array(z.object({ host: z.string(), sessions: z.number(), requestsPerSecond: z.number() })),
  /** The operation most of them last sent (cons `lop`: GETC is getChildren), when one dominates. */
  operation: z.string().nullable(),
  /** Their mean average latency and their worst maximum (ms), and the other sessions' mean average. */
  latencyAvgMs: z.number().nullable(),
  latencyMaxMs: z.number().nullable(),
  othersLatencyAvgMs: z.number().nullable(),
  /** How many of them had a request wait at least `slowRequestMs` (cons maxlat). */
  slowSessions: z.number(),
  slowRequestMs: z.number(),
  /** The most requests outstanding on one member, and queued for the herd's connections together. */
  outstanding: z.number().nullable(),
  queued: z.number(),
  /** The znode they most likely hammer, when Keeper holds it already: a very large child list. */
  target: z.object({ path: z.string(), numChildren: z.number(), pzxidChanging: z.boolean() }).nullable(),
});
export type RequestHerd = z.infer<typeof requestHerdSchema>;
