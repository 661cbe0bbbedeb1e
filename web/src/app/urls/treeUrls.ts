/**
 * URLs of the tree explorer: /ensembles/<name>/znodes/<path>, each segment percent-encoded so any
 * legal znode name (spaces, %, ?, #) survives a paste into an incident channel.
 */
import { decodeUrlSegment, pathFromUrlSegment, pathToUrlSegment } from '@keeper/shared';

export function ensembleUrl(name: string): string {
  return `/ensembles/${encodeURIComponent(name)}`;
}

export function znodeUrl(name: string, path: string): string {
  return path === '/' ? `${ensembleUrl(name)}/znodes/` : `${ensembleUrl(name)}/znodes${pathToUrlSegment(path)}`;
}

/**
 * Reads ensemble and znode path from a location pathname (still percent-encoded, as the browser
 * keeps it). Lenient: a trailing slash means nothing, and a bare `%` (typed into the address bar)
 * is kept as the name's own character.
 */
export function parseZnodeLocation(pathname: string): { ensemble: string; path: string } | null {
  const m = /^\/ensembles\/([^/]+)\/znodes(\/.*)?$/.exec(pathname);
  if (!m || m[1] === undefined) return null;
  const path = pathFromUrlSegment((m[2] ?? '').replace(/\/+$/, ''), 'keep');
  return { ensemble: decodeUrlSegment(m[1]) ?? m[1], path };
}
