import { useSyncExternalStore } from 'react';
import type { WatchEventRecord } from './watchEventLog';
import { watchEventStore } from './watchEventStore';

export function useWatchEventLog(): readonly WatchEventRecord[] {
  return useSyncExternalStore(watchEventStore.subscribe, watchEventStore.get);
}
