/**
 * The sizing endpoint: the live ensemble's report and a what-if (`?down=`), and the calculator
 * (`?voters=&observers=`). Both answers are pure functions of their inputs, so nothing refetches
 * on a timer: the live report's key carries the members' states and changes only when one does.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { sizingResponseSchema, type MemberStatus } from '@keeper/shared';
import { getJson } from '../api/fetchJson';
import { apiEnsembleUrl } from '../urls';

export const sizingKeys = {
  all: (ensemble: string) => ['ensembles', ensemble, 'sizing'] as const,
  live: (ensemble: string, down: string | null, states: string) => ['ensembles', ensemble, 'sizing', 'live', { down, states }] as const,
  calculator: (ensemble: string, voters: number, observers: number) =>
    ['ensembles', ensemble, 'sizing', 'calculator', { voters, observers }] as const,
};

/** "h1:p=leader,h2:p=follower": changes exactly when the answer can. */
export function statesSignature(members: readonly Pick<MemberStatus, 'address' | 'state' | 'configuredRole'>[]): string {
  return members.map((m) => `${m.address}=${m.state}/${m.configuredRole ?? '?'}`).join(',');
}

export function useLiveSizing(ensemble: string, down: string | null, states: string, enabled: boolean) {
  return useQuery({
    queryKey: sizingKeys.live(ensemble, down, states),
    queryFn: ({ signal }) => getJson(apiEnsembleUrl(ensemble, 'sizing', { down: down ?? undefined }), sizingResponseSchema, signal),
    enabled,
    staleTime: Infinity,
    // Between member state changes the previous answer is still the best one to show.
    placeholderData: keepPreviousData,
  });
}

export function useCalculator(ensemble: string, voters: number, observers: number) {
  return useQuery({
    queryKey: sizingKeys.calculator(ensemble, voters, observers),
    queryFn: ({ signal }) => getJson(apiEnsembleUrl(ensemble, 'sizing', { voters, observers }), sizingResponseSchema, signal),
    staleTime: Infinity,
    placeholderData: keepPreviousData,
    select: (r) => r.calculator ?? null,
  });
}
