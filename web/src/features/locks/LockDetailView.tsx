import { useIsAdmin } from '../../app/me';
import { useFreshness } from '../../app/freshness/useFreshness';
import { LockDetail } from './LockDetail';
import { useLockEntry } from './locksTopic';

/** One lock's data: the `lock` topic while mounted (the server watches the directory for as long as someone looks). */
export function LockDetailView({ ensemble, path }: { ensemble: string; path: string }) {
  const entry = useLockEntry(ensemble, path);
  const freshness = useFreshness(ensemble, entry?.epoch);
  const admin = useIsAdmin();
  return <LockDetail ensemble={ensemble} path={path} entry={entry} freshness={freshness} admin={admin} />;
}
