/**
 * The Upgrades view's API, behind ensembleLookup (paths relative to /api/ensembles/<name>):
 *   GET  /upgrades                                   the history, newest first (viewers too)
 *   POST /upgrades  {mode, targetVersion?, note?, start?, confirmation?}   admin: plan (201)
 *   GET  /upgrades/<id>                              one workflow with its checks and progress
 *   POST /upgrades/<id>/{start|pause|resume|abort}   admin
 *   POST /upgrades/<id>/steps/<member>/{skip|markDone|restartAgain}   admin (member: id or host:port)
 * Writes check identity and role before reading the body (apiRoute.ts), and are audited. Only admins
 * read a restart command's line, output and process; everyone else gets its outcome and exit code.
 */
import type { Request } from 'express';
import { ROUTES, type AuditAction, type UpgradeWorkflow } from '@keeper/shared';
import type { Admin } from '../admin/admin.js';
import { ensembleOf } from './ensembleLookup.js';
import { caller, identityOf } from './requestIdentity.js';
import type { ApiRoutes } from './apiRoute.js';

const UPGRADE_BODY_LIMIT = '16kb';

const summary = (wf: UpgradeWorkflow) => ({ upgradeId: wf.id, state: wf.state, mode: wf.mode, targetVersion: wf.targetVersion });

export function upgradeRoutes(api: ApiRoutes, admin: Admin): void {
  // A refusal comes before the parameters are parsed: what it records is cut to size here.
  const param = (req: Request, name: string) => String((req.params as Record<string, unknown>)[name] ?? '');
  const refused = (action: AuditAction) => (req: Request) => ({
    action,
    ensemble: param(req, 'name'),
    details: { upgradeId: param(req, 'id').slice(0, 64), action: param(req, 'action').slice(0, 32) },
  });

  api.handle(ROUTES.upgrades, {}, ({ res }) => {
    const { name, upgrades } = ensembleOf(res);
    return { ensemble: name, upgrades: upgrades.list() };
  });

  api.handle(ROUTES.upgradeCreate, { bodyLimit: UPGRADE_BODY_LIMIT, refused: refused('upgrade.create') }, async ({ body, req, res }) => {
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    const details = { mode: body.mode, targetVersion: body.targetVersion ?? null, start: body.start ?? false, method: ensemble.upgrades.method };
    const wf = await admin.audited(who, { action: 'upgrade.create', ensemble: ensemble.name, details }, async (record, announce) => {
      // With `start`, the entry is written before the start takes effect (upgradeRunner.act), naming the upgrade.
      const created = await ensemble.upgrades.create(who.identity.name, body, (planned) => {
        record.details = { ...details, ...summary(planned) };
        return announce();
      });
      record.details = { ...details, ...summary(created) };
      return created;
    });
    return ensemble.upgrades.answer(wf, who.identity.role);
  });

  api.handle(ROUTES.upgrade, {}, async ({ params, res }) => {
    const { upgrades } = ensembleOf(res);
    return upgrades.answer(await upgrades.readFresh(params.id), identityOf(res).role);
  });

  api.handle(ROUTES.upgradeAction, { bodyLimit: UPGRADE_BODY_LIMIT, refused: refused('upgrade.action') }, async ({ params, body, req, res }) => {
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    const details = { upgradeId: params.id.slice(0, 64), action: params.action, ...(body.reason ? { reason: body.reason } : {}) };
    const wf = await admin.audited(who, { action: 'upgrade.action', ensemble: ensemble.name, details }, (_record, announce) =>
      ensemble.upgrades.act(who.identity.name, params.id, params.action, body, announce),
    );
    return ensemble.upgrades.answer(wf, who.identity.role);
  });

  api.handle(ROUTES.upgradeStepAction, { bodyLimit: UPGRADE_BODY_LIMIT, refused: refused('upgrade.step') }, async ({ params, body, req, res }) => {
    const ensemble = ensembleOf(res);
    const who = caller(req, res);
    const details = { upgradeId: params.id.slice(0, 64), member: params.member.slice(0, 300), action: params.action };
    const wf = await admin.audited(who, { action: 'upgrade.step', ensemble: ensemble.name, details }, () =>
      ensemble.upgrades.stepAct(who.identity.name, params.id, params.member, params.action, body.confirmation),
    );
    return ensemble.upgrades.answer(wf, who.identity.role);
  });
}
