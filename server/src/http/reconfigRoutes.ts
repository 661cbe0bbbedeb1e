/**
 * Resizing's API (issue 24 item 4), mounted at /api/ensembles/:name behind ensembleLookup:
 *   GET  /reconfig                                  the history, newest first (viewers too)
 *   POST /reconfig  {add?, remove?, roles?, start?, confirmation?}   admin: plan (201); a refused plan is 409 with the reason
 *   GET  /reconfig/<id>                             one workflow
 *   POST /reconfig/<id>/{start|pause|resume|abort}  admin
 * Writes check identity and role before reading the body (adminOnly), and are audited.
 */
import { Router, type Request } from 'express';
import { reconfigActionBodySchema, reconfigActionSchema, reconfigCreateBodySchema, type AuditAction, type ReconfigWorkflow } from '@keeper/shared';
import type { Admin } from '../admin/admin.js';
import { OpError } from '../admin/opError.js';
import { sendFailure } from './apiErrors.js';
import { ensembleOf } from './ensembleLookup.js';
import { jsonBody, parseOr400 } from './jsonBody.js';
import { adminOnly } from './opsRoutes.js';
import { caller } from './requestIdentity.js';

const RECONFIG_BODY_LIMIT = '16kb';

const summary = (wf: ReconfigWorkflow) => ({
  reconfigId: wf.id,
  state: wf.state,
  fromConfig: wf.fromConfig,
  size: wf.sizeSentence,
  steps: wf.steps.map((s) => s.zkCli),
});

export function reconfigRoutes(admin: Admin): Router {
  const router = Router({ mergeParams: true });
  const params = (req: Request) => req.params as { name: string; id?: string; action?: string };
  const refused = (action: AuditAction) => (req: Request) => ({
    action,
    ensemble: params(req).name,
    details: { reconfigId: String(params(req).id ?? '').slice(0, 64), action: String(params(req).action ?? '').slice(0, 32) },
  });

  router.get('/reconfig', (_req, res) => {
    try {
      const { name, reconfig } = ensembleOf(res);
      res.json({ ensemble: name, reconfigs: reconfig.list() });
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.post('/reconfig', adminOnly(admin, refused('reconfig.create')), ...jsonBody(RECONFIG_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(reconfigCreateBodySchema, req.body ?? {}, res);
    if (!body) return;
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    try {
      const details = { add: body.add ?? [], remove: body.remove ?? [], roles: body.roles ?? {}, start: body.start ?? false };
      const wf = await admin.audited(who, { action: 'reconfig.create', ensemble: ensemble.name, details }, async (record) => {
        const created = await ensemble.reconfig.create(who.identity.name, body);
        record.details = { ...details, ...summary(created) };
        return created;
      });
      res.status(201).json(wf);
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.get('/reconfig/:id', (req, res) => {
    try {
      res.json(ensembleOf(res).reconfig.get(String(params(req).id)));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.post('/reconfig/:id/:action', adminOnly(admin, refused('reconfig.action')), ...jsonBody(RECONFIG_BODY_LIMIT), async (req, res) => {
    const action = reconfigActionSchema.safeParse(params(req).action);
    if (!action.success)
      return sendFailure(
        res,
        new OpError('NOT_FOUND', `no resize action ${JSON.stringify(String(params(req).action).slice(0, 32))}: use start, pause, resume or abort`),
      );
    const body = parseOr400(reconfigActionBodySchema, req.body ?? {}, res);
    if (!body) return;
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    const id = String(params(req).id);
    try {
      const details = { reconfigId: id.slice(0, 64), action: action.data, ...(body.reason ? { reason: body.reason } : {}) };
      const wf = await admin.audited(who, { action: 'reconfig.action', ensemble: ensemble.name, details }, () =>
        ensemble.reconfig.act(who.identity.name, id, action.data, body),
      );
      res.json(wf);
    } catch (error) {
      sendFailure(res, error);
    }
  });

  return router;
}
