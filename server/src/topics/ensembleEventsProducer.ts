/** The `ensembleEvents` topic: the timeline kept so far, then each event as the poller (or the upgrade) adds it. */
import type { TopicProducer } from './topicProducer.js';

export const ensembleEventsProducer: TopicProducer<'ensembleEvents'> = {
  topic: 'ensembleEvents',
  open({ ensemble, emit }) {
    const { timeline } = ensemble;
    emit({ kind: 'events', mode: 'full', events: timeline.list() });
    return timeline.subscribe((appended) => emit({ kind: 'events', mode: 'append', events: [...appended] }));
  },
};
