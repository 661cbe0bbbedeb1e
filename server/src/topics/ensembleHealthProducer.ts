/**
 * The `ensembleHealth` topic: the member poller's kept history, then its latest result, then
 * both after every poll. One poller per ensemble feeds every browser; while any browser looks, the
 * sessions are gathered once per cadence (shared), so a request herd is among the alerts.
 */
import type { TopicProducer } from './topicProducer.js';

export const ensembleHealthProducer: TopicProducer<'ensembleHealth'> = {
  topic: 'ensembleHealth',
  open({ ensemble, emit }) {
    const feed = ensemble.poller;
    // Someone looks at the ensemble: gather sessions each cadence, so a request herd is among its alerts.
    const release = ensemble.sessions.keepGathering();
    // History first, then the current state: the browser draws charts and cards from one batch.
    emit({ kind: 'history', mode: 'full', history: feed.history() });
    const current = feed.current();
    if (current) emit({ kind: 'health', health: current });
    const stop = feed.subscribe((health, appended) => {
      emit({ kind: 'history', mode: 'append', history: appended });
      emit({ kind: 'health', health });
    });
    return () => {
      stop();
      release();
    };
  },
};
