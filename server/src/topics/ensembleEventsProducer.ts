/** The `ensembleEvents` topic: the timeline kept so far, then each event as the poller (or the upgrade) adds it,
 * and the whole again when the previous processes' events are read (once the ensemble's identity is known). */
import type { TopicProducer } from './topicProducer.js';

export const ensembleEventsProducer: TopicProducer<'ensembleEvents'> = {
  topic: 'ensembleEvents',
  open({ ensemble, emit }) {
    const { timeline } = ensemble;
    emit({ kind: 'events', mode: 'full', events: timeline.list() });
    return timeline.subscribe(({ mode, events }) => emit({ kind: 'events', mode, events: [...events] }));
  },
};
