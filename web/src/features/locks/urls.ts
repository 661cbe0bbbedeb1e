/**
 * URLs of the Locks view: /ensembles/<name>/locks for the list and /ensembles/<name>/locks/<path>
 * for one lock directory, its path keeping its slashes (each segment percent-encoded, as the
 * tree's URLs do) so a link pasted in an incident channel reads like the znode it is about.
 */
import { decodeUrlSegment, pathFromUrlSegment, pathToUrlSegment } from '@keeper/shared';
import { ensembleUrl } from '../../app/urls/treeUrls';

export function locksUrl(ensemble: string): string {
  return `${ensembleUrl(ensemble)}/locks`;
}

export function lockUrl(ensemble: string, path: string): string {
  return path === '/' ? locksUrl(ensemble) : `${locksUrl(ensemble)}${pathToUrlSegment(path)}`;
}

/** The ensemble and, on a detail page, the lock directory, from a (still percent-encoded) pathname. */
export function parseLocksLocation(pathname: string): { ensemble: string; path: string | null } | null {
  const m = /^\/ensembles\/([^/]+)\/locks(\/.*)?$/.exec(pathname);
  if (!m || m[1] === undefined) return null;
  const rest = (m[2] ?? '').replace(/\/+$/, '');
  return { ensemble: decodeUrlSegment(m[1]) ?? m[1], path: rest === '' ? null : pathFromUrlSegment(rest, 'keep') };
}
