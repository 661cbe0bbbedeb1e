/**
 * The Upgrades view's API, mounted at /api/ensembles/:name behind ensembleLookup:
 *   GET  /upgrades                                   the history, newest first (viewers too)
 *   POST /upgrades  {mode, targetVersion?, note?, start?, confirmation?}   admin: plan (201)
 *   GET  /upgrades/<id>                              one workflow with its checks and progress
 *   POST /upgrades/<id>/{start|pause|resume|abort}   admin
 *   POST /upgrades/<id>/steps/<member>/{skip|markDone|restartAgain}   admin (member: id or host:port)
 * Writes check identity and role before reading the body (adminOnly), and are audited. Only admins
 * read a restart command's line, output and process; everyone else gets its outcome and exit code.
 */
import { Router, type Request } from 'express';
import {
  upgradeActionBodySchema,
  upgradeActionSchema,
  upgradeCreateBodySchema,
  upgradeStepActionBodySchema,
  upgradeStepActionSchema,
  type AuditAction,
  type UpgradeWorkflow,
} from '@keeper/shared';
import type { Admin } from '../admin/admin.js';
import { OpError } from '../admin/opError.js';
import { sendFailure } from './apiErrors.js';
import { ensembleOf } from './ensembleLookup.js';
import { jsonBody, parseOr400 } from './jsonBody.js';
import { adminOnly } from './opsRoutes.js';
import { caller, identityOf } from './requestIdentity.js';

const UPGRADE_BODY_LIMIT = '16kb';

const summary = (wf: UpgradeWorkflow) => ({ upgradeId: wf.id, state: wf.state, mode: wf.mode, targetVersion: wf.targetVersion });

export function upgradeRoutes(admin: Admin): Router {
  const router = Router({ mergeParams: true });
  const params = (req: Request) => req.params as { name: string; id?: string; action?: string; member?: string };
  const refused = (action: AuditAction) => (req: Request) => ({
    action,
    ensemble: params(req).name,
    details: { upgradeId: String(params(req).id ?? '').slice(0, 64), action: String(params(req).action ?? '').slice(0, 32) },
  });

  router.get('/upgrades', (_req, res) => {
    try {
      const { name, upgrades } = ensembleOf(res);
      res.json({ ensemble: name, upgrades: upgrades.list() });
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.post('/upgrades', adminOnly(admin, refused('upgrade.create')), ...jsonBody(UPGRADE_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(upgradeCreateBodySchema, req.body ?? {}, res);
    if (!body) return;
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    try {
      const details = { mode: body.mode, targetVersion: body.targetVersion ?? null, start: body.start ?? false, method: ensemble.upgrades.method };
      const wf = await admin.audited(who, { action: 'upgrade.create', ensemble: ensemble.name, details }, async (record) => {
        const created = await ensemble.upgrades.create(who.identity.name, body);
        record.details = { ...details, ...summary(created) };
        return created;
      });
      res.status(201).json(ensemble.upgrades.answer(wf, who.identity.role));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.get('/upgrades/:id', (req, res) => {
    try {
      const { upgrades } = ensembleOf(res);
      res.json(upgrades.answer(upgrades.get(String(params(req).id)), identityOf(res).role));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.post('/upgrades/:id/:action', adminOnly(admin, refused('upgrade.action')), ...jsonBody(UPGRADE_BODY_LIMIT), async (req, res) => {
    const action = upgradeActionSchema.safeParse(params(req).action);
    if (!action.success)
      return sendFailure(
        res,
        new OpError('NOT_FOUND', `no upgrade action ${JSON.stringify(String(params(req).action).slice(0, 32))}: use start, pause, resume or abort`),
      );
    const body = parseOr400(upgradeActionBodySchema, req.body ?? {}, res);
    if (!body) return;
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    const id = String(params(req).id);
    try {
      const details = { upgradeId: id.slice(0, 64), action: action.data, ...(body.reason ? { reason: body.reason } : {}) };
      const wf = await admin.audited(who, { action: 'upgrade.action', ensemble: ensemble.name, details }, () =>
        ensemble.upgrades.act(who.identity.name, id, action.data, body),
      );
      res.json(ensemble.upgrades.answer(wf, who.identity.role));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.post('/upgrades/:id/steps/:member/:action', adminOnly(admin, refused('upgrade.step')), ...jsonBody(UPGRADE_BODY_LIMIT), async (req, res) => {
    const action = upgradeStepActionSchema.safeParse(params(req).action);
    if (!action.success)
      return sendFailure(
        res,
        new OpError('NOT_FOUND', `no step action ${JSON.stringify(String(params(req).action).slice(0, 32))}: use skip, markDone or restartAgain`),
      );
    const body = parseOr400(upgradeStepActionBodySchema, req.body ?? {}, res);
    if (!body) return;
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    const id = String(params(req).id);
    const member = String(params(req).member);
    try {
      const details = { upgradeId: id.slice(0, 64), member: member.slice(0, 300), action: action.data };
      const wf = await admin.audited(who, { action: 'upgrade.step', ensemble: ensemble.name, details }, () =>
        ensemble.upgrades.stepAct(who.identity.name, id, member, action.data, body.confirmation),
      );
      res.json(ensemble.upgrades.answer(wf, who.identity.role));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  return router;
}
