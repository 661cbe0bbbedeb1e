/** The read failures of many subscribed paths at once (the tree's expanded nodes). */
import { useMemo } from 'react';
import { useTreeEntries } from './znodeTopic';
import { readFailureOf, type ReadFailure } from './readFailure';

export function useReadFailures(ensemble: string, paths: readonly string[]): Map<string, ReadFailure> {
  const { errors } = useTreeEntries(ensemble, paths);
  return useMemo(() => {
    const failures = new Map<string, ReadFailure>();
    for (const [path, error] of errors) {
      const failure = readFailureOf(error);
      if (failure) failures.set(path, failure);
    }
    return failures;
  }, [errors]);
}
