/**
 * The live log of watch events: a tap on the `znode` topic appends every watch event the page's
 * subscriptions receive, one append per server batch.
 */
import { createStore, type Store } from '../../../lib/store';
import { tapTopic } from '../../../socket/topicRegistry';
import { appendWatchEvents, type WatchEventRecord } from './watchEventLog';

export interface WatchEventStore extends Store<readonly WatchEventRecord[]> {
  append(events: readonly Omit<WatchEventRecord, 'seq'>[]): void;
  /** The seq the next event will get; pausing stores lastSeq() to know what is "new". */
  lastSeq(): number;
}

export function createWatchEventStore(): WatchEventStore {
  const store = createStore<readonly WatchEventRecord[]>([]);
  let nextSeq = 1;
  return {
    ...store,
    append(events) {
      if (events.length === 0) return;
      const before = store.get();
      const after = appendWatchEvents(before, events, nextSeq);
      nextSeq = (after[0]?.seq ?? nextSeq - 1) + 1;
      if (after !== before && after[0] !== before[0]) store.set(after);
    },
    lastSeq: () => nextSeq - 1,
  };
}

/** The page's one log. */
export const watchEventStore = createWatchEventStore();

// Events of one batch are collected and appended together after it: one update of the log per batch.
let pending: Omit<WatchEventRecord, 'seq'>[] = [];
tapTopic('znode', (ensemble, params, event) => {
  if (event.kind !== 'watchEvent') return;
  if (pending.length === 0) queueMicrotask(flush);
  pending.push({ ensemble, path: params.path, event: event.event, at: event.at });
});

function flush(): void {
  const events = pending;
  pending = [];
  watchEventStore.append(events);
}
