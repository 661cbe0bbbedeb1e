/**
 * The identity of each API request: found once (bearer token, session cookie, share session),
 * kept in res.locals, and required everywhere under /api but a few public routes. Cookie writes
 * must also carry the session's CSRF token.
 */
import type { Request, RequestHandler, Response } from 'express';
import { API_PREFIX, ROUTES } from '@keeper/shared';
import type { AccessControl, Identified } from '../auth/accessControl.js';
import { checkCsrf } from '../auth/csrf.js';
import type { Identity } from '../auth/identity.js';
import type { SignInAttempt, SignInGuard } from '../auth/signInAudit.js';
import { sendError } from './apiErrors.js';

/** Reachable without an identity: the table's public routes (their paths take no parameters), relative to /api. */
const PUBLIC = new Set(
  Object.values(ROUTES)
    .filter((route) => route.access === 'public')
    .map((route) => route.path.slice(API_PREFIX.length)),
);

export function identified(res: Response): Identified {
  const value = res.locals.identified as Identified | undefined;
  if (!value) throw new Error('route mounted without requireIdentity');
  return value;
}

export function identityOf(res: Response): Identity {
  return identified(res).identity;
}

export function caller(req: Request, res: Response): { identity: Identity; remoteAddress?: string } {
  return { identity: identityOf(res), ...(req.ip ? { remoteAddress: req.ip } : {}) };
}

/**
 * A bearer header is a token guess until it verifies: a correct one always passes; a wrong one
 * goes through the sign-in limiter and is audited, as a wrong password is (past the limit: 429).
 */
export function requireIdentity(access: AccessControl, guard: SignInGuard | null = null): RequestHandler {
  return async (req, res, next) => {
    if (PUBLIC.has(req.path)) return next();
    const attempt: SignInAttempt | null =
      guard && access.credentials !== null && req.headers.authorization !== undefined
        ? { address: req.ip ?? 'unknown', name: 'token', method: 'bearer', transport: 'http' }
        : null;
    try {
      await access.prepare(req.headers);
    } catch {
      return sendError(res, 'NOT_READY', 'the home ensemble holding the replicas’ sign-ins cannot be reached; retry in a moment');
    }
    const result = access.identify(req.headers);
    if (!result.ok) {
      if (attempt && guard) {
        const refused = await guard.rejected(attempt, result.reason);
        if (refused) {
          res.setHeader('Retry-After', String(refused.retryAfterSeconds));
          return sendError(res, 'RATE_LIMITED', 'too many failed sign-ins from this address; wait a minute');
        }
      }
      res.setHeader('WWW-Authenticate', 'Bearer realm="keeper"');
      return sendError(res, 'UNAUTHENTICATED', result.reason);
    }
    res.locals.identified = result.value;
    const csrf = checkCsrf(req.method, result.value.identity, result.value.session, req.headers['x-csrf-token']);
    if (!csrf.ok) return sendError(res, 'CSRF', csrf.reason);
    next();
  };
}
