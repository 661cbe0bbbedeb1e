/**
 * Every handler of the HTTP API, registered from the route table in one place: app.ts mounts the
 * result, and a unit test checks that what is registered is exactly the table (a route declared
 * but served by nothing, or served twice, fails it).
 */
import type { AccessControl } from '../auth/accessControl.js';
import type { AuditLog } from '../audit/auditLog.js';
import type { DeviceCookies } from '../auth/deviceCookies.js';
import type { SignInGuard } from '../auth/signInAudit.js';
import type { Ensembles } from '../ensemble/ensembles.js';
import type { Admin } from '../admin/admin.js';
import type { WalkBudget } from '../ops/walkBudget.js';
import type { ZnodeOps } from '../ops/znodeOps.js';
import type { Replicas } from '../replicas/replicas.js';
import { ApiRoutes } from './apiRoute.js';
import { apiRoutes } from './apiRoutes.js';
import { auditRoutes } from './auditRoutes.js';
import { authRoutes } from './authRoutes.js';
import { ensembleRoutes } from './ensembleRoutes.js';
import { lockRoutes } from './lockRoutes.js';
import { openApiRoute } from './openApiRoute.js';
import { opsRoutes } from './opsRoutes.js';
import { replicaRoutes } from './replicaRoutes.js';
import { shareLinkRoutes } from './shareLinkRoutes.js';
import { upgradeRoutes } from './upgradeRoutes.js';
import { reconfigRoutes } from './reconfigRoutes.js';

export interface ApiDependencies {
  access: AccessControl;
  audit: AuditLog;
  guard: SignInGuard;
  devices: DeviceCookies;
  ensembles: Ensembles;
  ops: ZnodeOps;
  admin: Admin;
  walks: WalkBudget;
  /** This Keeper as one of several replicas; null without `"replicas"` in the config. */
  replicas: Replicas | null;
  /** Open sockets bound to a share link, for the list. */
  socketsFor: (linkId: string) => number;
  version: string;
  startedAt: number;
}

export function allApiRoutes(deps: ApiDependencies): ApiRoutes {
  const { access, audit, ops, admin } = deps;
  const api = new ApiRoutes({ refuse: (who, record, refusal) => admin.refuse(who, record, refusal) });
  authRoutes(api, { access, audit, guard: deps.guard, devices: deps.devices });
  shareLinkRoutes(api, { access, audit, ensembles: deps.ensembles, socketsFor: deps.socketsFor });
  auditRoutes(api, audit);
  opsRoutes(api, ops, admin, deps.walks);
  ensembleRoutes(api);
  lockRoutes(api);
  upgradeRoutes(api, admin);
  reconfigRoutes(api, admin);
  replicaRoutes(api, deps.replicas);
  openApiRoute(api, deps.version);
  apiRoutes(api, { ensembles: deps.ensembles, version: deps.version, startedAt: deps.startedAt });
  return api;
}
