/**
 * CSRF for cookie sessions: a write must carry the session's token in X-CSRF-Token. A cookie is
 * sent by the browser whoever made the page; the header can only be set by the console's own
 * script, which learnt the token from GET /api/me. Bearer requests carry no cookie: exempt.
 */
import type { Identity } from './identity.js';
import type { SignInSession } from './sessionStore.js';
import { safeEqual } from './secrets.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type CsrfVerdict = { ok: true } | { ok: false; reason: string };

export function checkCsrf(method: string, identity: Identity, session: SignInSession | null, header: string | string[] | undefined): CsrfVerdict {
  if (SAFE_METHODS.has(method.toUpperCase())) return { ok: true };
  if (identity.via !== 'cookie' && identity.via !== 'share') return { ok: true };
  if (!session) return { ok: false, reason: 'the session has ended: sign in again' };
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return { ok: false, reason: 'missing X-CSRF-Token header (its value is in GET /api/me)' };
  if (!safeEqual(value, session.csrfToken)) return { ok: false, reason: 'X-CSRF-Token does not match this session' };
  return { ok: true };
}
