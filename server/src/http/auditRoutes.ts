/** The audit trail, newest first (admins only): GET /api/audit?limit=&before=<seq>; with replicas, every replica's shared window. */
import { Router } from 'express';
import { auditQuerySchema } from '@keeper/shared';
import type { AuditLog } from '../audit/auditLog.js';
import { parseOr400 } from './jsonBody.js';
import { sendFailure } from './apiErrors.js';
import { requireAdmin } from './requestIdentity.js';

export function auditRoutes(audit: AuditLog): Router {
  const router = Router();
  router.get('/audit', requireAdmin, async (req, res) => {
    const q = parseOr400(auditQuerySchema, req.query, res, 'INVALID_QUERY');
    if (!q) return;
    try {
      res.json(await audit.page({ limit: q.limit, ...(q.before !== undefined ? { before: q.before } : {}) }));
    } catch (error) {
      // With replicas the window is read from the home ensemble: unreachable is said, never an empty trail.
      sendFailure(res, error);
    }
  });
  return router;
}
