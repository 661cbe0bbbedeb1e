/**
 * Security headers (helmet) and rate limits. The Content Security Policy allows only this
 * origin's scripts, plus the inline scripts of the built index.html by hash (the theme script
 * that runs before first paint), so an injected script cannot run even if one got into a page.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Request, RequestHandler } from 'express';
import helmet from 'helmet';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Identified } from '../auth/accessControl.js';
import { SignInLimiter } from '../auth/signInLimiter.js';
import { sendError } from './apiErrors.js';

export interface RateLimits {
  /** Failed sign-ins (password, token, share link) per address and user name per window. */
  loginFailures: number;
  /** Failed sign-ins per address, whatever the name, per window. */
  loginFailuresPerAddress: number;
  /** API requests per identity (per address for callers without one) per window. */
  api: number;
  windowMs: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { loginFailures: 10, loginFailuresPerAddress: 100, api: 1_200, windowMs: 60_000 };

/** sha256 sources for every inline <script> in the built index.html. */
export function inlineScriptHashes(webDist: string | undefined): string[] {
  if (!webDist) return [];
  let html: string;
  try {
    html = fs.readFileSync(path.join(webDist, 'index.html'), 'utf8');
  } catch {
    return [];
  }
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    hashes.push(
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '')
        .digest('base64')}'`,
    );
  }
  return hashes;
}

export function securityHeaders(webDist: string | undefined): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...inlineScriptHashes(webDist)],
        // React sets style attributes; a few libraries add <style> elements.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        // 'self' covers ws:/wss: to this host in current browsers (CSP Level 3).
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // TLS is terminated in front of Keeper when there is any; HSTS belongs there.
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'same-origin' },
  });
}

export function signInLimiter(limits: RateLimits): SignInLimiter {
  return new SignInLimiter({
    perName: limits.loginFailures,
    perAddress: Math.max(limits.loginFailures, limits.loginFailuresPerAddress),
    windowMs: limits.windowMs,
  });
}

/**
 * Who a request's budget belongs to: its identity when it has one (so one viewer's flood cannot
 * use up an admin's budget behind the same address or proxy), its address otherwise.
 */
export function rateLimitKey(req: Request, identified: Identified | undefined): string {
  const identity = identified?.identity;
  if (!identity || identity.via === 'open') return `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`;
  return identity.shareLinkId !== undefined ? `share:${identity.shareLinkId}` : `id:${identity.via}:${identity.name}`;
}

/** Mounted after the identity is known (requireIdentity). */
export function apiLimiter(limits: RateLimits): RequestHandler {
  return rateLimit({
    windowMs: limits.windowMs,
    limit: limits.api,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req, res) => rateLimitKey(req, res.locals.identified as Identified | undefined),
    // `trustProxy` is a deliberate setting here; X-Forwarded-For without it is ignored, not an error.
    validate: { xForwardedForHeader: false },
    handler: (_req, res) => sendError(res, 'RATE_LIMITED', 'too many requests from you; slow down'),
  });
}
