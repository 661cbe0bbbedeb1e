/**
 * Every route under /api, once: its request (query, body) and answers (per status), the error
 * codes it may answer with, and who may call it. The OpenAPI document (openapi.ts) is built from
 * this table; the server parses requests and the web parses answers with the same schemas.
 *
 * A znode path is one parameter `{path}` that keeps its slashes (`.../znodes/app/config`); the
 * root is the route without it (`.../znodes`).
 */
import type { z } from 'zod';
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
import { API_ERROR_CODES, API_ERROR_STATUS, type ApiErrorCode } from './errors.js';
import {
  lockCleanAnswerSchema,
  lockCleanBodySchema,
  lockDeleteAnswerSchema,
  lockDeleteBodySchema,
  lockScanBodySchema,
  locksQuerySchema,
} from '../../locks/requests.js';
import { lockAnswerSchema, locksAnswerSchema } from '../../locks/schemas.js';
import {
  upgradeActionBodySchema,
  upgradeAnswerSchema,
  upgradeCreateBodySchema,
  upgradeListAnswerSchema,
  upgradeStepActionBodySchema,
} from '../../upgrades/requests.js';
import { replicasAnswerSchema } from '../../replicas.js';

/** A successful answer: JSON of a schema, raw bytes, or nothing (204). */
export type RouteAnswer = { json: z.ZodType } | { bytes: string } | { empty: true } | { openApi: true };

export interface HttpRoute {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI form, with the /api prefix: /api/ensembles/{name}/znodes/{path}. */
  path: string;
  summary: string;
  /**
   * public: no identity needed; signedIn: any identity (viewers too); writer: admins, and writers
   * within the subtrees `auth.grants` gives them (znode changes); admin: admins only.
   */
  access: 'public' | 'signedIn' | 'writer' | 'admin';
  /** Whether a share-link holder may call it (within its link's scope). */
  shareHolders: boolean;
  query?: z.ZodObject;
  body?: z.ZodType;
  answers: Partial<Record<number, RouteAnswer>>;
  /** Error codes beyond those every route may answer with; statuses come from API_ERROR_STATUS. */
  errors: readonly ApiErrorCode[];
}

/** What any /api route may answer: the request was refused before the route saw it, or Keeper failed. */
export const COMMON_ERRORS: readonly ApiErrorCode[] = [
  'BAD_REQUEST',
  'MALFORMED_URL',
  'UNAUTHENTICATED',
  'OUT_OF_SCOPE',
  'HOST_NOT_ALLOWED',
  'RATE_LIMITED',
  'INTERNAL',
];
/** A write's refusals before it runs: another site's page, a viewer, a body that is not what the route takes. */
const WRITE_ERRORS: readonly ApiErrorCode[] = ['CSRF', 'FORBIDDEN', 'MALFORMED_JSON', 'BODY_TOO_LARGE', 'INVALID_BODY'];
/** ZooKeeper and the console's session to it: every failure a ZooKeeper call can end in. */
const ZOOKEEPER_ERRORS: readonly ApiErrorCode[] = API_ERROR_CODES.filter(
  (code) => API_ERROR_STATUS[code] >= 502 && !['NOT_READY', 'GATHER_FAILED'].includes(code),
);
const ZNODE_READ_ERRORS: readonly ApiErrorCode[] = ['UNKNOWN_ENSEMBLE', 'INVALID_PATH', 'NO_NODE', 'NO_AUTH', ...ZOOKEEPER_ERRORS];
const WALK_ERRORS: readonly ApiErrorCode[] = ['WALK_IN_PROGRESS', 'WALKS_BUSY', 'WALK_BUDGET_SPENT', 'CANCELLED'];
const MONITOR_ERRORS: readonly ApiErrorCode[] = ['UNKNOWN_ENSEMBLE', 'INVALID_QUERY', 'NOT_READY'];

const json = (schema: z.ZodType): RouteAnswer => ({ json: schema });
const ZNODE = '/api/ensembles/{name}/znodes/{path}';
const under = (kind: string) => `/api/ensembles/{name}/${kind}/{path}`;

export const HTTP_ROUTES: readonly HttpRoute[] = [
  // Signing in and who is asking.
  {
    method: 'get',
    path: '/api/health',
    summary: 'Whether every ensemble is connected (for load balancers and alerting)',
    access: 'public',
    shareHolders: true,
    answers: { 200: json(healthSchema) },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/sign-in-methods',
    summary: 'Which ways of signing in this console offers',
    access: 'public',
    shareHolders: true,
    answers: { 200: json(signInMethodsSchema) },
    errors: [],
  },
  {
    method: 'post',
    path: '/api/login',
    summary: 'Sign in (password or token): starts a cookie session',
    access: 'public',
    shareHolders: true,
    body: loginBodySchema,
    answers: { 200: json(meAnswerSchema) },
    errors: ['AUTH_NOT_CONFIGURED', 'INVALID_CREDENTIALS', 'NO_ACCESS', 'MALFORMED_JSON', 'BODY_TOO_LARGE', 'INVALID_BODY', 'CSRF'],
  },
  {
    method: 'post',
    path: '/api/logout',
    summary: 'Sign out: ends the cookie session',
    access: 'signedIn',
    shareHolders: true,
    answers: { 204: { empty: true } },
    errors: ['CSRF'],
  },
  {
    method: 'get',
    path: '/api/me',
    summary: 'Who is asking: name, role, how identified, the CSRF token for writes',
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(meAnswerSchema) },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    summary: 'This document',
    access: 'signedIn',
    shareHolders: false,
    answers: { 200: { openApi: true } },
    errors: [],
  },
  // Ensembles and znodes.
  {
    method: 'get',
    path: '/api/ensembles',
    summary: "The configured ensembles and the console's session to each",
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(ensemblesAnswerSchema) },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/ensembles/{name}',
    summary: "One ensemble and the console's session to it",
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(ensembleSummarySchema) },
    errors: ['UNKNOWN_ENSEMBLE'],
  },
  {
    method: 'get',
    path: ZNODE,
    summary: 'A znode: stat, value (the first 64 KiB) and a page of its children in natural order',
    access: 'signedIn',
    shareHolders: true,
    query: childrenPageQuerySchema,
    answers: { 200: json(znodeAnswerSchema) },
    errors: [...ZNODE_READ_ERRORS, 'INVALID_QUERY'],
  },
  {
    method: 'get',
    path: under('data'),
    summary: "A znode's value, the stored bytes exactly (any size up to jute.maxbuffer); X-Keeper-Version is the version to name when writing it back",
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: { bytes: 'application/octet-stream' } },
    errors: ZNODE_READ_ERRORS,
  },
  {
    method: 'get',
    path: under('stat'),
    summary: "A znode's stat alone, from exists (needs no ACL permission); stat is null when there is no node",
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(znodeStatAnswerSchema) },
    errors: ZNODE_READ_ERRORS,
  },
  {
    method: 'post',
    path: ZNODE,
    summary: 'Create a znode',
    access: 'writer',
    shareHolders: false,
    body: createBodySchema,
    answers: { 201: json(writeAnswerSchema) },
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_DATA', 'DATA_TOO_LARGE', 'PROTECTED_PATH', 'NODE_EXISTS', 'NO_CHILDREN_FOR_EPHEMERALS'],
  },
  {
    method: 'put',
    path: ZNODE,
    summary: "Set a znode's value at the version you read (409 BAD_VERSION with the current value when it changed)",
    access: 'writer',
    shareHolders: false,
    body: setDataBodySchema,
    answers: { 200: json(writeAnswerSchema) },
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_DATA', 'DATA_TOO_LARGE', 'BAD_VERSION'],
  },
  {
    method: 'delete',
    path: ZNODE,
    summary: 'Delete a znode at the version you read; with recursive=true, its whole subtree in a job (202)',
    access: 'writer',
    shareHolders: false,
    query: deleteQuerySchema,
    answers: { 200: json(deleteAnswerSchema), 202: json(jobAnswerSchema) },
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_QUERY', 'PROTECTED_PATH', 'BAD_VERSION', 'NOT_EMPTY'],
  },
  {
    method: 'get',
    path: under('subtree'),
    summary: 'How many nodes a recursive delete or an export would touch',
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(subtreeCountSchema) },
    errors: [...ZNODE_READ_ERRORS, ...WALK_ERRORS],
  },
  {
    method: 'get',
    path: under('acl'),
    summary: "A znode's ACL and stat",
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(aclAnswerSchema) },
    errors: ZNODE_READ_ERRORS,
  },
  {
    method: 'put',
    path: under('acl'),
    summary: "Set a znode's ACL at the ACL version (aversion) you read",
    access: 'admin',
    shareHolders: false,
    body: setAclBodySchema,
    answers: { 200: json(setAclAnswerSchema) },
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_ACL', 'BAD_VERSION', 'ACL_LOCKS_OUT'],
  },
  {
    method: 'get',
    path: under('export'),
    summary: 'A subtree as a keeper-export document (at most 10,000 nodes)',
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(exportDocumentSchema) },
    errors: [...ZNODE_READ_ERRORS, ...WALK_ERRORS, 'TOO_MANY_NODES'],
  },
  {
    method: 'post',
    path: under('import'),
    summary: 'Import a keeper-export document below a znode: a plan with dryRun=true, else a job (202)',
    access: 'writer',
    shareHolders: false,
    query: importQuerySchema,
    body: exportDocumentSchema,
    answers: { 200: json(importPreviewSchema), 202: json(jobAnswerSchema) },
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_QUERY', 'PROTECTED_PATH', 'IMPORT_REFUSED'],
  },
  // The ensemble views.
  {
    method: 'get',
    path: '/api/ensembles/{name}/members',
    summary: "The members' health and the quorum, from the member poller's last round",
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(membersAnswerSchema) },
    errors: MONITOR_ERRORS,
  },
  {
    method: 'get',
    path: '/api/ensembles/{name}/sessions',
    summary: "Clients' sessions on every member (gathered at most so often; refresh=true asks for a new gathering)",
    access: 'signedIn',
    shareHolders: true,
    query: sessionsQuerySchema,
    answers: { 200: json(sessionsAnswerSchema) },
    errors: [...MONITOR_ERRORS, 'GATHER_FAILED'],
  },
  {
    method: 'get',
    path: '/api/ensembles/{name}/watches',
    summary: 'Watches on every member (byPath=true adds the per-path listing)',
    access: 'signedIn',
    shareHolders: true,
    query: watchesQuerySchema,
    answers: { 200: json(watchesAnswerSchema) },
    errors: [...MONITOR_ERRORS, 'GATHER_FAILED'],
  },
  {
    method: 'get',
    path: '/api/ensembles/{name}/events',
    summary:
      "The ensemble's event timeline, oldest first: leaders lost and elected with epochs, members down and up, alerts raised and cleared, upgrade steps; times are the poller's observations (the last 24 h, bounded)",
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(ensembleEventsAnswerSchema) },
    errors: ['UNKNOWN_ENSEMBLE'],
  },
  {
    method: 'get',
    path: '/api/ensembles/{name}/sizing',
    summary: 'Fault tolerance now, with a member imagined down, or for a size you name',
    access: 'signedIn',
    shareHolders: true,
    query: sizingQuerySchema,
    answers: { 200: json(sizingAnswerSchema) },
    errors: [...MONITOR_ERRORS, 'UNKNOWN_MEMBER'],
  },
  // The Locks view.
  {
    method: 'get',
    path: '/api/ensembles/{name}/locks',
    summary: 'Every tracked lock at or under `path`, worst status first, with herds and how far the leak check can go',
    access: 'signedIn',
    shareHolders: true,
    query: locksQuerySchema,
    answers: { 200: json(locksAnswerSchema) },
    errors: [...MONITOR_ERRORS, 'INVALID_PATH'],
  },
  {
    method: 'get',
    path: under('locks'),
    summary: 'One lock directory: contenders in order with status, flags, chain and owner (watched from then on)',
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(lockAnswerSchema) },
    errors: [...ZNODE_READ_ERRORS, 'NOT_A_LOCK', 'TOO_MANY_LOCKS'],
  },
  {
    method: 'post',
    path: '/api/ensembles/{name}/locks/scan',
    summary: 'Scan a subtree for lock directories: a paced, budgeted job with progress; what it finds is tracked',
    access: 'admin',
    shareHolders: false,
    body: lockScanBodySchema,
    answers: { 202: json(jobAnswerSchema) },
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'SCAN_IN_PROGRESS'],
  },
  {
    method: 'post',
    path: '/api/ensembles/{name}/locks/delete',
    summary: 'Delete one contender after re-checking it (owner, version, not holding unless confirmHolder names it)',
    access: 'admin',
    shareHolders: false,
    body: lockDeleteBodySchema,
    answers: { 200: json(lockDeleteAnswerSchema) },
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'NOT_A_LOCK', 'LOCK_CHANGED', 'LOCK_HOLDER', 'PROTECTED_PATH', 'OUTCOME_UNKNOWN'],
  },
  {
    method: 'post',
    path: '/api/ensembles/{name}/locks/clean',
    summary: 'Delete every leaked contender at or under `path` (dryRun: list them only), each re-checked first',
    access: 'admin',
    shareHolders: false,
    body: lockCleanBodySchema,
    answers: { 200: json(lockCleanAnswerSchema) },
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS],
  },
  // The Upgrades view.
  {
    method: 'get',
    path: '/api/ensembles/{name}/upgrades',
    summary: "The ensemble's upgrades and rolling restarts, newest first (the current one live on the `upgrade` topic)",
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(upgradeListAnswerSchema) },
    errors: MONITOR_ERRORS,
  },
  {
    method: 'post',
    path: '/api/ensembles/{name}/upgrades',
    summary: 'Plan an upgrade or restart (rolling by default): the preflight runs at once; start=true starts it when the gates pass',
    access: 'admin',
    shareHolders: false,
    body: upgradeCreateBodySchema,
    answers: { 201: json(upgradeAnswerSchema) },
    errors: [...WRITE_ERRORS, ...MONITOR_ERRORS, 'UPGRADE_IN_PROGRESS', 'UPGRADE_REFUSED'],
  },
  {
    method: 'get',
    path: '/api/ensembles/{name}/upgrades/{id}',
    summary:
      "One upgrade: its plan, every step with each check it made (time and what it saw), the members checked again at the end, and its progress; a restart command's line and output for admins only",
    access: 'signedIn',
    shareHolders: true,
    answers: { 200: json(upgradeAnswerSchema) },
    errors: [...MONITOR_ERRORS, 'UNKNOWN_UPGRADE'],
  },
  {
    method: 'post',
    path: '/api/ensembles/{name}/upgrades/{id}/{action}',
    summary: 'start, pause, resume or abort the upgrade',
    access: 'admin',
    shareHolders: false,
    body: upgradeActionBodySchema,
    answers: { 200: json(upgradeAnswerSchema) },
    errors: [...WRITE_ERRORS, ...MONITOR_ERRORS, 'UNKNOWN_UPGRADE', 'UPGRADE_REFUSED', 'UPGRADE_IN_PROGRESS'],
  },
  {
    method: 'post',
    path: '/api/ensembles/{name}/upgrades/{id}/steps/{member}/{action}',
    summary: "skip a member's step (typed confirmation), mark its restart done (manual mode), or restart it again (a paused step whose restart was asked for)",
    access: 'admin',
    shareHolders: false,
    body: upgradeStepActionBodySchema,
    answers: { 200: json(upgradeAnswerSchema) },
    errors: [...WRITE_ERRORS, ...MONITOR_ERRORS, 'UNKNOWN_UPGRADE', 'UNKNOWN_MEMBER', 'UPGRADE_REFUSED'],
  },
  // Jobs, share links, audit.
  {
    method: 'get',
    path: '/api/jobs',
    summary: 'Long operations (recursive deletes, imports), running and recent',
    access: 'signedIn',
    shareHolders: false,
    answers: { 200: json(jobsAnswerSchema) },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/jobs/{id}',
    summary: 'One job',
    access: 'signedIn',
    shareHolders: false,
    answers: { 200: json(jobAnswerSchema) },
    errors: ['UNKNOWN_JOB'],
  },
  {
    method: 'delete',
    path: '/api/jobs/{id}',
    summary: 'Cancel a running job',
    access: 'admin',
    shareHolders: false,
    answers: { 200: json(jobAnswerSchema) },
    errors: ['CSRF', 'FORBIDDEN', 'UNKNOWN_JOB', 'JOB_FINISHED'],
  },
  {
    method: 'post',
    path: '/api/share-links',
    summary: 'Create a read-only share link (its URL is shown once, in this answer)',
    access: 'admin',
    shareHolders: false,
    body: createShareLinkBodySchema,
    answers: { 201: json(createdShareLinkSchema) },
    errors: [...WRITE_ERRORS, 'INVALID_SCOPE', 'TOO_MANY_SHARE_LINKS'],
  },
  {
    method: 'get',
    path: '/api/share-links',
    summary: 'Every share link, with its reach and open sockets',
    access: 'admin',
    shareHolders: false,
    answers: { 200: json(shareLinksAnswerSchema) },
    errors: ['FORBIDDEN'],
  },
  {
    method: 'delete',
    path: '/api/share-links/{id}',
    summary: 'Revoke a share link (its open pages close at once)',
    access: 'admin',
    shareHolders: false,
    answers: { 200: json(shareLinkSchema) },
    errors: ['CSRF', 'FORBIDDEN', 'UNKNOWN_SHARE_LINK'],
  },
  {
    method: 'get',
    path: '/api/audit',
    summary: 'The audit trail, newest first, a page at a time',
    access: 'admin',
    shareHolders: false,
    query: auditQuerySchema,
    answers: { 200: json(auditPageSchema) },
    // With replicas the page is read from the home ensemble.
    errors: ['FORBIDDEN', 'INVALID_QUERY', ...ZOOKEEPER_ERRORS],
  },
  // Replicas (docs/replicas.md).
  {
    method: 'get',
    path: '/api/replicas',
    summary: 'The Keeper replicas registered in the home ensemble (empty and enabled: false without "replicas")',
    access: 'admin',
    shareHolders: false,
    answers: { 200: json(replicasAnswerSchema) },
    errors: ['FORBIDDEN', 'NOT_READY', ...ZOOKEEPER_ERRORS],
  },
];
