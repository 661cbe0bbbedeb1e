/**
 * GET /metrics for Prometheus, outside /api: a scraper has no sign-in session, so this route has
 * its own door, checked before anything else of the request is read:
 * - `off`: 404, as if there were no such route;
 * - `loopback`: only a scraper on this machine, and never a request that came through a proxy
 *   (an X-Forwarded-For from a local nginx means the caller is elsewhere);
 * - `token`: `Authorization: Bearer <token>`, compared in constant time; a wrong one counts as a
 *   failed sign-in (the same limiter, audited), so it cannot be guessed at speed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { MetricsAccess } from '../config/types.js';
import type { SignInGuard } from '../auth/signInAudit.js';
import type { KeeperMetrics } from '../metrics/keeperMetrics.js';

/** The TCP peer is this machine: 127.0.0.0/8 or ::1, also as an IPv4-mapped IPv6 address. */
function isLoopbackAddress(address: string): boolean {
  const plain = address.replace(/^::ffff:/i, '');
  return plain === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function bearerOf(req: Request): string | null {
  const header = req.headers.authorization;
  const match = header ? /^Bearer ([!-~]{1,512})$/.exec(header) : null;
  return match ? match[1]! : null;
}

export function metricsRoute(access: MetricsAccess, metrics: KeeperMetrics, guard: SignInGuard): Router {
  const router = Router();
  const refuse = (res: Response, status: number, message: string) => res.status(status).type('text/plain').send(`${message}\n`);
  router.get('/metrics', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    switch (access.access) {
      case 'off':
        return refuse(res, 404, 'metrics are off (config "metrics": {"access": "loopback" | "token"})');
      case 'loopback':
        if (!isLoopbackAddress(req.socket.remoteAddress ?? '') || req.headers['x-forwarded-for'] !== undefined) {
          return refuse(res, 403, 'metrics are served to this machine only (config "metrics": {"access": "token"} for a remote scraper)');
        }
        break;
      case 'token': {
        const address = req.socket.remoteAddress ?? 'unknown';
        const attempt = { address, name: 'metrics', method: 'bearer' as const, transport: 'http' as const };
        const given = bearerOf(req);
        // The right token always passes; only wrong ones meet the sign-in limiter (signInAudit.ts).
        if (given === null || !sameSecret(given, access.token)) {
          const wait = await guard.rejected(attempt, given === null ? 'metrics scrape without a bearer token' : 'wrong metrics token');
          if (wait) {
            res.set('Retry-After', String(wait.retryAfterSeconds));
            return refuse(res, 429, `too many wrong metrics tokens; try again in ${wait.retryAfterSeconds} s`);
          }
          res.set('WWW-Authenticate', 'Bearer realm="keeper-metrics"');
          return refuse(res, 401, 'a bearer token is needed to read the metrics');
        }
        break;
      }
    }
    res.type(metrics.contentType).send(await metrics.text());
  });
  return router;
}
