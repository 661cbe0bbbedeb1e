/**
 * A znode path in a URL's wildcard tail: /ensembles/<name>/znodes/<path> in the console,
 * /api/ensembles/<name>/<kind>/<path> in the API. One spelling both ways, so the page, the
 * share-scope check and the route all see the same path. Each segment is encoded on its own:
 * slashes stay readable, and a name holding %2F, ?, # or a space survives a paste into a chat.
 */

/** Encodes a znode path for a URL, keeping the slashes readable (/ensembles/x/znodes/a/b). */
export function pathToUrlSegment(path: string): string {
  return path
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');
}

/** The znode path from a wildcard's segments, already decoded (as Express 5 hands `*path` over); none is the root. */
export function pathFromSegments(segments: readonly string[]): string {
  return `/${segments.join('/')}`;
}

/**
 * What a segment that is not valid percent-encoding (a bare `%`) does: `refuse` makes the whole
 * path null, as Express refuses such a route (the server must judge the path the route gets);
 * `keep` keeps it as typed (the address bar, where `100%` is most likely a name's own `%`).
 */
export type MalformedSegment = 'refuse' | 'keep';

/**
 * The znode path a still-encoded URL tail names ('/a/b%20c'), the inverse of pathToUrlSegment;
 * '' and '/' are the root. A trailing slash is kept: the caller decides whether it means anything.
 */
export function pathFromUrlSegment(encoded: string, malformed: 'keep'): string;
export function pathFromUrlSegment(encoded: string, malformed?: MalformedSegment): string | null;
export function pathFromUrlSegment(encoded: string, malformed: MalformedSegment = 'refuse'): string | null {
  if (encoded === '' || encoded === '/') return '/';
  const segments: string[] = [];
  for (const segment of encoded.replace(/^\//, '').split('/')) {
    const decoded = decodeUrlSegment(segment);
    if (decoded === null && malformed === 'refuse') return null;
    segments.push(decoded ?? segment);
  }
  return pathFromSegments(segments);
}

/** One percent-encoded URL segment decoded; null when it is not valid percent-encoding. */
export function decodeUrlSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
