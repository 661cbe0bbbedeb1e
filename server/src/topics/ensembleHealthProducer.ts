/**
 * The `ensembleHealth` topic: the member poller's kept history, then its latest result, then
 * both after every poll. One poller per ensemble feeds every browser.
 */
import type { TopicProducer } from './topicProducer.js';

export const ensembleHealthProducer: TopicProducer<'ensembleHealth'> = {
  topic: 'ensembleHealth',
  open({ ensemble, emit }) {
    const feed = ensemble.poller;
    // History first, then the current state: the browser draws charts and cards from one batch.
    emit({ kind: 'history', mode: 'full', history: feed.history() });
    const current = feed.current();
    if (current) emit({ kind: 'health', health: current });
    return feed.subscribe((health, appended) => {
      emit({ kind: 'history', mode: 'append', history: appended });
      emit({ kind: 'health', health });
    });
  },
};
