/**
 * The `locks` topic: one page of the locks the ensemble's tracker watches, as GET .../locks
 * answers it (worst first, `q` and `limit` as asked), pushed after changes (at most every quarter
 * second) and after each watch gathering. The page comes from the tracker's kept reports, built
 * once for every subscriber with the same page and scope: a subscription adds no ZooKeeper watch,
 * no 4lw and no analysis. A share link's page passes its scope.
 */
import { LOCK_LIST_PAGE } from '@keeper/shared';
import type { TopicProducer } from './topicProducer.js';

export const locksProducer: TopicProducer<'locks'> = {
  topic: 'locks',
  open({ ensemble, params, scope, emit }) {
    const query = { path: '/', q: params.q ?? '', offset: 0, limit: params.limit ?? LOCK_LIST_PAGE };
    const send = () => emit({ kind: 'locks', locks: ensemble.locks.list(query, scope) });
    send();
    return ensemble.locks.onList(send);
  },
};
