/**
 * Resizing's API (issue 24 item 4), behind ensembleLookup (paths relative to /api/ensembles/<name>):
 *   GET  /reconfig                                  the history, newest first (viewers too)
 *   POST /reconfig  {add?, remove?, roles?, start?, confirmation?}   admin: plan (201); a refused plan is 409 with the reason
 *   GET  /reconfig/<id>                             one workflow
 *   POST /reconfig/<id>/{start|pause|resume|abort}  admin
 * Writes check identity and role before reading the body (apiRoute.ts), and are audited. A
 * filled startCommand is read by admins only (reconfigForReader).
 */
import type { Request } from 'express';
import { ROUTES, reconfigForReader, type AuditAction, type ReconfigWorkflow } from '@keeper/shared';
import type { Admin } from '../admin/admin.js';
import { ensembleOf } from './ensembleLookup.js';
import { caller, identityOf } from './requestIdentity.js';
import type { ApiRoutes } from './apiRoute.js';

const RECONFIG_BODY_LIMIT = '16kb';

const summary = (wf: ReconfigWorkflow) => ({
  reconfigId: wf.id,
  state: wf.state,
  fromConfig: wf.fromConfig,
  size: wf.sizeSentence,
  steps: wf.steps.map((s) => s.zkCli),
});

export function reconfigRoutes(api: ApiRoutes, admin: Admin): void {
  // A refusal comes before the parameters are parsed: what it records is cut to size here.
  const param = (req: Request, name: string) => String((req.params as Record<string, unknown>)[name] ?? '');
  const refused = (action: AuditAction) => (req: Request) => ({
    action,
    ensemble: param(req, 'name'),
    details: { reconfigId: param(req, 'id').slice(0, 64), action: param(req, 'action').slice(0, 32) },
  });

  api.handle(ROUTES.reconfigs, {}, ({ res }) => {
    const { name, reconfig } = ensembleOf(res);
    const admin = identityOf(res).role === 'admin';
    return { ensemble: name, reconfigs: reconfig.list().map((wf) => reconfigForReader(wf, admin)) };
  });

  api.handle(ROUTES.reconfigCreate, { bodyLimit: RECONFIG_BODY_LIMIT, refused: refused('reconfig.create') }, async ({ body, req, res }) => {
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    const details = { add: body.add ?? [], remove: body.remove ?? [], roles: body.roles ?? {}, start: body.start ?? false };
    return admin.audited(who, { action: 'reconfig.create', ensemble: ensemble.name, details }, async (record) => {
      const created = await ensemble.reconfig.create(who.identity.name, body);
      record.details = { ...details, ...summary(created) };
      return created;
    });
  });

  api.handle(ROUTES.reconfig, {}, ({ params, res }) => reconfigForReader(ensembleOf(res).reconfig.get(params.id), identityOf(res).role === 'admin'));

  api.handle(ROUTES.reconfigAction, { bodyLimit: RECONFIG_BODY_LIMIT, refused: refused('reconfig.action') }, async ({ params, body, req, res }) => {
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    const details = { reconfigId: params.id.slice(0, 64), action: params.action, ...(body.reason ? { reason: body.reason } : {}) };
    return admin.audited(who, { action: 'reconfig.action', ensemble: ensemble.name, details }, () =>
      ensemble.reconfig.act(who.identity.name, params.id, params.action, body),
    );
  });
}
