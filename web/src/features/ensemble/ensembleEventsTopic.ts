/** The `ensembleEvents` topic in the web: the timeline under one query key per ensemble. */
import { useTopic } from '../../socket/hooks';
import { RELEASED_EPOCH } from '../../socket/topicRegistry';
import { defineBinding } from '../../socket/defineBinding';
import { reduceEnsembleEvents, type EnsembleEventsEntry } from './ensembleEvents';

export const ensembleEventsQueryKey = (ensemble: string) => ['ensembles', ensemble, 'events'] as const;

export const ensembleEventsBinding = defineBinding<EnsembleEventsEntry>()({
  topic: 'ensembleEvents',
  queryKey: (ensemble) => ensembleEventsQueryKey(ensemble),
  reduce: (prev, event, { epoch }) => reduceEnsembleEvents(prev, event, epoch),
  released: (prev) => ({ ...prev, epoch: RELEASED_EPOCH }),
});

const NO_PARAMS = {};

/** Holds the ensemble's timeline subscription while mounted and reads it. */
export function useEnsembleEvents(ensemble: string): EnsembleEventsEntry | undefined {
  useTopic('ensembleEvents', ensemble, NO_PARAMS);
  return ensembleEventsBinding.useEntry(ensemble, NO_PARAMS);
}
