/** The audit trail, newest first (admins only): ROUTES.audit, ?limit=&before=<seq>; with replicas, every replica's shared window. */
import { ROUTES } from '@keeper/shared';
import type { AuditLog } from '../audit/auditLog.js';
import type { ApiRoutes } from './apiRoute.js';

export function auditRoutes(api: ApiRoutes, audit: AuditLog): void {
  // With replicas the window is read from the home ensemble: unreachable is said (its error's status), never an empty trail.
  api.handle(ROUTES.audit, {}, ({ query }) => audit.page({ limit: query.limit, ...(query.before !== undefined ? { before: query.before } : {}) }));
}
