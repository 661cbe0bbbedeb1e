/** Sign-in, sign-out and "who am I" (ROUTES.login, ROUTES.logout, ROUTES.me, and the sign-in methods). */
import type { Request, Response } from 'express';
import { ROUTES, type MeAnswer, type SignInMethods } from '@keeper/shared';
import type { AccessControl } from '../auth/accessControl.js';
import type { AuditLog } from '../audit/auditLog.js';
import { clearedHintCookie, clearedSessionCookie, readCookie, sessionCookie, signedInHintCookie } from '../auth/cookies.js';
import { isGranted, type GrantedPrincipal, type Principal } from '../auth/credentials.js';
import { rightsOf, type Identity } from '../auth/identity.js';
import { noAccess, noAccessSentence } from '../auth/noAccess.js';
import type { SignInSession, SignInMethodUsed } from '../auth/sessionStore.js';
import { DEVICE_COOKIE, type DeviceCookies } from '../auth/deviceCookies.js';
import type { SignInAttempt, SignInGuard } from '../auth/signInAudit.js';
import { capName } from '../auth/signInLimiter.js';
import { OpError } from '../admin/opError.js';
import { OIDC_LOGIN_PATH } from './oidcPaths.js';
import type { ApiRoutes } from './apiRoute.js';
import { identified } from './requestIdentity.js';

export interface AuthRouteContext {
  access: AccessControl;
  audit: AuditLog;
  guard: SignInGuard;
  devices: DeviceCookies;
}

/**
 * Starts a cookie session and sets its cookies (also used by the page sign-ins): the session
 * cookie itself, and the signed-in hint that lets a top-level navigation from another site be
 * recognised as coming to a signed-in browser (the session cookie is SameSite=Strict: it is not
 * sent then). A session this browser had before is ended: it is replaced, not kept alive unseen.
 */
export function startCookieSession(
  req: Request,
  res: Response,
  access: AccessControl,
  spec: Parameters<AccessControl['sessions']['create']>[0],
  replacing: SignInSession | null = null,
): SignInSession {
  if (replacing) access.endSession(replacing.id, 'signed in as someone else');
  const { session, cookie, hint } = access.sessions.create(spec);
  const maxAgeSeconds = (session.expiresAt - Date.now()) / 1000;
  res.setHeader('Set-Cookie', [sessionCookie(cookie, { maxAgeSeconds, secure: req.secure }), signedInHintCookie(hint, { maxAgeSeconds, secure: req.secure })]);
  return session;
}

/** The identity a just-verified principal gets (as identify() would give it on the next request). */
function identityOfPrincipal(principal: GrantedPrincipal): Identity {
  return {
    name: principal.name,
    role: principal.rights.role,
    rights: principal.rights,
    via: 'cookie',
    ...(principal.groups ? { groups: principal.groups } : {}),
  };
}

const SIGNED_IN_WITH: Record<SignInMethodUsed, string> = {
  password: 'password',
  token: 'token',
  url: 'sign-in URL',
  share: 'share link',
  oidc: 'single sign-on',
};

/** ROUTES.me (and the answer of a sign-in): who, what they may do, how they signed in, until when. */
export function meOf(access: AccessControl, { identity, session }: { identity: Identity; session: SignInSession | null }): MeAnswer {
  const link = identity.shareLinkId ? access.shareLinks.get(identity.shareLinkId) : null;
  const method = session?.method;
  const signedInWith = method === 'oidc' ? (access.oidcName ?? SIGNED_IN_WITH.oidc) : method ? SIGNED_IN_WITH[method] : undefined;
  return {
    name: identity.name,
    role: identity.role,
    via: identity.via,
    rights: rightsOf(identity),
    ...(identity.groups ? { groups: identity.groups } : {}),
    ...(signedInWith ? { signedInWith } : {}),
    ...(session ? { csrfToken: session.csrfToken, expiresAt: session.expiresAt } : {}),
    ...(link ? { shareLink: { id: link.id, path: link.path, expiresAt: link.expiresAt, scope: link.scope } } : {}),
  };
}

export function authRoutes(api: ApiRoutes, ctx: AuthRouteContext): void {
  const { access, audit } = ctx;

  api.handle(ROUTES.login, { bodyLimit: '16kb' }, async ({ body, req, res }) => {
    if (access.credentials === null) throw new OpError('AUTH_NOT_CONFIGURED', 'no identity is configured: this console is open to every local caller');
    const address = req.ip ?? 'unknown';
    const tooMany = (retryAfterSeconds: number) => {
      res.setHeader('Retry-After', String(retryAfterSeconds));
      return new OpError('RATE_LIMITED', 'too many failed sign-ins for this name from this address; wait a minute');
    };
    const wrong = 'wrong user name, password or token';
    let principal: Principal | null;
    if ('username' in body) {
      // A browser where this user signed in before has its own budget (deviceCookies.ts).
      const device = ctx.devices.deviceOf(readCookie(req.headers.cookie, DEVICE_COOKIE), body.username);
      const attempt: SignInAttempt = { address, name: capName(body.username), method: 'password', ...(device ? { device } : {}) };
      // Passwords are guessable: asked before any password is hashed (a locked-out guesser costs no bcrypt work either).
      const refused = ctx.guard.refusal(attempt);
      if (refused) throw tooMany(refused.retryAfterSeconds);
      principal = await access.credentials.verifyPassword(body.username, body.password);
      if (!principal) {
        await ctx.guard.failed(attempt, wrong);
        throw new OpError('INVALID_CREDENTIALS', wrong);
      }
    } else {
      // A token is checked first: a correct one always passes, whatever others guessed from this address.
      principal = access.credentials.verifyToken(body.token);
      if (!principal) {
        const refused = await ctx.guard.rejected({ address, name: 'token', method: 'token' }, wrong);
        throw refused ? tooMany(refused.retryAfterSeconds) : new OpError('INVALID_CREDENTIALS', wrong);
      }
    }
    const method = 'username' in body ? ('password' as const) : ('token' as const);
    if (!isGranted(principal)) {
      // The password was right, but no grant lets this user in: say which groups would.
      const refusal = noAccess(principal.name, principal.groups, access.credentials.grants);
      await audit.append({
        action: 'login',
        outcome: 'refused',
        actor: { name: principal.name, role: null, via: 'cookie' },
        error: { code: 'NO_ACCESS', message: noAccessSentence(refusal) },
        details: { method, groups: refusal.groups },
        ...(req.ip ? { remoteAddress: req.ip } : {}),
      });
      throw new OpError('NO_ACCESS', noAccessSentence(refusal));
    }
    const session = startCookieSession(req, res, access, {
      name: principal.name,
      role: principal.rights.role,
      via: 'cookie',
      method,
      credential: principal.credential,
      ...(principal.groups ? { groups: principal.groups } : {}),
    });
    if (method === 'password') res.append('Set-Cookie', ctx.devices.issue(principal.name, req.secure));
    // Answered once the session is on disk: a restart right after still knows this browser.
    await access.sessions.persisted();
    await audit.append({
      action: 'login',
      outcome: 'ok',
      actor: { name: principal.name, role: principal.rights.role, via: 'cookie' },
      details: { method, ...(principal.groups ? { groups: principal.groups } : {}) },
      ...(req.ip ? { remoteAddress: req.ip } : {}),
    });
    return meOf(access, { identity: identityOfPrincipal(principal), session });
  });

  api.handle(ROUTES.signInMethods, {}, async ({ req, res }) => {
    const methods: SignInMethods = {
      ...(access.credentials?.methods ?? { password: false, token: false }),
      ...(access.oidcName ? { oidc: { name: access.oidcName, url: OIDC_LOGIN_PATH } } : {}),
    };
    // A browser whose session ended is told why on the sign-in page (its cookie names the ended session).
    await access.prepare(req.headers).catch(() => undefined);
    const cookie = readCookie(req.headers.cookie);
    const end = access.sessions.get(cookie) ? null : access.sessions.endOf(cookie);
    res.setHeader('Cache-Control', 'no-store');
    return end ? { ...methods, ended: { reason: end.reason, at: end.at } } : methods;
  });

  api.handle(ROUTES.logout, {}, async ({ req, res, reply }) => {
    const { identity, session } = identified(res);
    res.setHeader('Set-Cookie', [clearedSessionCookie(req.secure), clearedHintCookie(req.secure)]);
    if (session) {
      access.endSession(session.id, 'signed out');
      await access.sessions.persisted();
      await audit.append({
        action: 'logout',
        outcome: 'ok',
        actor: { name: identity.name, role: identity.role, via: identity.via },
        ...(req.ip ? { remoteAddress: req.ip } : {}),
      });
    }
    return reply(204, undefined);
  });

  api.handle(ROUTES.me, {}, ({ res }) => {
    res.setHeader('Cache-Control', 'no-store');
    return meOf(access, identified(res));
  });
}
