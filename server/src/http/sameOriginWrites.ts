/**
 * Writes from another site's page are refused whoever the caller is. The CSRF token covers
 * cookie sessions; this also covers the open development mode (no identity, so no token) and a
 * cross-site sign-in (login CSRF), where a form or `fetch(..., {mode: 'no-cors'})` on any page
 * could otherwise POST to a console on loopback. Browsers always send Origin (or at least
 * Sec-Fetch-Site) with a cross-site POST/PUT/DELETE; scripts and curl send neither and are judged
 * by their identity alone.
 */
import type { RequestHandler } from 'express';
import { originAllowed } from '../auth/origin.js';
import { sendError } from './apiErrors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function sameOriginWrites(allowedOrigins: readonly string[]): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (originAllowed(origin, req.headers.host, allowedOrigins)) return next();
      return sendError(res, 'CSRF', `a page on ${origin} may not change anything on this console`);
    }
    if (req.headers['sec-fetch-site'] === 'cross-site') return sendError(res, 'CSRF', 'a page on another site may not change anything on this console');
    next();
  };
}
