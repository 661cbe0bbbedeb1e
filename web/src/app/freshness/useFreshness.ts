import { useConnectionStatus } from '../../socket/hooks';
import { useSessionEntry } from '../consoleSession/consoleSessionTopic';
import { computeFreshness, type Freshness } from './freshness';

export function useFreshness(ensemble: string, entryEpoch?: number): Freshness {
  const status = useConnectionStatus();
  const session = useSessionEntry(ensemble);
  return computeFreshness(status, session, entryEpoch);
}
