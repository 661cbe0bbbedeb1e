/**
 * The Locks view at /ensembles/:name/locks (every tracked lock, worst first) and
 * /ensembles/:name/locks/<path> (one lock directory, its contenders in order). Both are live: the
 * server watches the lock directories and sends a snapshot after each change.
 */
import { useLocation, useParams } from 'react-router-dom';
import { LockDetailView } from './LockDetailView';
import { LocksListView } from './LocksListView';
import { parseLocksLocation } from './urls';

export function LocksView() {
  const name = useParams().name ?? '';
  // The lock path is read from the raw pathname, as the tree does: segments stay percent-encoded until split.
  const path = parseLocksLocation(useLocation().pathname)?.path ?? null;
  return path === null ? <LocksListView key={name} ensemble={name} /> : <LockDetailView key={`${name} ${path}`} ensemble={name} path={path} />;
}
