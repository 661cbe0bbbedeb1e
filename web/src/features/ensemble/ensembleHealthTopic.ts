/** The `ensembleHealth` topic in the web: the poller's latest result and the charts' history. */
import { useTopic } from '../../socket/hooks';
import { RELEASED_EPOCH } from '../../socket/topicRegistry';
import { defineBinding } from '../../socket/defineBinding';
import { reduceMemberHistory, type HealthEntry, type MemberHistoryEntry } from './healthEntries';

export interface EnsembleHealthEntry {
  health?: HealthEntry;
  history?: MemberHistoryEntry;
  epoch: number;
}

export const ensembleHealthQueryKey = (ensemble: string) => ['ensembles', ensemble, 'health'] as const;

export const ensembleHealthBinding = defineBinding<EnsembleHealthEntry>()({
  topic: 'ensembleHealth',
  queryKey: (ensemble) => ensembleHealthQueryKey(ensemble),
  reduce(prev, event, { epoch }) {
    const base = prev ?? { epoch };
    return event.kind === 'health'
      ? { ...base, health: { health: event.health, epoch }, epoch }
      : { ...base, history: reduceMemberHistory(base.history, event, epoch), epoch };
  },
  released: (prev) => ({
    epoch: RELEASED_EPOCH,
    ...(prev.health ? { health: { ...prev.health, epoch: RELEASED_EPOCH } } : {}),
    ...(prev.history ? { history: { ...prev.history, epoch: RELEASED_EPOCH } } : {}),
  }),
});

const NO_PARAMS = {};

/** Holds the ensemble's health subscription while mounted and reads it. */
export function useEnsembleHealthEntry(ensemble: string): EnsembleHealthEntry | undefined {
  useTopic('ensembleHealth', ensemble, NO_PARAMS);
  return ensembleHealthBinding.useEntry(ensemble, NO_PARAMS);
}
