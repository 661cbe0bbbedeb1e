/**
 * Single sign-on's two stops (issue 20 item 1):
 *   GET /auth/oidc/login?next=<page>   to the provider, with PKCE, state and nonce kept here;
 *   GET /auth/oidc/callback            back from it: checked, then a Keeper session (or a page
 *                                      saying why not: refused, expired, another issuer or
 *                                      audience, a replayed code, a state that does not match,
 *                                      no group granted).
 * Every refusal is audited (`login`, method `oidc`, the reason's code) through the sign-in guard,
 * so a flood of forged answers writes a bounded number of lines; a good answer always passes.
 * The provider's tokens are not kept: Keeper's own session follows, as for a password.
 */
import { Router, type Request, type Response } from 'express';
import type { AccessControl } from '../auth/accessControl.js';
import type { AuditLog } from '../audit/auditLog.js';
import { SIGNED_IN_HINT_COOKIE, readCookie } from '../auth/cookies.js';
import { fingerprint } from '../auth/credentials.js';
import { noAccess, noAccessSentence } from '../auth/noAccess.js';
import type { OidcClient } from '../auth/oidc/oidcClient.js';
import { OidcFailure } from '../auth/oidc/oidcFailure.js';
import { PENDING_TTL_MS, type PendingSignIns } from '../auth/oidc/pendingSignIns.js';
import type { SignInAttempt, SignInGuard } from '../auth/signInAudit.js';
import { startCookieSession } from './authRoutes.js';
import { OIDC_CALLBACK_PATH, OIDC_LOGIN_PATH } from './oidcPaths.js';
import { messagePage, noAccessPage, signInFailedPage } from './signInPages.js';

export interface OidcRouteContext {
  access: AccessControl;
  audit: AuditLog;
  guard: SignInGuard;
  client: OidcClient;
  pending: PendingSignIns;
  /** The configured public URL (https://keeper.example.com), else each request's own. */
  publicUrl?: string;
}

/** Binds a sign-in under way to this browser; sent back only to the callback (SameSite=Lax: the provider's redirect is a top-level navigation from its site). */
const BINDING_COOKIE = 'keeper_oidc';

function bindingCookie(value: string, secure: boolean, maxAgeSeconds: number): string {
  return [`${BINDING_COOKIE}=${value}`, 'Path=/auth/oidc', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`, ...(secure ? ['Secure'] : [])].join('; ');
}

/** A same-site page path only; the sign-in page itself sends back to the console's start. */
function localPath(next: unknown): string {
  const path = typeof next === 'string' ? next : '/';
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\') || path.startsWith('/login') || path.startsWith('/auth/')) return '/';
  return path.slice(0, 2048);
}

export function oidcRoutes(ctx: OidcRouteContext): Router {
  const router = Router();
  const { access, audit, guard, client, pending } = ctx;
  const provider = client.name;
  const base = (req: Request) => (ctx.publicUrl ?? `${req.protocol}://${req.host}`).replace(/\/$/, '');

  const page = (res: Response, status: number, html: string) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.status(status).type('html').send(html);
  };

  router.get(OIDC_LOGIN_PATH, async (req, res) => {
    const next = localPath(req.query.next);
    const redirectUri = `${base(req)}${OIDC_CALLBACK_PATH}`;
    try {
      const { url, secrets } = await client.start(redirectUri);
      const binding = pending.start({ ...secrets, next, redirectUri, address: req.ip ?? 'unknown' });
      res.setHeader('Set-Cookie', bindingCookie(binding, req.secure, PENDING_TTL_MS / 1000));
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, url.href);
    } catch (error) {
      const failure = error instanceof OidcFailure ? error : new OidcFailure('OIDC_UNAVAILABLE', `Keeper could not start the sign-in with ${provider}.`);
      page(
        res,
        503,
        signInFailedPage({ provider, sentence: failure.sentence, code: failure.code, retryHref: `${OIDC_LOGIN_PATH}?next=${encodeURIComponent(next)}` }),
      );
    }
  });

  router.get(OIDC_CALLBACK_PATH, async (req, res) => {
    // Used once, whatever happens next.
    res.setHeader('Set-Cookie', bindingCookie('', req.secure, 0));
    const address = req.ip ?? 'unknown';
    const attempt: SignInAttempt = { address, name: 'oidc', method: 'oidc' };
    const signIn = pending.take(readCookie(req.headers.cookie, BINDING_COOKIE));
    const retryHref = `${OIDC_LOGIN_PATH}?next=${encodeURIComponent(signIn?.next ?? '/')}`;

    const refuse = async (failure: OidcFailure) => {
      const limited = await guard.rejected(
        attempt,
        failure.detail === failure.sentence ? failure.sentence : `${failure.sentence} (${failure.detail})`,
        failure.code,
      );
      if (limited) {
        res.setHeader('Retry-After', String(limited.retryAfterSeconds));
        return page(res, 429, messagePage('Too many attempts', 'Too many failed sign-ins from this address. Wait a minute, then sign in again.'));
      }
      page(res, failure.code === 'OIDC_UNAVAILABLE' ? 503 : 400, signInFailedPage({ provider, sentence: failure.sentence, code: failure.code, retryHref }));
    };

    if (!signIn) {
      return refuse(
        new OidcFailure(
          'OIDC_STATE',
          'This sign-in answer does not belong to a sign-in this browser started in the last 10 minutes (it was started elsewhere, already completed, or is too old). Start again.',
        ),
      );
    }
    if (req.query.state !== signIn.state) {
      return refuse(
        new OidcFailure('OIDC_STATE', 'This sign-in answer does not belong to the sign-in this browser started (its state does not match). Start again.'),
      );
    }
    let person;
    try {
      // The URL the provider sent the browser to, as it named it (behind a proxy: the public one).
      person = await client.finish(new URL(req.originalUrl, signIn.redirectUri), signIn);
    } catch (error) {
      return refuse(error instanceof OidcFailure ? error : new OidcFailure('OIDC_UNAVAILABLE', `Keeper could not complete the sign-in with ${provider}.`));
    }

    const credentials = access.credentials;
    const rights = credentials?.rightsFor(undefined, person.groups) ?? null;
    if (!credentials || !rights) {
      const refusal = noAccess(person.name, person.groups, credentials?.grants ?? []);
      await audit.append({
        action: 'login',
        outcome: 'refused',
        actor: { name: person.name, role: null, via: 'cookie' },
        error: { code: 'NO_ACCESS', message: noAccessSentence(refusal) },
        details: { method: 'oidc', provider, subject: person.subject, groups: refusal.groups },
        remoteAddress: address,
      });
      return page(res, 403, noAccessPage({ provider, name: person.name, groups: refusal.groups, wouldGrant: refusal.wouldGrant }));
    }

    await access.prepare(req.headers).catch(() => undefined);
    const current = access.sessions.get(readCookie(req.headers.cookie)) ?? access.sessions.byHintValue(readCookie(req.headers.cookie, SIGNED_IN_HINT_COOKIE));
    startCookieSession(
      req,
      res,
      access,
      {
        name: person.name,
        role: rights.role,
        via: 'cookie',
        method: 'oidc',
        credential: fingerprint('oidc', client.options.issuer),
        subject: person.subject,
        groups: person.groups,
      },
      current,
    );
    // The binding cookie is cleared too (startCookieSession replaced the header).
    res.append('Set-Cookie', bindingCookie('', req.secure, 0));
    await access.sessions.persisted();
    await audit.append({
      action: 'login',
      outcome: 'ok',
      actor: { name: person.name, role: rights.role, via: 'cookie' },
      details: { method: 'oidc', provider, subject: person.subject, groups: person.groups.slice(0, 50), ...(current ? { replaced: current.name } : {}) },
      remoteAddress: address,
    });
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, signIn.next);
  });

  return router;
}
