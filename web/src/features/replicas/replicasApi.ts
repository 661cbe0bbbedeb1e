/**
 * GET /api/replicas, asked again every REFRESH_MS while the panel is open. The list is as of the
 * server's own reading of the registry (`readAt`), not of the browser's receipt: `freshnessOf`
 * says when it is no longer confirmed (a refresh unanswered for UNCONFIRMED_AFTER_MS past that
 * reading, or refused), so the panel shows it "as of" that time instead of presenting it as live.
 */
import { useQuery } from '@tanstack/react-query';
import { ROUTES, type Replica, type ReplicaHealth, type ReplicasAnswer } from '@keeper/shared';
import { call } from '../../lib/api';
import { formatClock } from '../../lib/time';
import type { Freshness } from '../../app/freshness/freshness';
import type { Tone } from '../../ui/tone';

export const REFRESH_MS = 2_000;
/**
 * The truth rule: within 3 s of the last confirmed reading, a refresh still unanswered is said.
 * Said at 2.5 s, so that the timer, the render and a busy browser still fit in the 3 s (at 3 s the
 * panel was seen 3.01 s after a freeze). A refresh is asked at 2 s: one answered within half a
 * second never shows the mark.
 */
export const UNCONFIRMED_AFTER_MS = 2_500;

export const replicasQueryKey = ['replicas'] as const;

/** One answer and when its reading was, on the browser's clock (never later than it can have been). */
export interface ReplicasReading {
  answer: ReplicasAnswer;
  /**
   * When the server read the registry, on this browser's clock: the moment this refresh was asked,
   * less how old the reading was when the server sent it (`answeredAt - readAt`). Clock skew between
   * the browser and the server plays no part, and the answer's travel only makes it earlier.
   */
  confirmedAt: number;
}

export async function readReplicas(): Promise<ReplicasReading> {
  const askedAt = Date.now();
  const answer = await call(ROUTES.replicas, {});
  const ageWhenSent = Math.max(0, (answer.answeredAt ?? answer.readAt) - answer.readAt);
  return { answer, confirmedAt: askedAt - ageWhenSent };
}

export function useReplicas() {
  return useQuery({
    queryKey: replicasQueryKey,
    queryFn: readReplicas,
    staleTime: 0,
    refetchInterval: REFRESH_MS,
    // A 503 (this replica not registered) is an answer worth showing at once, not after retries.
    retry: false,
  });
}

/**
 * Whether the list on screen is confirmed. Not live once the last ask was refused, or once a
 * refresh has gone unanswered past UNCONFIRMED_AFTER_MS after the reading shown (or no refresh was
 * asked for a whole refresh longer: a hidden tab's timers). "As of" is the server's reading time.
 */
export function freshnessOf(reading: ReplicasReading | undefined, failed: string | null, fetching: boolean, now: number): Freshness {
  if (!reading) return { live: false, asOf: null, reason: failed ?? 'not read yet' };
  const asOf = reading.answer.readAt;
  if (failed !== null) return { live: false, asOf, reason: failed };
  const quiet = now - reading.confirmedAt;
  if (quiet > UNCONFIRMED_AFTER_MS && (fetching || quiet > UNCONFIRMED_AFTER_MS + REFRESH_MS))
    return {
      live: false,
      asOf,
      label: 'unconfirmed, as of',
      reason: fetching ? 'Keeper has not answered the refresh' : 'not refreshed',
    };
  return { live: true };
}

/** When a live list stops being confirmed if no answer comes (null: not live now, or nothing read). */
export function unconfirmedAt(reading: ReplicasReading | undefined): number | null {
  return reading ? reading.confirmedAt + UNCONFIRMED_AFTER_MS + 1 : null;
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
  for (const u of replica.upgrades)
    roles.push(
      u.unconfirmedSince === undefined
        ? `runs the upgrade of ${u.ensemble}`
        : // Killed or cut off: ZooKeeper names it the owner until its session ends; Keeper knows only when it last answered.
          `named to run the upgrade of ${u.ensemble}, unconfirmed since ${formatClock(u.unconfirmedSince)} (not answering): another replica takes it over when its session ends`,
    );
  return roles;
}
