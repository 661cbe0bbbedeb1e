/**
 * GET /api/openapi.json (ROUTES.openApi): the HTTP contract (shared/src/protocol/http), for
 * scripts and alerting. Any signed-in identity may read it; share-link holders may not
 * (shareScopeGuard.ts denies by default): a link is for looking at one page, not for scripting
 * against the console.
 */
import { buildOpenApiDocument, ROUTES } from '@keeper/shared';
import { SENT, type ApiRoutes } from './apiRoute.js';

export function openApiRoute(api: ApiRoutes, serverVersion: string): void {
  let document: string | null = null;
  api.handle(ROUTES.openApi, {}, ({ res }) => {
    // Built on first use (about 0.4 MB); the schemas do not change while the server runs.
    document ??= JSON.stringify(buildOpenApiDocument(serverVersion));
    res.type('application/json').send(document);
    return SENT;
  });
}
