/** The request-rate herd as the /sessions answer carries it (detect.ts finds it). */
import { z } from 'zod/mini';

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
  operation: z.nullable(z.string()),
  /** Their mean average latency and their worst maximum (ms), and the other sessions' mean average. */
  latencyAvgMs: z.nullable(z.number()),
  latencyMaxMs: z.nullable(z.number()),
  othersLatencyAvgMs: z.nullable(z.number()),
  /** How many of them had a request wait at least `slowRequestMs` (cons maxlat). */
  slowSessions: z.number(),
  slowRequestMs: z.number(),
  /** The most requests outstanding on one member, and queued for the herd's connections together. */
  outstanding: z.nullable(z.number()),
  queued: z.number(),
  /** The znode they most likely hammer, when Keeper holds it already: a very large child list. */
  target: z.nullable(z.object({ path: z.string(), numChildren: z.number(), pzxidChanging: z.boolean() })),
  /** Added: the operations they last sent (cons `lop`), most common first, with how many of them. */
  operations: z.optional(z.array(z.object({ operation: z.string(), sessions: z.number() }))),
  /** Added: why it is a herd: its summed rate is high (`rate`), or its share of all requests is (`share`). */
  rule: z.optional(z.enum(['rate', 'share'])),
  /** Added: the client group it was found in: one host, one operation across hosts, or all active sessions. */
  group: z.optional(z.object({ kind: z.enum(['host', 'operation', 'all']), key: z.nullable(z.string()) })),
  /** Added: its share of the requests all sessions sent (0-1), and those requests per second. */
  shareOfRequests: z.optional(z.nullable(z.number())),
  allRequestsPerSecond: z.optional(z.number()),
  /** Added: its sessions (sorted), so a later gathering can measure the same ones. */
  sessionIds: z.optional(z.array(z.string())),
  /**
   * Added: what the latest wchp Keeper already had says (the Watches or Locks view's gathering, never
   * one asked for this): the paths at least half of them watch; null when there is no recent wchp.
   */
  watched: z.optional(
    z.nullable(
      z.object({
        gatheredAt: z.number(),
        complete: z.boolean(),
        source: z.enum(['watches', 'locks']),
        paths: z.array(z.object({ path: z.string(), herdWatchers: z.number(), watchers: z.number() })),
      }),
    ),
  ),
  /** Added: when it was first named, and the gatherings since then that measured it below the threshold (it clears after `clearsAfter`). */
  namedSince: z.optional(z.number()),
  gatheringsBelow: z.optional(z.number()),
  clearsAfter: z.optional(z.number()),
  /**
   * Added: below the threshold, but still named because its sessions send enough of the same request
   * together, and most of all requests (holdRate): it does not fade while that stands out.
   */
  heldByAggregate: z.optional(z.boolean()),
  /** Added: the gathering these figures come from. */
  measuredAt: z.optional(z.number()),
});
export type RequestHerd = z.infer<typeof requestHerdSchema>;
