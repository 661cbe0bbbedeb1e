/** The session cookie: parsing the Cookie header and writing Set-Cookie, with no dependency. */
import { SESSION_COOKIE } from '@keeper/shared';

export function readCookie(header: string | undefined, name: string = SESSION_COOKIE): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw);
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * HttpOnly (scripts never see it), SameSite=Strict (no cross-site request carries it), Secure
 * when the request came over https (a cookie marked Secure is never sent back over plain http).
 */
export function sessionCookie(value: string, { maxAgeSeconds, secure }: { maxAgeSeconds: number; secure: boolean }): string {
  return [
    `${SESSION_COOKIE}=${encodeURIComponent(value)}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', { maxAgeSeconds: 0, secure });
}

/**
 * "This browser is signed in": a random hint that names the session for display only (it grants
 * nothing: every request is still judged by the Strict session cookie). SameSite=Lax, so it IS
 * sent with a top-level navigation from another site: that is how `/share/<token>` and
 * `/?token=` opened from another site's page know not to replace a signed-in session unasked.
 */
export const SIGNED_IN_HINT_COOKIE = 'keeper_signed_in';

export function signedInHintCookie(value: string, { maxAgeSeconds, secure }: { maxAgeSeconds: number; secure: boolean }): string {
  return [
    `${SIGNED_IN_HINT_COOKIE}=${encodeURIComponent(value)}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedHintCookie(secure: boolean): string {
  return signedInHintCookie('', { maxAgeSeconds: 0, secure });
}
