/** Sign-in, sign-out and "who am I" (POST /api/login, POST /api/logout, GET /api/me). */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { loginBodySchema, type MeResponse } from '@keeper/shared';
import type { AccessControl } from '../auth/accessControl.js';
import type { AuditLog } from '../audit/auditLog.js';
import { clearedSessionCookie, sessionCookie } from '../auth/cookies.js';
import type { Principal } from '../auth/credentials.js';
import type { Session } from '../auth/sessionStore.js';
import { sendError } from './apiErrors.js';
import { jsonBody, parseOr400 } from './jsonBody.js';
import { identified } from './requestIdentity.js';

export interface AuthRouteContext {
  access: AccessControl;
  audit: AuditLog;
  loginLimiter: RequestHandler;
}

/** Starts a cookie session and sets its cookie (also used by the ?token= page sign-in). */
export function startCookieSession(req: Request, res: Response, access: AccessControl, spec: Parameters<AccessControl['sessions']['create']>[0]): Session {
  const session = access.sessions.create(spec);
  res.setHeader('Set-Cookie', sessionCookie(session.id, { maxAgeSeconds: (session.expiresAt - Date.now()) / 1000, secure: req.secure }));
  return session;
}

export function authRoutes(ctx: AuthRouteContext): Router {
  const router = Router();
  const { access, audit } = ctx;

  router.post('/login', ctx.loginLimiter, ...jsonBody('16kb'), async (req, res) => {
    if (access.credentials === null) return sendError(res, 400, 'AUTH_NOT_CONFIGURED', 'no identity is configured: this console is open to every local caller');
    const body = parseOr400(loginBodySchema, req.body, res);
    if (!body) return;
    const attempted = 'username' in body ? body.username : 'token';
    const principal: Principal | null = 'username' in body ? await access.credentials.verifyPassword(body.username, body.password) : access.credentials.verifyToken(body.token);
    const remoteAddress = req.ip ? { remoteAddress: req.ip } : {};
    if (!principal) {
      await audit.append({ action: 'login', outcome: 'failed', actor: { name: attempted, role: null, via: 'cookie' }, error: { code: 'INVALID_CREDENTIALS', message: 'wrong user name, password or token' }, ...remoteAddress });
      return sendError(res, 401, 'INVALID_CREDENTIALS', 'wrong user name, password or token');
    }
    const session = startCookieSession(req, res, access, { name: principal.name, role: principal.role, via: 'cookie' });
    await audit.append({ action: 'login', outcome: 'ok', actor: { name: principal.name, role: principal.role, via: 'cookie' }, details: { method: 'username' in body ? 'password' : 'token' }, ...remoteAddress });
    const me: MeResponse = { name: principal.name, role: principal.role, via: 'cookie', csrfToken: session.csrfToken };
    res.json(me);
  });

  router.post('/logout', async (req, res) => {
    const { identity, session } = identified(res);
    res.setHeader('Set-Cookie', clearedSessionCookie(req.secure));
    if (session) {
      access.endSession(session.id, 'signed out');
      await audit.append({ action: 'logout', outcome: 'ok', actor: { name: identity.name, role: identity.role, via: identity.via }, ...(req.ip ? { remoteAddress: req.ip } : {}) });
    }
    res.status(204).end();
  });

  router.get('/me', (_req, res) => {
    const { identity, session } = identified(res);
    const link = identity.shareLinkId ? access.shareLinks.get(identity.shareLinkId) : null;
    const me: MeResponse = {
      name: identity.name,
      role: identity.role,
      via: identity.via,
      ...(session ? { csrfToken: session.csrfToken } : {}),
      ...(link ? { shareLink: { id: link.id, path: link.path, expiresAt: link.expiresAt } } : {}),
    };
    res.setHeader('Cache-Control', 'no-store');
    res.json(me);
  });

  return router;
}
