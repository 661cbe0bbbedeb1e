/**
 * The Locks view's API, mounted at /api/ensembles/:name behind ensembleLookup:
 *   GET  /locks?path=<root>&offset=&limit=&q=   one page of the tracked locks at or under root, worst first (viewers too)
 *   GET  /locks/<path>           one lock directory, tracked and live from then on (until nobody looks)
 *   POST /locks/scan   {path}    admin: a paced, budgeted scan as a job (202 {job})
 *   POST /locks/delete {path, owner, version, confirmHolder?}   admin: one contender, re-checked
 *   POST /locks/clean  {path, dryRun}                          admin: leaked contenders
 * Writes check identity and role before reading the body (adminOnly), like every other write.
 * Reads answer from the tracker's kept reports (never an analysis per request), and what a
 * share link gets passes its scope: its subtree only, owners and addresses only with the
 * ensemble views (shared/src/locks/scope.ts).
 */
import { Router, type Request, type Response } from 'express';
import { checkPath, lockCleanBodySchema, lockDeleteBodySchema, lockScanBodySchema, locksQuerySchema, type AuditAction, type LockScope } from '@keeper/shared';
import type { Identified } from '../auth/accessControl.js';
import { TooManyLocksError } from '../locks/lockTracker.js';
import type { Admin } from '../admin/admin.js';
import { OpError } from '../admin/opError.js';
import { sendError, sendFailure } from './apiErrors.js';
import { ensembleOf } from './ensembleLookup.js';
import { jsonBody, parseOr400, wildcardPath } from './jsonBody.js';
import { adminOnly } from './opsRoutes.js';
import { caller } from './requestIdentity.js';

const LOCK_BODY_LIMIT = '16kb';
/** A clean names the contenders its dry run listed: up to LOCK_CLEAN_MAX of them. */
const LOCK_CLEAN_BODY_LIMIT = '128kb';

/** A share-link holder's scope; null for everyone else. */
function scopeOf(res: Response): LockScope | null {
  return (res.locals.identified as Identified | undefined)?.identity.shareScope ?? null;
}

export function lockRoutes(admin: Admin): Router {
  const router = Router({ mergeParams: true });
  const name = (req: Request) => (req.params as { name: string }).name;
  const refused = (action: AuditAction) => (req: Request) => ({ action, ensemble: name(req) });

  router.get('/locks', (req, res) => {
    const query = parseOr400(locksQuerySchema, req.query, res, 'INVALID_QUERY');
    if (!query) return;
    // Serialized once per version of the page, whoever asks.
    res.type('application/json').send(ensembleOf(res).locks.listJson(query, scopeOf(res)));
  });

  router.post('/locks/scan', adminOnly(admin, refused('lock.scan')), ...jsonBody(LOCK_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(lockScanBodySchema, req.body, res);
    if (!body) return;
    try {
      res.status(202).json({ job: await ensembleOf(res).lockScans.start(caller(req, res), body.path) });
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.post('/locks/delete', adminOnly(admin, refused('lock.delete')), ...jsonBody(LOCK_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(lockDeleteBodySchema, req.body, res);
    if (!body) return;
    try {
      res.json(await ensembleOf(res).lockActions.delete(caller(req, res), body));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.post('/locks/clean', adminOnly(admin, refused('lock.clean')), ...jsonBody(LOCK_CLEAN_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(lockCleanBodySchema, req.body, res);
    if (!body) return;
    try {
      res.json(await ensembleOf(res).lockActions.clean(caller(req, res), body));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.get('/locks/*path', async (req, res) => {
    const path = wildcardPath(req.params);
    const check = checkPath(path);
    if (!check.ok) return sendError(res, 'INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`);
    try {
      const answer = await ensembleOf(res).locks.open(path, scopeOf(res));
      if (answer.kind === 'notLock') return sendError(res, 'NOT_A_LOCK', answer.message);
      res.json(answer.lock);
    } catch (error) {
      sendFailure(res, error instanceof TooManyLocksError ? new OpError('TOO_MANY_LOCKS', error.message) : error);
    }
  });

  return router;
}
