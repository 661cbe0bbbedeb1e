/**
 * Cross-site WebSocket hijacking defence: a browser always sends Origin with a WebSocket
 * handshake, and the cookie goes along whoever opened the socket. So a browser's socket is
 * accepted only from this console's own origin (the Host it was asked for) or a configured one.
 * A request with no Origin is not from a browser page (scripts, tests): identity alone decides.
 */
export function originAllowed(origin: string | undefined, host: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  const normalized = normalizeOrigin(origin);
  if (normalized === null) return false;
  if (allowed.some((a) => normalizeOrigin(a) === normalized)) return true;
  if (!host) return false;
  // Same host and port as the page was served from. The scheme is not compared: behind a TLS
  // proxy the page is https while Keeper itself sees plain http.
  return new URL(normalized).host === host.toLowerCase();
}

/** scheme://host[:port] in lower case with default ports dropped; null when it is not an origin ("null", junk). */
export function normalizeOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
