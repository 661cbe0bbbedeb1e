/**
 * Signing a browser in from a URL: any page with `?token=<token>` (the URL `npm start` prints,
 * as Jupyter does) and `/share/<token>` (a read-only share link). Both set the session cookie and
 * redirect to a clean URL, so the token does not stay in the address bar or the history.
 */
import { Router, type RequestHandler } from 'express';
import type { AccessControl } from '../auth/accessControl.js';
import type { AuditLog } from '../audit/auditLog.js';
import { startCookieSession } from './authRoutes.js';

export interface PageSignInContext {
  access: AccessControl;
  audit: AuditLog;
  loginLimiter: RequestHandler;
}

/** A same-site path only: "//evil.example" would be read by browsers as another host. */
function safeLocalPath(path: string): string {
  return path.startsWith('/') && !path.startsWith('//') && !path.includes('\\') ? path : '/';
}

function page(status: number, title: string, text: string): [number, string] {
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return [status, `<!doctype html><meta charset="utf-8"><title>Keeper: ${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(text)}</p><p><a href="/">Open Keeper</a></p>`];
}

export function pageSignIn(ctx: PageSignInContext): Router {
  const router = Router();
  const { access, audit } = ctx;

  router.get('/share/:token', ctx.loginLimiter, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const found = access.shareLinks.resolve(String(req.params.token));
    const remoteAddress = req.ip ? { remoteAddress: req.ip } : {};
    if (!found.ok) {
      await audit.append({ action: 'shareLink.use', outcome: 'refused', actor: { name: 'anonymous', role: null, via: 'share' }, error: { code: found.reason.toUpperCase(), message: `share link ${found.reason}` }, ...remoteAddress });
      const [status, html] = found.reason === 'unknown' ? page(404, 'Unknown share link', 'This link is not (or no longer) known to this console.') : page(410, `Share link ${found.reason}`, `This read-only link has ${found.reason === 'revoked' ? 'been revoked' : 'expired'}. Ask whoever shared it for a new one.`);
      return res.status(status).type('html').send(html);
    }
    const link = found.link;
    startCookieSession(req, res, access, { name: `share:${link.id}`, role: 'viewer', via: 'share', shareLinkId: link.id, expiresAt: link.expiresAt });
    await audit.append({ action: 'shareLink.use', outcome: 'ok', actor: { name: `share:${link.id}`, role: 'viewer', via: 'share' }, path: link.path, details: { linkId: link.id, createdBy: link.createdBy }, ...remoteAddress });
    res.redirect(302, safeLocalPath(link.path));
  });

  // Any page (not the API, not the socket) opened with ?token=.
  const tokenSignIn: RequestHandler = async (req, res, next) => {
    const token = req.query.token;
    if (typeof token !== 'string' || req.path.startsWith('/api/') || req.path === '/ws') return next();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const url = new URL(req.originalUrl, 'http://placeholder');
    url.searchParams.delete('token');
    const clean = safeLocalPath(url.pathname) + url.search + url.hash;
    if (access.credentials === null) return res.redirect(302, clean);
    const principal = access.credentials.verifyToken(token);
    const remoteAddress = req.ip ? { remoteAddress: req.ip } : {};
    if (!principal) {
      await audit.append({ action: 'login', outcome: 'failed', actor: { name: 'token', role: null, via: 'cookie' }, error: { code: 'INVALID_CREDENTIALS', message: 'invalid sign-in URL token' }, details: { method: 'url' }, ...remoteAddress });
      const [status, html] = page(401, 'Sign-in link not valid', 'The token in this address is not valid for this console. Use the URL Keeper printed at start-up.');
      return res.status(status).type('html').send(html);
    }
    startCookieSession(req, res, access, { name: principal.name, role: principal.role, via: 'cookie' });
    await audit.append({ action: 'login', outcome: 'ok', actor: { name: principal.name, role: principal.role, via: 'cookie' }, details: { method: 'url' }, ...remoteAddress });
    res.redirect(302, clean);
  };
  router.get('/{*any}', (req, res, next) => (typeof req.query.token === 'string' ? ctx.loginLimiter(req, res, () => tokenSignIn(req, res, next)) : next()));
  return router;
}
