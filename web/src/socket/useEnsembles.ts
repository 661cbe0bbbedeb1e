/**
 * The ensembles this server knows. The welcome message fills the cache; the HTTP call is only
 * for the first paint (and for a page whose socket cannot connect at all).
 */
import { useQuery } from '@tanstack/react-query';
import { ensemblesResponseSchema, type EnsembleSummary } from '@keeper/shared';
import { queryKeys } from './queryKeys';

async function fetchEnsembles(): Promise<EnsembleSummary[]> {
  const res = await fetch('/api/ensembles');
  if (!res.ok) throw new Error(`GET /api/ensembles answered ${res.status}`);
  return ensemblesResponseSchema.parse(await res.json()).ensembles;
}

export function useEnsembles() {
  return useQuery({ queryKey: queryKeys.ensembles(), queryFn: fetchEnsembles, staleTime: Infinity, retry: 2 });
}
