/** The `ensembleEvents` topic in the web: the timeline under one query key per ensemble. */
import { useTopic, useTopicEntry } from '../../socket/hooks';
import { RELEASED_EPOCH, registerTopic } from '../../socket/topicRegistry';
import { reduceEnsembleEvents, type EnsembleEventsEntry } from './ensembleEvents';

export const ensembleEventsQueryKey = (ensemble: string) => ['ensembles', ensemble, 'events'] as const;

registerTopic({
  topic: 'ensembleEvents',
  queryKey: (ensemble) => ensembleEventsQueryKey(ensemble),
  reduce: (prev: EnsembleEventsEntry | undefined, event, { epoch }) => reduceEnsembleEvents(prev, event, epoch),
  released: (prev: EnsembleEventsEntry) => ({ ...prev, epoch: RELEASED_EPOCH }),
});

const NO_PARAMS = {};

/** Holds the ensemble's timeline subscription while mounted and reads it. */
export function useEnsembleEvents(ensemble: string): EnsembleEventsEntry | undefined {
  useTopic('ensembleEvents', ensemble, NO_PARAMS);
  return useTopicEntry<EnsembleEventsEntry>(ensembleEventsQueryKey(ensemble));
}
