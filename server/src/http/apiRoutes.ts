/** The JSON API for scripts and alerting: the same nouns the UI shows. */
import { Router, type Request } from 'express';
import { z } from 'zod';
import { DEFAULT_CHILDREN_PAGE, MAX_CHILDREN_PAGE, checkPath, encodeZnodeData, isLive, type HealthResponse, type ZnodeResponse } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import type { Identified } from '../auth/accessControl.js';
import { sendError, sendZkError } from './apiErrors.js';
import { ChildrenPageCache } from './childrenPageCache.js';

export interface ApiContext {
  gateways: ReadonlyMap<string, ZkGateway>;
  version: string;
  startedAt: number;
}

const pageQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(0).max(MAX_CHILDREN_PAGE).default(DEFAULT_CHILDREN_PAGE),
});

/** Express 5 gives a wildcard as its segments; rebuild the znode path from them. */
function znodePathOf(req: Request): string {
  const segments = (req.params as { path?: string[] | string }).path;
  if (segments === undefined) return '/';
  const parts = Array.isArray(segments) ? segments : [segments];
  return `/${parts.join('/')}`;
}

export function apiRoutes(ctx: ApiContext): Router {
  const router = Router();
  const pageCache = new ChildrenPageCache();

  router.get('/health', (_req, res) => {
    const ensembles = [...ctx.gateways.values()].map((g) => ({ name: g.name, state: g.session.state }));
    const body: HealthResponse = {
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
    res.json({ ensembles: [...ctx.gateways.values()].filter((g) => !scope || g.name === scope.ensemble).map((g) => ({ name: g.name, connectionString: g.connectionString, session: g.session })) });
  });

  router.get('/ensembles/:name', (req, res) => {
    const gateway = ctx.gateways.get(req.params.name);
    if (!gateway) return sendError(res, 404, 'UNKNOWN_ENSEMBLE', `no ensemble named ${JSON.stringify(req.params.name)}`);
    res.json({ name: gateway.name, connectionString: gateway.connectionString, session: gateway.session });
  });

  router.get(['/ensembles/:name/znodes', '/ensembles/:name/znodes/*path'], async (req, res) => {
    const gateway = ctx.gateways.get(req.params.name as string);
    if (!gateway) return sendError(res, 404, 'UNKNOWN_ENSEMBLE', `no ensemble named ${JSON.stringify(req.params.name)}`);
    const path = znodePathOf(req);
    const check = checkPath(path);
    if (!check.ok) return sendError(res, 400, 'INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`);
    const page = pageQuery.safeParse(req.query);
    if (!page.success) return sendError(res, 400, 'INVALID_QUERY', page.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    try {
      const [node, children] = await Promise.all([gateway.getData(path), gateway.getChildren(path)]);
      const { offset, limit } = page.data;
      const names = pageCache.page(`${gateway.name}\0${path}`, children.stat.pzxid, children.children, offset, limit);
      const body: ZnodeResponse = {
        ensemble: gateway.name,
        path,
        stat: node.stat,
        data: encodeZnodeData(node.data),
        children: { total: children.children.length, offset, limit, names },
      };
      res.json(body);
    } catch (error) {
      sendZkError(res, error);
    }
  });

  router.use((_req, res) => sendError(res, 404, 'NOT_FOUND', 'no such API route'));
  return router;
}
