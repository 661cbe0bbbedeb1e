/** The audit trail, newest first (admins only): GET /api/audit?limit=&before=<seq>. */
import { Router } from 'express';
import { z } from 'zod';
import type { AuditLog } from '../audit/auditLog.js';
import { MAX_AUDIT_PAGE } from '../audit/auditLog.js';
import { parseOr400 } from './jsonBody.js';
import { requireAdmin } from './requestIdentity.js';

const query = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_PAGE).default(100),
  before: z.coerce.number().int().min(1).optional(),
});

export function auditRoutes(audit: AuditLog): Router {
  const router = Router();
  router.get('/audit', requireAdmin, async (req, res) => {
    const q = parseOr400(query, req.query, res, 'INVALID_QUERY');
    if (!q) return;
    const entries = await audit.list({ limit: q.limit, ...(q.before !== undefined ? { before: q.before } : {}) });
    const last = entries.at(-1);
    // `next` pages on: pass it as `before` (absent when this page reached the beginning).
    res.json({ entries, ...(entries.length === q.limit && last ? { next: last.seq } : {}) });
  });
  return router;
}
