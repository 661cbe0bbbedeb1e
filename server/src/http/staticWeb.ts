/**
 * Serves the built web app, with index.html for every deep link (/ensembles/x/znodes/a/b).
 *
 * - Compressed (br or gzip, as the browser asks): the build's own precompressed files where they
 *   exist (brotli at its highest quality, see precompressed.ts), else by the `compression`
 *   middleware. Only this router compresses: API answers carry session secrets (the CSRF token)
 *   beside data a page can reflect, the pattern BREACH exploits, and the WebSocket upgrade never
 *   reaches Express.
 * - Files under /assets have a content hash in their name: cached for a year, immutable.
 *   index.html (and anything else unhashed) is revalidated on every load, so a new build is
 *   picked up at once.
 * - Source maps are never served: the build writes them as "hidden" (no sourceMappingURL
 *   comment) for whoever runs it, and /assets/*.map answers 404 here. A missing /assets file
 *   is a 404 too, not index.html, so a stale page sees a failed load and not HTML as script.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import compression from 'compression';
import { API_PREFIX } from '@keeper/shared';
import express, { type RequestHandler, type Router } from 'express';
import { fileUnder, sendPrecompressed } from './precompressed.js';

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

export function staticWeb(distDir: string): Router {
  const router = express.Router();
  const index = join(distDir, 'index.html');
  router.use(compression());
  const notFound: RequestHandler = (_req, res) => {
    res.status(404).type('text/plain').send('Not found');
  };
  router.use('/assets', (req, res, next) => (req.path.endsWith('.map') ? notFound(req, res, next) : next()));
  router.use('/assets', (req, res, next) => {
    const file = fileUnder(join(distDir, 'assets'), req.path);
    if (file === null || !sendPrecompressed(req, res, file, IMMUTABLE)) next();
  });
  router.use('/assets', express.static(join(distDir, 'assets'), { index: false, setHeaders: (res) => res.setHeader('Cache-Control', IMMUTABLE) }));
  router.use('/assets', notFound);
  router.use((req, res, next) => {
    const file = fileUnder(distDir, req.path);
    if (file === null || req.path === '/' || !sendPrecompressed(req, res, file, REVALIDATE)) next();
  });
  router.use(express.static(distDir, { index: false, setHeaders: (res) => res.setHeader('Cache-Control', REVALIDATE) }));
  router.get('/{*any}', (req, res, next) => {
    if (req.path.startsWith(`${API_PREFIX}/`) || req.path === '/ws') return next();
    if (!existsSync(index)) {
      res.status(503).type('text/plain').send('The web app is not built: run `npm run build -w web`.');
      return;
    }
    if (sendPrecompressed(req, res, index, REVALIDATE)) return;
    res.setHeader('Cache-Control', REVALIDATE);
    res.sendFile(index);
  });
  return router;
}
