/**
 * Signing a browser in from a URL: any page with `?token=<token>` (the URL `npm start` prints,
 * as Jupyter does) and `/share/<token>` (a read-only share link). Both set the session cookie and
 * redirect to a clean URL, so the token does not stay in the address bar or the history.
 *
 * Login CSRF: another site's page can navigate a browser to such a URL. A browser that is not
 * signed in is simply signed in; one that is signed in as someone else is never switched by the
 * visit alone: it gets a confirmation page whose button POSTs (same origin only) to this URL.
 * Opening the URL again as the identity already signed in just goes on: one sign-in per session,
 * not one audit entry per page load.
 */
import { API_PREFIX } from '@keeper/shared';
import { Router, type Request, type Response } from 'express';
import type { AccessControl } from '../auth/accessControl.js';
import type { AuditLog } from '../audit/auditLog.js';
import { SIGNED_IN_HINT_COOKIE, readCookie } from '../auth/cookies.js';
import { originAllowed } from '../auth/origin.js';
import type { GrantedPrincipal } from '../auth/credentials.js';
import type { SignInSession } from '../auth/sessionStore.js';
import type { SignInAttempt, SignInGuard } from '../auth/signInAudit.js';
import { startCookieSession } from './authRoutes.js';
import { messagePage, switchIdentityPage } from './signInPages.js';

export interface PageSignInContext {
  access: AccessControl;
  audit: AuditLog;
  guard: SignInGuard;
}

/** A same-site path only: "//evil.example" would be read by browsers as another host. */
function safeLocalPath(path: string): string {
  return path.startsWith('/') && !path.startsWith('//') && !path.includes('\\') ? path : '/';
}

function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).type('html').send(html);
}

/**
 * A confirmation POST must come from this console's own page. Sec-Fetch-Site is the browser's own
 * word and a page cannot set it; the Origin is the fallback for older browsers. (These pages send
 * no referrer, so Chrome sends `Origin: null` with their form: that alone proves nothing.)
 */
function sameOriginPost(req: Request, access: AccessControl): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = req.headers.origin;
  return origin !== undefined && origin !== 'null' && originAllowed(origin, req.headers.host, access.allowedOrigins);
}

export function pageSignIn(ctx: PageSignInContext): Router {
  const router = Router();
  const { access, audit, guard } = ctx;

  /**
   * The session this browser is signed in with: the Strict session cookie (same-site visits),
   * else the Lax hint cookie (what a navigation from another site carries).
   */
  const currentSession = (req: Request): SignInSession | null => {
    const session = access.sessions.get(readCookie(req.headers.cookie)) ?? access.sessions.byHintValue(readCookie(req.headers.cookie, SIGNED_IN_HINT_COOKIE));
    if (session?.shareLinkId !== undefined && !access.shareLinks.isActive(session.shareLinkId)) return null;
    return session;
  };
  const attemptOf = (req: Request, name: string, method: SignInAttempt['method']): SignInAttempt => ({ address: req.ip ?? 'unknown', name, method });
  const rateLimited = (res: Response, retryAfterSeconds: number) => {
    res.setHeader('Retry-After', String(retryAfterSeconds));
    sendPage(res, 429, messagePage('Too many attempts', 'Too many failed sign-ins from this address. Wait a minute, then open the link again.'));
  };
  const crossSitePost = (res: Response) =>
    sendPage(res, 403, messagePage('Not from this console', 'This sign-in can only be confirmed from the console’s own page. Open the link again.'));

  const shareLink = async (req: Request, res: Response, confirmed: boolean) => {
    noStore(res);
    if (confirmed && !sameOriginPost(req, access)) return crossSitePost(res);
    const attempt = attemptOf(req, 'share', 'share');
    // A real link's token passes whatever others guessed from this address; only unknown ones count.
    let found = access.shareLinks.resolve(String(req.params.token));
    const remoteAddress = req.ip ? { remoteAddress: req.ip } : {};
    if (!found.ok && found.reason === 'unknown') {
      const refused = guard.refusal(attempt);
      if (refused) return rateLimited(res, refused.retryAfterSeconds);
      // Replicas: made on another replica a moment ago? Looked for in the home ensemble (only past the limiter).
      found = await access.shareLinks.resolveFresh(String(req.params.token)).catch(() => found);
      if (!found.ok && found.reason === 'unknown') await guard.limiter.fail(attempt.address, attempt.name);
    }
    if (!found.ok) {
      await audit.append({
        action: 'shareLink.use',
        outcome: 'refused',
        actor: { name: 'anonymous', role: null, via: 'share' },
        error: { code: found.reason.toUpperCase(), message: `share link ${found.reason}` },
        ...remoteAddress,
      });
      const html =
        found.reason === 'unknown'
          ? messagePage('Unknown share link', 'This link is not (or no longer) known to this console.')
          : messagePage(
              `Share link ${found.reason}`,
              `This read-only link has ${found.reason === 'revoked' ? 'been revoked' : 'expired'}. Ask whoever shared it for a new one.`,
            );
      return sendPage(res, found.reason === 'unknown' ? 404 : 410, html);
    }
    const link = found.link;
    const destination = safeLocalPath(link.path);
    await access.prepare(req.headers).catch(() => undefined);
    const current = currentSession(req);
    if (current?.shareLinkId === link.id) return res.redirect(302, destination);
    if (current && !confirmed) {
      return sendPage(
        res,
        200,
        switchIdentityPage({
          current,
          next: { label: `share link ${link.id}`, role: 'viewer, read-only', detail: link.path },
          action: `/share/${encodeURIComponent(String(req.params.token))}`,
        }),
      );
    }
    startCookieSession(
      req,
      res,
      access,
      { name: `share:${link.id}`, role: 'viewer', via: 'share', shareLinkId: link.id, expiresAt: link.expiresAt, method: 'share' },
      current,
    );
    await access.sessions.persisted();
    await audit.append({
      action: 'shareLink.use',
      outcome: 'ok',
      actor: { name: `share:${link.id}`, role: 'viewer', via: 'share' },
      path: link.path,
      details: { linkId: link.id, createdBy: link.createdBy, ...(current ? { replaced: current.name } : {}) },
      ...remoteAddress,
    });
    res.redirect(confirmed ? 303 : 302, destination);
  };
  router.get('/share/:token', (req, res) => shareLink(req, res, false));
  router.post('/share/:token', (req, res) => shareLink(req, res, true));

  // Any page (not the API, not the socket) opened with ?token=.
  const tokenSignIn = async (req: Request, res: Response, confirmed: boolean) => {
    noStore(res);
    const token = String(req.query.token);
    const url = new URL(req.originalUrl, 'http://placeholder');
    url.searchParams.delete('token');
    const clean = safeLocalPath(url.pathname) + url.search + url.hash;
    if (access.credentials === null) return res.redirect(302, clean);
    if (confirmed && !sameOriginPost(req, access)) return crossSitePost(res);
    // Checked first: a correct token always passes, whatever others guessed from this address.
    const principal: GrantedPrincipal | null = access.credentials.verifyToken(token);
    if (!principal) {
      const refused = await guard.rejected(attemptOf(req, 'token', 'url'), 'invalid sign-in URL token');
      if (refused) return rateLimited(res, refused.retryAfterSeconds);
      return sendPage(
        res,
        401,
        messagePage('Sign-in link not valid', 'The token in this address is not valid for this console. Use the URL Keeper printed at start-up.'),
      );
    }
    await access.prepare(req.headers).catch(() => undefined);
    const current = currentSession(req);
    const same = current !== null && current.via === 'cookie' && current.name === principal.name && current.role === principal.rights.role;
    // Already signed in as this token (a reload, a bookmark): nothing new to record.
    if (same) return res.redirect(302, clean);
    if (current && !confirmed) {
      return sendPage(res, 200, switchIdentityPage({ current, next: { label: principal.name, role: principal.rights.role }, action: req.originalUrl }));
    }
    startCookieSession(
      req,
      res,
      access,
      { name: principal.name, role: principal.rights.role, via: 'cookie', method: 'url', credential: principal.credential },
      current,
    );
    await access.sessions.persisted();
    await audit.append({
      action: 'login',
      outcome: 'ok',
      actor: { name: principal.name, role: principal.rights.role, via: 'cookie' },
      details: { method: 'url', ...(current ? { replaced: current.name } : {}) },
      ...(req.ip ? { remoteAddress: req.ip } : {}),
    });
    res.redirect(confirmed ? 303 : 302, clean);
  };
  const wantsTokenSignIn = (req: Request) =>
    typeof req.query.token === 'string' && !req.path.startsWith(`${API_PREFIX}/`) && req.path !== API_PREFIX && req.path !== '/ws';
  router.get('/{*any}', (req, res, next) => (wantsTokenSignIn(req) ? tokenSignIn(req, res, false) : next()));
  router.post('/{*any}', (req, res, next) => (wantsTokenSignIn(req) ? tokenSignIn(req, res, true) : next()));
  return router;
}
