/** The audit trail, newest first (admins only): GET /api/audit?limit=&before=<seq>. */
import { Router } from 'express';
import { auditQuerySchema, type AuditPage } from '@keeper/shared';
import type { AuditLog } from '../audit/auditLog.js';
import { parseOr400 } from './jsonBody.js';
import { requireAdmin } from './requestIdentity.js';

export function auditRoutes(audit: AuditLog): Router {
  const router = Router();
  router.get('/audit', requireAdmin, async (req, res) => {
    const q = parseOr400(auditQuerySchema, req.query, res, 'INVALID_QUERY');
    if (!q) return;
    const entries = await audit.list({ limit: q.limit, ...(q.before !== undefined ? { before: q.before } : {}) });
    const last = entries.at(-1);
    // `next` pages on: pass it as `before` (absent when this page reached the beginning).
    const page: AuditPage = { entries, ...(entries.length === q.limit && last ? { next: last.seq } : {}) };
    res.json(page);
  });
  return router;
}
