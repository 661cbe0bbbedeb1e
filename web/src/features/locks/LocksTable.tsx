/**
 * The locks as a dense table, worst first. Each row is one stop for the keyboard: Tab reaches
 * it, Enter (or a click anywhere on it) opens the lock's detail; the path is also a real link
 * (middle-click, copy link). The worst status comes right after the path, so a phone shows both
 * before the table scrolls sideways inside its box.
 */
import { Link, useNavigate } from 'react-router-dom';
import { baseName, type LockReport } from '@keeper/shared';
import { formatCount } from '../../lib/bytes';
import { useNow } from '../../lib/useNow';
import { duration, NONE } from '../../ui/format';
import { FlagBadges, StatusBadge } from './StatusBadge';
import { lockFlags } from './lockWords';
import { lockUrl } from './urls';

/** "/app/locks/" of "/app/locks/job": the part that may be cut short. */
function parentOf(path: string): string {
  return path.slice(0, path.length - baseName(path).length);
}

/** "4 min", "at least 22 s", "< 1 s": the longest hold, counted on from when its report was computed while the data is live. */
function oldestHold(lock: LockReport, now: number): string {
  if (lock.oldestHoldMs === null) return NONE;
  const ms = lock.oldestHoldMs + Math.max(0, now - lock.computedAt);
  const text = ms < 1000 ? '< 1 s' : duration(Math.floor(ms / 1000) * 1000);
  return lock.oldestHoldAtLeast ? `at least ${text}` : text;
}

export function LocksTable({ ensemble, locks, live = true, asOf }: { ensemble: string; locks: readonly LockReport[]; live?: boolean; asOf?: number }) {
  const navigate = useNavigate();
  const ticking = useNow();
  // While not live, durations stop where the data stopped.
  const now = live ? ticking : (asOf ?? ticking);
  return (
    <div className="locks__scroll">
      <table className="data-table locks-table" aria-label="Locks">
        <thead>
          <tr>
            <th scope="col">Lock</th>
            <th scope="col">Worst</th>
            <th scope="col" className="num">
              Holders
            </th>
            <th scope="col" className="num">
              Waiters
            </th>
            <th scope="col">Oldest hold</th>
            <th scope="col">Flags</th>
            <th scope="col">Recipe</th>
          </tr>
        </thead>
        <tbody>
          {locks.map((lock) => {
            const href = lockUrl(ensemble, lock.path);
            return (
              <tr
                key={lock.path}
                tabIndex={0}
                className="locks-table__row"
                data-worst={lock.worstStatus ?? undefined}
                onClick={(e) => {
                  // The path's own link navigates by itself (and keeps middle-click).
                  if (!(e.target instanceof Element && e.target.closest('a'))) navigate(href);
                }}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && e.target === e.currentTarget) navigate(href);
                }}
              >
                <td className="mono locks-table__path">
                  <Link to={href} tabIndex={-1} title={lock.path} aria-label={lock.path} className="lock-path">
                    <span className="lock-path__parent">
                      <bdi>{parentOf(lock.path)}</bdi>
                    </span>
                    <span className="lock-path__name">{baseName(lock.path)}</span>
                  </Link>
                </td>
                <td>{lock.worstStatus ? <StatusBadge status={lock.worstStatus} /> : <span className="muted">empty</span>}</td>
                <td className="num">{formatCount(lock.holders)}</td>
                <td className="num">{formatCount(lock.waiters)}</td>
                <td title={lock.oldestHoldAtLeast ? 'It already held when Keeper began watching: at least this long' : undefined}>{oldestHold(lock, now)}</td>
                <td>
                  <FlagBadges flags={lockFlags(lock)} max={2} />
                </td>
                <td className="locks-table__recipe" title={lock.recipe.id}>
                  {lock.recipe.label}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
