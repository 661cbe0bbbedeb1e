import { useIsAdmin } from '../auth/me';
import { useFreshness } from '../freshness/useFreshness';
import { LocksList } from './LocksList';
import { useLocksEntry } from './locksTopics';

/** The list's data: the `locks` topic while mounted, judged for freshness like every other view. */
export function LocksListView({ ensemble }: { ensemble: string }) {
  const entry = useLocksEntry(ensemble);
  const freshness = useFreshness(ensemble, entry?.epoch);
  const admin = useIsAdmin();
  return <LocksList ensemble={ensemble} entry={entry} freshness={freshness} admin={admin} />;
}
