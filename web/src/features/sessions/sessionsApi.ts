/**
 * The sessions snapshot (cons joined with dump, gathered by the server at most once per rate
 * window, shared by every caller) and "gather now". The query re-reads it on refetchDelay, only
 * while this view is mounted and the tab visible; "gather now" writes its answer into the cache.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ROUTES, type SessionsAnswer } from '@keeper/shared';
import { call, ApiError } from '../../lib/api';
import { blockedUntil, refetchDelay, refetchIn } from '../../lib/gatherSchedule';

export const sessionsKeys = {
  all: (ensemble: string) => ['ensembles', ensemble, 'sessions'] as const,
};

export function useSessions(ensemble: string) {
  return useQuery({
    queryKey: sessionsKeys.all(ensemble),
    queryFn: ({ signal }) => call(ROUTES.sessions, { params: { name: ensemble }, signal }),
    staleTime: (q) => (q.state.data ? refetchDelay(q.state.data.nextGatherInSeconds) : 0),
    // Counted from when the answer arrived, also when the view mounts again with an older one.
    refetchInterval: (q) => (q.state.data ? refetchIn(q.state.dataUpdatedAt, q.state.data.nextGatherInSeconds, Date.now()) : false),
    // TanStack pauses the interval while the tab is hidden; coming back refetches only if stale.
    refetchIntervalInBackground: false,
    refetchOnWindowFocus: true,
    retry: 1,
  });
}

export function useGatherNow(ensemble: string) {
  const client = useQueryClient();
  const [blocked, setBlocked] = useState<number | null>(null);
  const mutation = useMutation({
    mutationFn: () => call(ROUTES.sessions, { params: { name: ensemble }, query: { refresh: 'true' } }),
    onSuccess: (data: SessionsAnswer) => {
      // Asked inside the rate window, the server answers with its cached gathering and says when the next is allowed.
      client.setQueryData(sessionsKeys.all(ensemble), data);
      setBlocked(null);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.status === 429) setBlocked(blockedUntil(Date.now(), error.retryAfterSeconds));
    },
  });
  return { gather: () => mutation.mutate(), pending: mutation.isPending, error: mutation.error, refusedUntil: blocked };
}
