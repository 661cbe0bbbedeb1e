/** Serves the built web app, with index.html for every deep link (/ensembles/x/znodes/a/b). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';

export function staticWeb(distDir: string): Router {
  const router = express.Router();
  const index = join(distDir, 'index.html');
  router.use(express.static(distDir, { index: false, maxAge: '1h', immutable: false }));
  router.get('/{*any}', (req, res, next) => {
    if (req.path.startsWith('/api/') || req.path === '/ws') return next();
    if (!existsSync(index)) {
      res.status(503).type('text/plain').send('The web app is not built: run `npm run build -w web`.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
