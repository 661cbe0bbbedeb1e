/** The JSON API for scripts and alerting: the same nouns the UI shows. */
import { Router } from 'express';
import { checkPath, childrenPageQuerySchema, isLive, type HealthAnswer } from '@keeper/shared';
import type { Ensembles } from '../ensemble/ensembles.js';
import { ensembleOf } from './ensembleLookup.js';
import type { Identified } from '../auth/accessControl.js';
import { sendError, sendFailure } from './apiErrors.js';
import { ChildrenPageCache } from './childrenPageCache.js';
import { readZnodePage } from './znodePage.js';
import { wildcardPath } from './jsonBody.js';

export interface ApiContext {
  ensembles: Ensembles;
  version: string;
  startedAt: number;
}

export function apiRoutes(ctx: ApiContext): Router {
  const router = Router();
  const pageCache = new ChildrenPageCache();

  router.get('/health', (_req, res) => {
    const ensembles = [...ctx.ensembles].map((e) => ({ name: e.name, state: e.gateway.session.state }));
    const body: HealthAnswer = {
      status: ensembles.every((e) => isLive(e.state)) ? 'ok' : 'degraded',
      version: ctx.version,
      uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
      ensembles,
    };
    res.json(body);
  });

  router.get('/ensembles', (_req, res) => {
    // A share-link holder sees its link's ensemble only (shareScopeGuard.ts refuses the others).
    const scope = (res.locals.identified as Identified | undefined)?.identity.shareScope;
    res.json({ ensembles: [...ctx.ensembles].filter((e) => !scope || e.name === scope.ensemble).map((e) => e.summary()) });
  });

  router.get('/ensembles/:name', (_req, res) => {
    res.json(ensembleOf(res).summary());
  });

  router.get(['/ensembles/:name/znodes', '/ensembles/:name/znodes/*path'], async (req, res) => {
    const { gateway } = ensembleOf(res);
    const path = wildcardPath(req.params);
    const check = checkPath(path);
    if (!check.ok) return sendError(res, 'INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`);
    const page = childrenPageQuerySchema.safeParse(req.query);
    if (!page.success) return sendError(res, 'INVALID_QUERY', page.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    try {
      res.json(await readZnodePage(gateway, pageCache, path, page.data.offset, page.data.limit));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.use((_req, res) => sendError(res, 'NOT_FOUND', 'no such API route'));
  return router;
}
