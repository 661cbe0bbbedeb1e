/**
 * Watches: the cheap per-member summary (wchs) when the view opens, and the expensive by-path
 * listing (wchp) only when the operator asks and confirms. Neither refetches on a timer: the
 * summary refreshes on demand (or on coming back to a tab after it went stale); wchp is
 * rate-limited by the server and its answer is kept in the cache until replaced.
 */
import { useState } from 'react';
import { skipToken, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ROUTES, type WatchesAnswer } from '@keeper/shared';
import { call, ApiError } from '../../lib/api';
import { blockedUntil } from '../../lib/gatherSchedule';

export type ByPath = NonNullable<WatchesAnswer['byPath']>;

export const watchesKeys = {
  all: (ensemble: string) => ['ensembles', ensemble, 'watches'] as const,
  byPath: (ensemble: string) => ['ensembles', ensemble, 'watches', 'byPath'] as const,
};

/** The summary is old news after this; coming back to the tab then reads it again. */
export const SUMMARY_STALE_MS = 30_000;

export function useWatches(ensemble: string) {
  const client = useQueryClient();
  return useQuery({
    queryKey: watchesKeys.all(ensemble),
    queryFn: async ({ signal }) => {
      const data = await call(ROUTES.watches, { params: { name: ensemble }, signal });
      // A server that keeps its last wchp answer returns it here too: keep the newest.
      if (data.byPath) keepNewest(client, ensemble, data.byPath);
      return data;
    },
    staleTime: SUMMARY_STALE_MS,
    refetchOnWindowFocus: true,
    retry: 1,
  });
}

function keepNewest(client: QueryClient, ensemble: string, next: ByPath): void {
  client.setQueryData<ByPath>(watchesKeys.byPath(ensemble), (prev) => (prev && prev.gatheredAt > next.gatheredAt ? prev : next));
}

/** The last wchp answer, if any was asked for in this page's life (or the server still has one). */
export function useByPathResult(ensemble: string): ByPath | undefined {
  return useQuery<ByPath>({ queryKey: watchesKeys.byPath(ensemble), queryFn: skipToken, staleTime: Infinity }).data;
}

export function useRunByPath(ensemble: string) {
  const client = useQueryClient();
  const [blocked, setBlocked] = useState<number | null>(null);
  const mutation = useMutation({
    mutationFn: () => call(ROUTES.watches, { params: { name: ensemble }, query: { byPath: 'true' } }),
    onSuccess: (data) => {
      client.setQueryData(watchesKeys.all(ensemble), data);
      if (data.byPath) keepNewest(client, ensemble, data.byPath);
      // The answer's byPathNextInSeconds (now in the summary query's data) says when the next run is allowed.
      setBlocked(null);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.status === 429) setBlocked(blockedUntil(Date.now(), error.retryAfterSeconds));
    },
  });
  return { run: () => mutation.mutate(), pending: mutation.isPending, error: mutation.error, refusedUntil: blocked };
}
