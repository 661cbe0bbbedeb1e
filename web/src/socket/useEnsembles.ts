/**
 * The ensembles this server knows. The welcome message fills the cache; the HTTP call is only
 * for the first paint (and for a page whose socket cannot connect at all).
 */
import { useQuery } from '@tanstack/react-query';
import { ROUTES, type EnsembleSummary } from '@keeper/shared';
import { call } from '../lib/api';
import { queryKeys } from './queryKeys';

async function fetchEnsembles(): Promise<EnsembleSummary[]> {
  return (await call(ROUTES.ensembles, {})).ensembles;
}

export function useEnsembles() {
  return useQuery({ queryKey: queryKeys.ensembles(), queryFn: fetchEnsembles, staleTime: Infinity, retry: 2 });
}
