/**
 * The `locks` topic: every lock the ensemble's tracker watches, as GET .../locks answers, pushed
 * after changes (at most every quarter second) and after each watch gathering. One tracker per
 * ensemble feeds every browser: a subscription adds no ZooKeeper watch and no 4lw.
 */
import type { TopicProducer } from './topicProducer.js';

export const locksProducer: TopicProducer<'locks'> = {
  topic: 'locks',
  open({ ensemble, emit }) {
    emit({ kind: 'locks', locks: ensemble.locks.list('/') });
    // Later pushes: one answer computed for every subscriber.
    return ensemble.locks.onList((locks) => emit({ kind: 'locks', locks }));
  },
};
