/**
 * The Locks view's API, behind ensembleLookup (paths relative to /api/ensembles/<name>):
 *   GET  /locks?path=<root>&offset=&limit=&q=   one page of the tracked locks at or under root, worst first (viewers too)
 *   GET  /locks/<path>           one lock directory, tracked and live from then on (until nobody looks)
 *   POST /locks/scan   {path}    admin: a paced, budgeted scan as a job (202 {job})
 *   POST /locks/scan/cancel {scanId}   admin: stops a running scan, whichever replica runs it (200 stopped, 202 not confirmed yet)
 *   GET  /lock-scans              the last scans (with replicas: every replica's, from the home ensemble)
 *   POST /locks/delete {path, owner, version, confirmHolder?}   admin: one contender, re-checked
 *   POST /locks/clean  {path, dryRun}                          admin: leaked contenders
 * Writes check identity and role before reading the body (apiRoute.ts), like every other write.
 * Reads answer from the tracker's kept reports (never an analysis per request), and what a
 * share link gets passes its scope: its subtree only, owners and addresses only with the
 * ensemble views (shared/src/locks/scope.ts).
 */
import type { Request, Response } from 'express';
import { ROUTES, type AuditAction, type LockScope } from '@keeper/shared';
import type { Identified } from '../auth/accessControl.js';
import { TooManyLocksError } from '../locks/lockTracker.js';
import { OpError } from '../admin/opError.js';
import { ensembleOf } from './ensembleLookup.js';
import { caller } from './requestIdentity.js';
import { SENT, type ApiRoutes } from './apiRoute.js';
import { validPathOr400 } from './validPath.js';

const LOCK_BODY_LIMIT = '16kb';
/** A clean names the contenders its dry run listed: up to LOCK_CLEAN_MAX of them. */
const LOCK_CLEAN_BODY_LIMIT = '128kb';

/** A share-link holder's scope; null for everyone else. */
function scopeOf(res: Response): LockScope | null {
  return (res.locals.identified as Identified | undefined)?.identity.shareScope ?? null;
}

export function lockRoutes(api: ApiRoutes): void {
  const refused = (action: AuditAction) => (req: Request) => ({ action, ensemble: String((req.params as { name?: unknown }).name) });

  // Registered before one lock's route, whose optional path would otherwise also match the list.
  api.handle(ROUTES.locks, {}, ({ query, res }) => {
    // Serialized once per version of the page, whoever asks.
    res.type('application/json').send(ensembleOf(res).locks.listJson(query, scopeOf(res)));
    return SENT;
  });

  api.handle(ROUTES.lockScan, { bodyLimit: LOCK_BODY_LIMIT, refused: refused('lock.scan') }, async ({ body, req, res }) => ({
    job: await ensembleOf(res).lockScans.start(caller(req, res), body.path),
  }));

  api.handle(ROUTES.lockScanCancel, { bodyLimit: LOCK_BODY_LIMIT, refused: refused('lock.scan') }, async ({ body, req, res, reply }) => {
    const { status, answer } = await ensembleOf(res).lockScans.cancel(caller(req, res), body.scanId, body.waitMs);
    return reply(status, answer);
  });

  api.handle(ROUTES.lockScans, {}, ({ res }) => ({ ensemble: ensembleOf(res).name, ...ensembleOf(res).lockScans.list() }));

  api.handle(ROUTES.lockDelete, { bodyLimit: LOCK_BODY_LIMIT, refused: refused('lock.delete') }, ({ body, req, res }) =>
    ensembleOf(res).lockActions.delete(caller(req, res), body),
  );

  api.handle(ROUTES.lockClean, { bodyLimit: LOCK_CLEAN_BODY_LIMIT, refused: refused('lock.clean') }, ({ body, req, res }) =>
    ensembleOf(res).lockActions.clean(caller(req, res), body),
  );

  api.handle(ROUTES.lock, {}, async ({ params, res }) => {
    validPathOr400(params.path);
    try {
      const answer = await ensembleOf(res).locks.open(params.path, scopeOf(res));
      if (answer.kind === 'notLock') throw new OpError('NOT_A_LOCK', answer.message);
      return answer.lock;
    } catch (error) {
      throw error instanceof TooManyLocksError ? new OpError('TOO_MANY_LOCKS', error.message) : error;
    }
  });
}
