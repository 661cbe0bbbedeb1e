import { useSyncExternalStore } from 'react';
import { useSocket } from '../../socket/socketContext';
import type { WatchEventRecord } from './watchEventLog';

export function useWatchEventLog(): readonly WatchEventRecord[] {
  const { watchEvents } = useSocket();
  return useSyncExternalStore(watchEvents.subscribe, watchEvents.get);
}
