/** The JSON API for scripts and alerting: the same nouns the UI shows. */
import { isLive, ROUTES } from '@keeper/shared';
import type { Ensembles } from '../ensemble/ensembles.js';
import { ensembleOf } from './ensembleLookup.js';
import type { Identified } from '../auth/accessControl.js';
import { ChildrenPageCache } from './childrenPageCache.js';
import { readZnodePage } from './znodePage.js';
import type { ApiRoutes } from './apiRoute.js';
import { validPathOr400 } from './validPath.js';
import { sessionAudience, summaryFor } from '../auth/sessionView.js';

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

  /** Who asks, for what they may see of the console's session (sessionView.ts). */
  const audienceOf = (locals: Record<string, unknown>) => {
    const identity = (locals.identified as Identified | undefined)?.identity;
    return sessionAudience(identity?.role ?? 'viewer', identity?.shareScope);
  };

  api.handle(ROUTES.ensembles, {}, ({ res }) => {
    // A share-link holder sees its link's ensemble only (shareScopeGuard.ts refuses the others).
    const scope = (res.locals.identified as Identified | undefined)?.identity.shareScope;
    const audience = audienceOf(res.locals);
    return { ensembles: [...ctx.ensembles].filter((e) => !scope || e.name === scope.ensemble).map((e) => summaryFor(e.summary(), audience)) };
  });

  api.handle(ROUTES.ensemble, {}, ({ res }) => summaryFor(ensembleOf(res).summary(), audienceOf(res.locals)));

  api.handle(ROUTES.znode, {}, ({ params, query, res }) => {
    validPathOr400(params.path);
    return readZnodePage(ensembleOf(res).gateway, pageCache, params.path, query.offset, query.limit);
  });
}
