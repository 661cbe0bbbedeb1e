/**
 * GET /api/replicas, asked again every REFRESH_MS while the panel is open. The list is only as
 * fresh as its last answer: `freshnessOf` says when it is no longer confirmed (a refresh missed or
 * refused), so the panel shows "as of" the last answer's own time instead of presenting it as live.
 */
import { useQuery } from '@tanstack/react-query';
import { ROUTES, type Replica, type ReplicaHealth, type ReplicasAnswer } from '@keeper/shared';
import { call } from '../../lib/api';
import type { Tone } from '../../ui/tone';

export const REFRESH_MS = 2_000;
/** Past this without an answer the list is not live (two refreshes missed: within 3 s of the first). */
export const STALE_AFTER_MS = 4_500;

export const replicasQueryKey = ['replicas'] as const;

export function useReplicas() {
  return useQuery({
    queryKey: replicasQueryKey,
    queryFn: () => call(ROUTES.replicas, {}),
    staleTime: 0,
    refetchInterval: REFRESH_MS,
    // A 503 (this replica not registered) is an answer worth showing at once, not after retries.
    retry: false,
  });
}

export type ListFreshness = { live: true } | { live: false; asOf: number | null; reason: string };

/** Whether the list on screen is confirmed: answered within STALE_AFTER_MS and the last ask not refused. */
export function freshnessOf(answer: ReplicasAnswer | undefined, receivedAt: number, failed: string | null, now: number): ListFreshness {
  if (!answer) return { live: false, asOf: null, reason: failed ?? 'not read yet' };
  if (failed !== null) return { live: false, asOf: answer.readAt, reason: failed };
  if (now - receivedAt > STALE_AFTER_MS) return { live: false, asOf: answer.readAt, reason: 'Keeper has not answered the last refreshes' };
  return { live: true };
}

export const HEALTH_WORDS: Record<ReplicaHealth['state'], { word: string; tone: Tone }> = {
  serving: { word: 'serving', tone: 'live' },
  degraded: { word: 'degraded', tone: 'degraded' },
  unreachable: { word: 'not answering', tone: 'lost' },
};

/** What the replica does for all, in words: polls the members, runs an upgrade. */
export function rolesOf(replica: Replica, sharedPolling: boolean): string[] {
  const roles: string[] = [];
  // Elected while its session lives; a poller that does not answer is not polling, and says so.
  if (sharedPolling && replica.poller)
    roles.push(
      replica.health.state === 'unreachable' ? 'elected to poll, not answering: another takes over when its session ends' : 'polls the members for all',
    );
  for (const u of replica.upgrades) roles.push(`runs the upgrade of ${u.ensemble}`);
  return roles;
}
