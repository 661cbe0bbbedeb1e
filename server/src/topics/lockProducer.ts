/**
 * The `lock` topic: one lock directory with its contenders, pushed right after each change its
 * watch brings (a release moves the holder on screen within a second) and after each watch
 * gathering. The directory is tracked while someone subscribes; a path that is not a lock is let
 * go with the last subscriber (a viewer cannot fill the tracker with paths that are not locks).
 */
import { TooManyLocksError, type LockAnswer } from '../locks/lockTracker.js';
import type { TopicProducer } from './topicProducer.js';

export const lockProducer: TopicProducer<'lock'> = {
  topic: 'lock',
  open({ ensemble, params, emit }) {
    const { locks } = ensemble;
    const { path } = params;
    try {
      locks.track(path, 'opened');
    } catch (error) {
      if (!(error instanceof TooManyLocksError)) throw error;
      emit({ kind: 'notLock', path, message: error.message, at: Date.now() });
      return () => {};
    }
    const send = (answer: LockAnswer) => emit(answer.kind === 'lock' ? { kind: 'lock', lock: answer.lock } : answer);
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
