/**
 * Every route under /api, once, each under its key (`ROUTES.lockScan`): method, path, who may
 * call it, the schemas of its query and body, and its answers per status. The server registers
 * its handlers from these entries (server/src/http/apiRoute.ts), the web calls them with
 * `call(ROUTES.x, ...)` (web/src/lib/api.ts), and the OpenAPI document (openapi.ts) adds each
 * route's summary and error codes from routeDocs.ts. A route that is not here cannot be
 * registered or called: both sides take an entry, never a path string.
 *
 * A znode path is one parameter `{path}` that keeps its slashes (`.../znodes/app/config`); the
 * root is the route without it (`.../znodes`). Other parameters are one URL segment each.
 *
 * Outside /api, and so not here: the page sign-ins (/share/<token>, /?token=), single sign-on
 * (/auth/oidc/*), /metrics, the socket (/ws) and the web app's files. They answer HTML,
 * redirects, Prometheus text or a websocket upgrade, not this contract's JSON.
 */
import { z } from 'zod/mini';
import { route } from './routes.js';
import { ensemblesAnswerSchema, healthSchema, znodeAnswerSchema } from '../api.js';
import { createdShareLinkSchema, createShareLinkBodySchema, loginBodySchema, meAnswerSchema, shareLinkSchema, signInMethodsSchema } from '../access.js';
import { createBodySchema, exportDocumentSchema, setAclBodySchema, setDataBodySchema } from '../ops.js';
import { ensembleSummarySchema } from '../schemas.js';
import { membersAnswerSchema, sessionsAnswerSchema, sizingAnswerSchema, watchesAnswerSchema } from '../../ensemble/types.js';
import { ensembleEventsAnswerSchema } from '../../ensemble/events/schema.js';
import {
  aclAnswerSchema,
  auditPageSchema,
  deleteAnswerSchema,
  importPreviewSchema,
  jobAnswerSchema,
  jobsAnswerSchema,
  setAclAnswerSchema,
  shareLinksAnswerSchema,
  subtreeCountSchema,
  writeAnswerSchema,
  znodeStatAnswerSchema,
} from './answers.js';
import {
  auditQuerySchema,
  childrenPageQuerySchema,
  deleteQuerySchema,
  importQuerySchema,
  sessionsQuerySchema,
  sizingQuerySchema,
  watchesQuerySchema,
} from './requests.js';
import {
  lockCleanAnswerSchema,
  lockCleanBodySchema,
  lockDeleteAnswerSchema,
  lockDeleteBodySchema,
  lockScanBodySchema,
  locksQuerySchema,
} from '../../locks/requests.js';
import { lockAnswerSchema, locksAnswerSchema } from '../../locks/schemas.js';
import { lockScanCancelAnswerSchema, lockScanCancelBodySchema, lockScansAnswerSchema } from '../../locks/scanRecord.js';
import {
  upgradeActionBodySchema,
  upgradeActionSchema,
  upgradeAnswerSchema,
  upgradeCreateBodySchema,
  upgradeListAnswerSchema,
  upgradeStepActionBodySchema,
  upgradeStepActionSchema,
} from '../../upgrades/requests.js';
import { replicasAnswerSchema } from '../../replicas.js';
import {
  reconfigActionBodySchema,
  reconfigActionSchema,
  reconfigCreateBodySchema,
  reconfigListAnswerSchema,
  reconfigWorkflowSchema,
} from '../../reconfig/workflow.js';

export const health = route({
  method: 'get',
  path: '/api/health',
  access: 'public',
  shareHolders: true,
  answers: { 200: { json: healthSchema } },
});

export const signInMethods = route({
  method: 'get',
  path: '/api/sign-in-methods',
  access: 'public',
  shareHolders: true,
  answers: { 200: { json: signInMethodsSchema } },
});

export const login = route({
  method: 'post',
  path: '/api/login',
  access: 'public',
  shareHolders: true,
  body: loginBodySchema,
  answers: { 200: { json: meAnswerSchema } },
});

export const logout = route({
  method: 'post',
  path: '/api/logout',
  access: 'signedIn',
  shareHolders: true,
  answers: { 204: { empty: true } },
});

export const me = route({
  method: 'get',
  path: '/api/me',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: meAnswerSchema } },
});

export const openApi = route({
  method: 'get',
  path: '/api/openapi.json',
  access: 'signedIn',
  shareHolders: false,
  answers: { 200: { openApi: true } },
});

export const ensembles = route({
  method: 'get',
  path: '/api/ensembles',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: ensemblesAnswerSchema } },
});

export const ensemble = route({
  method: 'get',
  path: '/api/ensembles/{name}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: ensembleSummarySchema } },
});

export const znode = route({
  method: 'get',
  path: '/api/ensembles/{name}/znodes/{path}',
  access: 'signedIn',
  shareHolders: true,
  query: childrenPageQuerySchema,
  answers: { 200: { json: znodeAnswerSchema } },
});

export const znodeData = route({
  method: 'get',
  path: '/api/ensembles/{name}/data/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { bytes: 'application/octet-stream' } },
});

export const znodeStat = route({
  method: 'get',
  path: '/api/ensembles/{name}/stat/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: znodeStatAnswerSchema } },
});

export const znodeCreate = route({
  method: 'post',
  path: '/api/ensembles/{name}/znodes/{path}',
  access: 'writer',
  shareHolders: false,
  body: createBodySchema,
  answers: { 201: { json: writeAnswerSchema } },
});

export const znodeSet = route({
  method: 'put',
  path: '/api/ensembles/{name}/znodes/{path}',
  access: 'writer',
  shareHolders: false,
  body: setDataBodySchema,
  answers: { 200: { json: writeAnswerSchema } },
});

export const znodeDelete = route({
  method: 'delete',
  path: '/api/ensembles/{name}/znodes/{path}',
  access: 'writer',
  shareHolders: false,
  query: deleteQuerySchema,
  answers: { 200: { json: deleteAnswerSchema }, 202: { json: jobAnswerSchema } },
});

export const subtreeCount = route({
  method: 'get',
  path: '/api/ensembles/{name}/subtree/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: subtreeCountSchema } },
});

export const acl = route({
  method: 'get',
  path: '/api/ensembles/{name}/acl/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: aclAnswerSchema } },
});

export const aclSet = route({
  method: 'put',
  path: '/api/ensembles/{name}/acl/{path}',
  access: 'admin',
  shareHolders: false,
  body: setAclBodySchema,
  answers: { 200: { json: setAclAnswerSchema } },
});

export const exportSubtree = route({
  method: 'get',
  path: '/api/ensembles/{name}/export/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: exportDocumentSchema } },
});

export const importSubtree = route({
  method: 'post',
  path: '/api/ensembles/{name}/import/{path}',
  access: 'writer',
  shareHolders: false,
  query: importQuerySchema,
  body: exportDocumentSchema,
  answers: { 200: { json: importPreviewSchema }, 202: { json: jobAnswerSchema } },
});

export const members = route({
  method: 'get',
  path: '/api/ensembles/{name}/members',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: membersAnswerSchema } },
});

export const sessions = route({
  method: 'get',
  path: '/api/ensembles/{name}/sessions',
  access: 'signedIn',
  shareHolders: true,
  query: sessionsQuerySchema,
  answers: { 200: { json: sessionsAnswerSchema } },
});

export const watches = route({
  method: 'get',
  path: '/api/ensembles/{name}/watches',
  access: 'signedIn',
  shareHolders: true,
  query: watchesQuerySchema,
  answers: { 200: { json: watchesAnswerSchema } },
});

export const ensembleEvents = route({
  method: 'get',
  path: '/api/ensembles/{name}/events',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: ensembleEventsAnswerSchema } },
});

export const sizing = route({
  method: 'get',
  path: '/api/ensembles/{name}/sizing',
  access: 'signedIn',
  shareHolders: true,
  query: sizingQuerySchema,
  answers: { 200: { json: sizingAnswerSchema } },
});

export const locks = route({
  method: 'get',
  path: '/api/ensembles/{name}/locks',
  access: 'signedIn',
  shareHolders: true,
  query: locksQuerySchema,
  answers: { 200: { json: locksAnswerSchema } },
});

export const lock = route({
  method: 'get',
  path: '/api/ensembles/{name}/locks/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: lockAnswerSchema } },
});

export const lockScan = route({
  method: 'post',
  path: '/api/ensembles/{name}/locks/scan',
  access: 'admin',
  shareHolders: false,
  body: lockScanBodySchema,
  answers: { 202: { json: jobAnswerSchema } },
});

/** Admin: stops a running scan from any replica (the replica running it is asked through its record). */
export const lockScanCancel = route({
  method: 'post',
  path: '/api/ensembles/{name}/locks/scan/cancel',
  access: 'admin',
  shareHolders: false,
  body: lockScanCancelBodySchema,
  answers: { 200: { json: lockScanCancelAnswerSchema }, 202: { json: lockScanCancelAnswerSchema } },
});

export const lockScans = route({
  method: 'get',
  path: '/api/ensembles/{name}/lock-scans',
  access: 'signedIn',
  shareHolders: false,
  answers: { 200: { json: lockScansAnswerSchema } },
});

export const lockDelete = route({
  method: 'post',
  path: '/api/ensembles/{name}/locks/delete',
  access: 'admin',
  shareHolders: false,
  body: lockDeleteBodySchema,
  answers: { 200: { json: lockDeleteAnswerSchema } },
});

export const lockClean = route({
  method: 'post',
  path: '/api/ensembles/{name}/locks/clean',
  access: 'admin',
  shareHolders: false,
  body: lockCleanBodySchema,
  answers: { 200: { json: lockCleanAnswerSchema } },
});

export const upgrades = route({
  method: 'get',
  path: '/api/ensembles/{name}/upgrades',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: upgradeListAnswerSchema } },
});

export const upgradeCreate = route({
  method: 'post',
  path: '/api/ensembles/{name}/upgrades',
  access: 'admin',
  shareHolders: false,
  body: upgradeCreateBodySchema,
  answers: { 201: { json: upgradeAnswerSchema } },
});

export const upgrade = route({
  method: 'get',
  path: '/api/ensembles/{name}/upgrades/{id}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: upgradeAnswerSchema } },
});

export const upgradeAction = route({
  method: 'post',
  path: '/api/ensembles/{name}/upgrades/{id}/{action}',
  access: 'admin',
  shareHolders: false,
  params: z.object({ action: upgradeActionSchema }),
  body: upgradeActionBodySchema,
  answers: { 200: { json: upgradeAnswerSchema } },
});

export const upgradeStepAction = route({
  method: 'post',
  path: '/api/ensembles/{name}/upgrades/{id}/steps/{member}/{action}',
  access: 'admin',
  shareHolders: false,
  params: z.object({ action: upgradeStepActionSchema }),
  body: upgradeStepActionBodySchema,
  answers: { 200: { json: upgradeAnswerSchema } },
});

export const reconfigs = route({
  method: 'get',
  path: '/api/ensembles/{name}/reconfig',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: reconfigListAnswerSchema } },
});

export const reconfigCreate = route({
  method: 'post',
  path: '/api/ensembles/{name}/reconfig',
  access: 'admin',
  shareHolders: false,
  body: reconfigCreateBodySchema,
  answers: { 201: { json: reconfigWorkflowSchema } },
});

export const reconfig = route({
  method: 'get',
  path: '/api/ensembles/{name}/reconfig/{id}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: reconfigWorkflowSchema } },
});

export const reconfigAction = route({
  method: 'post',
  path: '/api/ensembles/{name}/reconfig/{id}/{action}',
  access: 'admin',
  shareHolders: false,
  params: z.object({ action: reconfigActionSchema }),
  body: reconfigActionBodySchema,
  answers: { 200: { json: reconfigWorkflowSchema } },
});

export const jobs = route({
  method: 'get',
  path: '/api/jobs',
  access: 'signedIn',
  shareHolders: false,
  answers: { 200: { json: jobsAnswerSchema } },
});

export const job = route({
  method: 'get',
  path: '/api/jobs/{id}',
  access: 'signedIn',
  shareHolders: false,
  answers: { 200: { json: jobAnswerSchema } },
});

export const jobCancel = route({
  method: 'delete',
  path: '/api/jobs/{id}',
  access: 'admin',
  shareHolders: false,
  answers: { 200: { json: jobAnswerSchema } },
});

export const shareLinkCreate = route({
  method: 'post',
  path: '/api/share-links',
  access: 'admin',
  shareHolders: false,
  body: createShareLinkBodySchema,
  answers: { 201: { json: createdShareLinkSchema } },
});

export const shareLinks = route({
  method: 'get',
  path: '/api/share-links',
  access: 'admin',
  shareHolders: false,
  answers: { 200: { json: shareLinksAnswerSchema } },
});

export const shareLinkRevoke = route({
  method: 'delete',
  path: '/api/share-links/{id}',
  access: 'admin',
  shareHolders: false,
  answers: { 200: { json: shareLinkSchema } },
});

export const audit = route({
  method: 'get',
  path: '/api/audit',
  access: 'admin',
  shareHolders: false,
  query: auditQuerySchema,
  answers: { 200: { json: auditPageSchema } },
});

export const replicas = route({
  method: 'get',
  path: '/api/replicas',
  access: 'admin',
  shareHolders: false,
  answers: { 200: { json: replicasAnswerSchema } },
});
