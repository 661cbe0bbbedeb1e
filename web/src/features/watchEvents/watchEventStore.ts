/** The live log of watch events, fed by the socket provider once per server batch. */
import { createStore, type Store } from '../../lib/store';
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
