/**
 * URLs of the tree explorer: /ensembles/<name>/znodes/<path>, each segment percent-encoded so any
 * legal znode name (spaces, %, ?, #) survives a paste into an incident channel.
 */
import { pathToUrlSegment } from '@keeper/shared';

export function ensembleUrl(name: string): string {
  return `/ensembles/${encodeURIComponent(name)}`;
}

export function znodeUrl(name: string, path: string): string {
  return path === '/' ? `${ensembleUrl(name)}/znodes/` : `${ensembleUrl(name)}/znodes${pathToUrlSegment(path)}`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Reads ensemble and znode path from a location pathname (still percent-encoded, as the browser keeps it). */
export function parseZnodeLocation(pathname: string): { ensemble: string; path: string } | null {
  const m = /^\/ensembles\/([^/]+)\/znodes(\/.*)?$/.exec(pathname);
  if (!m || m[1] === undefined) return null;
  const rest = (m[2] ?? '/').replace(/\/+$/, '');
  const path = rest === '' ? '/' : `/${rest.slice(1).split('/').map(safeDecode).join('/')}`;
  return { ensemble: safeDecode(m[1]), path };
}
