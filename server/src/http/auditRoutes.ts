/** The audit trail, newest first (admins only): ROUTES.audit, ?limit=&before=<seq>. */
import { ROUTES } from '@keeper/shared';
import type { AuditLog } from '../audit/auditLog.js';
import type { ApiRoutes } from './apiRoute.js';

export function auditRoutes(api: ApiRoutes, audit: AuditLog): void {
  api.handle(ROUTES.audit, {}, async ({ query }) => {
    const entries = await audit.list({ limit: query.limit, ...(query.before !== undefined ? { before: query.before } : {}) });
    const last = entries.at(-1);
    // `next` pages on: pass it as `before` (absent when this page reached the beginning).
    return { entries, ...(entries.length === query.limit && last ? { next: last.seq } : {}) };
  });
}
