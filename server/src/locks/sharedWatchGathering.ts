/**
 * A Locks view gathering (wchp + cons of every member) as JSON, so that under sharedPolling the
 * elected replica gathers once for every replica and shares it through the home ensemble
 * (docs/operating/replicas.md). It travels whole, not cut to what one replica's Locks view reads: which
 * lock directories a replica tracks depends on what its own viewers opened, so each replica
 * keeps its own part on arrival (WatchGatherer's `keep`).
 */
import { z } from 'zod';

export const sharedWatchGatheringSchema = z.object({
  askedAt: z.number(),
  answeredAt: z.number(),
  complete: z.boolean(),
  /** [path, ids of the sessions watching it] */
  watches: z.array(z.tuple([z.string(), z.array(z.string())])),
  connectedSessions: z.array(z.string()).nullable(),
});
export type SharedWatchGathering = z.infer<typeof sharedWatchGatheringSchema>;
