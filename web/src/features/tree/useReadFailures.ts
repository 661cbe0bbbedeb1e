/** The read failures of many subscribed paths at once (the tree's expanded nodes). */
import { skipToken, useQueries } from '@tanstack/react-query';
import type { SubscriptionErrorEntry } from '../../socket/cacheEntries';
import { queryKeys } from '../../socket/queryKeys';
import { readFailureOf, type ReadFailure } from './readFailure';

export function useReadFailures(ensemble: string, paths: readonly string[]): Map<string, ReadFailure> {
  return useQueries({
    queries: paths.map((p) => ({ queryKey: queryKeys.subscriptionError(ensemble, p), queryFn: skipToken, staleTime: Infinity })),
    combine: (results) => {
      const failures = new Map<string, ReadFailure>();
      paths.forEach((p, i) => {
        const failure = readFailureOf(results[i]?.data as SubscriptionErrorEntry | null | undefined);
        if (failure) failures.set(p, failure);
      });
      return failures;
    },
  });
}
