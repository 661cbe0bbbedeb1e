import { useState } from 'react';
import { useIsAdmin } from '../../app/me';
import { useFreshness } from '../../app/freshness/useFreshness';
import { LocksList } from './LocksList';
import { FIRST_PAGE, useLocksEntry, type LocksEntry, type LocksPage } from './locksTopic';

/**
 * The list's data: the `locks` topic for the page asked for while mounted, judged for freshness
 * like every other view. While a new page (another filter, more rows) is on its way the last one
 * stays on screen, so typing in the filter does not blank the list.
 */
export function LocksListView({ ensemble }: { ensemble: string }) {
  const [page, setPage] = useState<LocksPage>(FIRST_PAGE);
  const entry = useLocksEntry(ensemble, page);
  // The last page received (React's "state from the previous render"): shown until the new one arrives.
  const [last, setLast] = useState<{ ensemble: string; entry: LocksEntry } | null>(null);
  if (entry && (last?.entry !== entry || last.ensemble !== ensemble)) setLast({ ensemble, entry });
  const shown = entry ?? (last?.ensemble === ensemble ? last.entry : undefined);
  const freshness = useFreshness(ensemble, shown?.epoch);
  const admin = useIsAdmin();
  return <LocksList ensemble={ensemble} entry={shown} freshness={freshness} admin={admin} page={page} onPage={setPage} />;
}
