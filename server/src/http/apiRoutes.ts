/** The JSON API for scripts and alerting: the same nouns the UI shows. */
import { isLive, ROUTES } from '@keeper/shared';
import type { Ensembles } from '../ensemble/ensembles.js';
import { ensembleOf } from './ensembleLookup.js';
import type { Identified } from '../auth/accessControl.js';
import { ChildrenPageCache } from './childrenPageCache.js';
import { readZnodePage } from './znodePage.js';
import type { ApiRoutes } from './apiRoute.js';
import { validPathOr400 } from './validPath.js';

export interface ApiContext {
  ensembles: Ensembles;
  version: string;
  startedAt: number;
}

export function apiRoutes(api: ApiRoutes, ctx: ApiContext): void {
  const pageCache = new ChildrenPageCache();

  api.handle(ROUTES.health, {}, () => {
    const ensembles = [...ctx.ensembles].map((e) => ({ name: e.name, state: e.gateway.session.state }));
    return {
      status: ensembles.every((e) => isLive(e.state)) ? ('ok' as const) : ('degraded' as const),
      version: ctx.version,
      uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
      ensembles,
    };
  });

  api.handle(ROUTES.ensembles, {}, ({ res }) => {
    // A share-link holder sees its link's ensemble only (shareScopeGuard.ts refuses the others).
    const scope = (res.locals.identified as Identified | undefined)?.identity.shareScope;
    return { ensembles: [...ctx.ensembles].filter((e) => !scope || e.name === scope.ensemble).map((e) => e.summary()) };
  });

  api.handle(ROUTES.ensemble, {}, ({ res }) => ensembleOf(res).summary());

  api.handle(ROUTES.znode, {}, ({ params, query, res }) => {
    validPathOr400(params.path);
    return readZnodePage(ensembleOf(res).gateway, pageCache, params.path, query.offset, query.limit);
  });
}
