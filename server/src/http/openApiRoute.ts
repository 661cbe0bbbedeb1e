/**
 * GET /api/openapi.json: the HTTP contract (shared/src/protocol/http), for scripts and alerting.
 * Any signed-in identity may read it; share-link holders may not (shareScopeGuard.ts denies by
 * default): a link is for looking at one page, not for scripting against the console.
 */
import { Router } from 'express';
import { buildOpenApiDocument } from '@keeper/shared';

export function openApiRoute(serverVersion: string): Router {
  const router = Router();
  let document: string | null = null;
  router.get('/openapi.json', (_req, res) => {
    // Built on first use (about 0.4 MB); the schemas do not change while the server runs.
    document ??= JSON.stringify(buildOpenApiDocument(serverVersion));
    res.type('application/json').send(document);
  });
  return router;
}
