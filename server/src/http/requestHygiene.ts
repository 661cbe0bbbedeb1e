/**
 * What is checked of every request before anything else reads it, and the last word on errors:
 *  - the Host header (DNS rebinding, hosts.ts);
 *  - a URL whose percent-encoding does not decode (`/%zz`): 400 as JSON, logged at debug, never a
 *    stack trace or a 500;
 *  - any error nobody handled: JSON without a stack (Express's default page shows file paths).
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { SessionNotStoredError } from '../auth/sessionStore.js';
import type { Logger } from 'pino';
import { checkHost } from '../auth/hosts.js';
import { sendError } from './apiErrors.js';

export function hostCheck(allowed: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    const verdict = checkHost(req.headers.host, allowed);
    if (verdict.ok) return next();
    res.setHeader('Connection', 'close');
    sendError(res, 'HOST_NOT_ALLOWED', verdict.reason);
  };
}

/** True when every %-escape of the path decodes (as the router will try to). */
export function decodablePath(url: string): boolean {
  const q = url.indexOf('?');
  try {
    decodeURIComponent(q === -1 ? url : url.slice(0, q));
    return true;
  } catch {
    return false;
  }
}

export function malformedUrls(log: Logger): RequestHandler {
  return (req, res, next) => {
    if (decodablePath(req.url)) return next();
    log.debug({ method: req.method, url: req.url.slice(0, 200) }, 'refused a URL with malformed percent-encoding');
    sendError(res, 'MALFORMED_URL', 'the URL has a malformed percent-encoding (such as "%zz"); encode "%" as "%25"');
  };
}

/** Errors with a 4xx status (from Express's own parsing) are the caller's: 400-ish, logged at debug. */
export function lastErrorHandler(log: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      log.debug({ err: error, url: req.url.slice(0, 200) }, 'refused a bad request');
      if (!res.headersSent) sendError(res, status === 413 ? 'BODY_TOO_LARGE' : 'BAD_REQUEST', error instanceof Error ? error.message : 'bad request');
      return;
    }
    if (error instanceof SessionNotStoredError) {
      log.warn({ err: error }, 'a sign-in was not stored in the home ensemble');
      if (!res.headersSent) sendError(res, 'NOT_READY', error.message);
      return;
    }
    log.error({ err: error, url: req.url.slice(0, 200) }, 'request failed');
    if (!res.headersSent) sendError(res, 'INTERNAL', 'the server could not handle this request');
    else res.destroy();
  };
}
