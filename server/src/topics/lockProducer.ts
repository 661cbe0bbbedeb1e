/**
 * The `lock` topic: one lock directory with its contenders, pushed right after each change its
 * watch brings (a release moves the holder on screen within a second) and after each watch
 * gathering. The directory is tracked while someone subscribes, under the opened directories' own
 * quota; a path that is not a lock is let go with the last subscriber, a lock a few minutes after
 * (a viewer cannot fill the tracker, nor keep what it opened forever).
 */
import { TooManyLocksError, type LockLookup } from '../locks/lockTracker.js';
import type { TopicProducer } from './topicProducer.js';

export const lockProducer: TopicProducer<'lock'> = {
  topic: 'lock',
  open({ ensemble, params, scope, emit }) {
    const { locks } = ensemble;
    const { path } = params;
    try {
      locks.track(path, 'opened');
    } catch (error) {
      if (!(error instanceof TooManyLocksError)) throw error;
      emit({ kind: 'notLock', path, message: error.message, at: Date.now() });
      return () => {};
    }
    // A share link's answer passes its scope (subtree, owners and addresses); everyone else's is the shared one.
    const send = (answer: LockLookup) => {
      const scoped = scope === null ? answer : locks.answerFor(path, scope);
      emit(scoped.kind === 'lock' ? { kind: 'lock', lock: scoped.lock } : scoped);
    };
    // Later pushes: one answer computed for every subscriber of this directory.
    const stop = locks.onLock(path, send);
    send(locks.answerFor(path));
    return () => {
      stop();
      locks.releaseOpened(path);
    };
  },
  // Tracking a directory nobody watches yet sets a ZooKeeper watch on it.
  addsWatch: (ensemble, params) => !ensemble.locks.isTracked(params.path) && !ensemble.gateway.watches.isWatched(params.path),
};
