/**
 * The ensemble's live health for a view: holds the socket's ensemble watch while mounted and
 * reads what the poller pushed (health each poll, ~15 min of history), with its freshness.
 */
import { useEffect, useState } from 'react';
import type { EnsembleHealth, MemberHistory } from '@keeper/shared';
import { useConnectionStatus } from '../../socket/hooks';
import { useEnsembleHealthEntry } from './ensembleHealthTopic';
import type { Freshness } from '../../app/freshness/freshness';
import { healthFreshness, silenceLimit } from './healthFreshness';

export interface EnsembleHealthView {
  health: EnsembleHealth | undefined;
  history: MemberHistory | undefined;
  freshness: Freshness;
}

/** True once `limitMs` pass without `polledAt` changing; false again as soon as a new poll arrives. */
function useSilence(polledAt: number | undefined, limitMs: number): boolean {
  const [silentFor, setSilentFor] = useState<number | undefined>(undefined);
  useEffect(() => {
    if (polledAt === undefined) return;
    const timer = window.setTimeout(() => setSilentFor(polledAt), limitMs);
    return () => window.clearTimeout(timer);
  }, [polledAt, limitMs]);
  return polledAt !== undefined && silentFor === polledAt;
}

export function useEnsembleHealth(ensemble: string): EnsembleHealthView {
  const topic = useEnsembleHealthEntry(ensemble);
  const entry = topic?.health;
  const history = topic?.history;
  const status = useConnectionStatus();
  const silent = useSilence(entry?.health.polledAt, silenceLimit(entry?.health.pollIntervalMs ?? 5_000));
  return { health: entry?.health, history: history?.history, freshness: healthFreshness(status, entry, silent) };
}
