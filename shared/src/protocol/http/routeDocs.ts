/**
 * What the OpenAPI document says about each route beyond its contract (routeTable.ts): a
 * summary, and the error codes it may answer with beyond those every route may (COMMON_ERRORS);
 * their statuses come from API_ERROR_STATUS. Kept apart from the table so the web, which calls
 * the routes, does not carry the words; a record over the table's keys, so a route without its
 * summary fails to compile.
 */
import type * as ROUTES from './routeTable.js';
import { API_ERROR_CODES, API_ERROR_STATUS, type ApiErrorCode } from './errors.js';

export type RouteKey = keyof typeof ROUTES;

export interface RouteDoc {
  summary: string;
  /** Error codes beyond those every route may answer with; statuses come from API_ERROR_STATUS. */
  errors: readonly ApiErrorCode[];
}

/** A write's refusals before it runs: another site's page, a viewer, a body that is not what the route takes. */
const WRITE_ERRORS: readonly ApiErrorCode[] = ['CSRF', 'FORBIDDEN', 'MALFORMED_JSON', 'BODY_TOO_LARGE', 'INVALID_BODY'];
/** ZooKeeper and the console's session to it: every failure a ZooKeeper call can end in. */
const ZOOKEEPER_ERRORS: readonly ApiErrorCode[] = API_ERROR_CODES.filter(
  (code) => API_ERROR_STATUS[code] >= 502 && !['NOT_READY', 'GATHER_FAILED'].includes(code),
);
const ZNODE_READ_ERRORS: readonly ApiErrorCode[] = ['UNKNOWN_ENSEMBLE', 'INVALID_PATH', 'NO_NODE', 'NO_AUTH', ...ZOOKEEPER_ERRORS];
const WALK_ERRORS: readonly ApiErrorCode[] = ['WALK_IN_PROGRESS', 'WALKS_BUSY', 'WALK_BUDGET_SPENT', 'CANCELLED'];
const MONITOR_ERRORS: readonly ApiErrorCode[] = ['UNKNOWN_ENSEMBLE', 'INVALID_QUERY', 'NOT_READY'];

export const ROUTE_DOCS: { readonly [K in RouteKey]: RouteDoc } = {
  health: {
    summary: 'Whether every ensemble is connected (for load balancers and alerting)',
    errors: [],
  },
  signInMethods: {
    summary: 'Which ways of signing in this console offers',
    errors: [],
  },
  login: {
    summary: 'Sign in (password or token): starts a cookie session',
    errors: ['AUTH_NOT_CONFIGURED', 'INVALID_CREDENTIALS', 'NO_ACCESS', 'MALFORMED_JSON', 'BODY_TOO_LARGE', 'INVALID_BODY', 'CSRF'],
  },
  logout: {
    summary: 'Sign out: ends the cookie session',
    errors: ['CSRF'],
  },
  me: {
    summary: 'Who is asking: name, role, how identified, the CSRF token for writes',
    errors: [],
  },
  openApi: {
    summary: 'This document',
    errors: [],
  },
  ensembles: {
    summary: "The configured ensembles and the console's session to each",
    errors: [],
  },
  ensemble: {
    summary: "One ensemble and the console's session to it",
    errors: ['UNKNOWN_ENSEMBLE'],
  },
  znode: {
    summary: 'A znode: stat, value (the first 64 KiB) and a page of its children in natural order',
    errors: [...ZNODE_READ_ERRORS, 'INVALID_QUERY'],
  },
  znodeData: {
    summary: "A znode's value, the stored bytes exactly (any size up to jute.maxbuffer); X-Keeper-Version is the version to name when writing it back",
    errors: ZNODE_READ_ERRORS,
  },
  znodeStat: {
    summary: "A znode's stat alone, from exists (needs no ACL permission); stat is null when there is no node",
    errors: ZNODE_READ_ERRORS,
  },
  znodeCreate: {
    summary: 'Create a znode',
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_DATA', 'DATA_TOO_LARGE', 'PROTECTED_PATH', 'NODE_EXISTS', 'NO_CHILDREN_FOR_EPHEMERALS'],
  },
  znodeSet: {
    summary: "Set a znode's value at the version you read (409 BAD_VERSION with the current value when it changed)",
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_DATA', 'DATA_TOO_LARGE', 'BAD_VERSION'],
  },
  znodeDelete: {
    summary: 'Delete a znode at the version you read; with recursive=true, its whole subtree in a job (202)',
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_QUERY', 'PROTECTED_PATH', 'BAD_VERSION', 'NOT_EMPTY'],
  },
  subtreeCount: {
    summary: 'How many nodes a recursive delete or an export would touch',
    errors: [...ZNODE_READ_ERRORS, ...WALK_ERRORS],
  },
  acl: {
    summary: "A znode's ACL and stat",
    errors: ZNODE_READ_ERRORS,
  },
  aclSet: {
    summary: "Set a znode's ACL at the ACL version (aversion) you read",
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_ACL', 'BAD_VERSION', 'ACL_LOCKS_OUT'],
  },
  exportSubtree: {
    summary: 'A subtree as a keeper-export document (at most 10,000 nodes)',
    errors: [...ZNODE_READ_ERRORS, ...WALK_ERRORS, 'TOO_MANY_NODES'],
  },
  importSubtree: {
    summary: 'Import a keeper-export document below a znode: a plan with dryRun=true, else a job (202)',
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'INVALID_QUERY', 'PROTECTED_PATH', 'IMPORT_REFUSED'],
  },
  members: {
    summary: "The members' health and the quorum, from the member poller's last round",
    errors: MONITOR_ERRORS,
  },
  sessions: {
    summary: "Clients' sessions on every member (gathered at most so often; refresh=true asks for a new gathering)",
    errors: [...MONITOR_ERRORS, 'GATHER_FAILED'],
  },
  watches: {
    summary: 'Watches on every member (byPath=true adds the per-path listing)',
    errors: [...MONITOR_ERRORS, 'GATHER_FAILED'],
  },
  ensembleEvents: {
    summary:
      "The ensemble's event timeline, oldest first: leaders lost and elected with epochs, members down and up, alerts raised and cleared, upgrade steps; times are the poller's observations (the last 24 h, bounded)",
    errors: ['UNKNOWN_ENSEMBLE'],
  },
  sizing: {
    summary: 'Fault tolerance now, with a member imagined down, or for a size you name',
    errors: [...MONITOR_ERRORS, 'UNKNOWN_MEMBER'],
  },
  locks: {
    summary: 'Every tracked lock at or under `path`, worst status first, with herds and how far the leak check can go',
    errors: [...MONITOR_ERRORS, 'INVALID_PATH'],
  },
  lock: {
    summary: 'One lock directory: contenders in order with status, flags, chain and owner (watched from then on)',
    errors: [...ZNODE_READ_ERRORS, 'NOT_A_LOCK', 'TOO_MANY_LOCKS'],
  },
  lockScan: {
    summary: 'Scan a subtree for lock directories: a paced, budgeted job with progress; what it finds is tracked',
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'SCAN_IN_PROGRESS'],
  },
  lockScanCancel: {
    summary:
      'Stop a running lock scan from any replica: 200 once the record of the replica running it says it stopped (when, and at whose request), 202 when that replica has not confirmed within the wait (the record will say)',
    errors: [...WRITE_ERRORS, 'UNKNOWN_SCAN'],
  },
  lockScans: {
    summary:
      "The ensemble's last lock scans (at most 10), newest first: state, counts, the first found directories, and with replicas who runs each and any hand-over",
    errors: MONITOR_ERRORS,
  },
  lockDelete: {
    summary: 'Delete one contender after re-checking it (owner, version, not holding unless confirmHolder names it)',
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS, 'NOT_A_LOCK', 'LOCK_CHANGED', 'LOCK_HOLDER', 'PROTECTED_PATH', 'OUTCOME_UNKNOWN'],
  },
  lockClean: {
    summary: 'Delete every leaked contender at or under `path` (dryRun: list them only), each re-checked first',
    errors: [...WRITE_ERRORS, ...ZNODE_READ_ERRORS],
  },
  upgrades: {
    summary: "The ensemble's upgrades and rolling restarts, newest first (the current one live on the `upgrade` topic)",
    errors: MONITOR_ERRORS,
  },
  upgradeCreate: {
    summary: 'Plan an upgrade or restart (rolling by default): the preflight runs at once; start=true starts it when the gates pass',
    errors: [...WRITE_ERRORS, ...MONITOR_ERRORS, 'UPGRADE_IN_PROGRESS', 'UPGRADE_REFUSED'],
  },
  upgrade: {
    summary:
      "One upgrade: its plan, every step with each check it made (time and what it saw), the members checked again at the end, and its progress; a restart command's line and output for admins only",
    errors: [...MONITOR_ERRORS, 'UNKNOWN_UPGRADE'],
  },
  upgradeAction: {
    summary: 'start, pause, resume or abort the upgrade',
    errors: [...WRITE_ERRORS, ...MONITOR_ERRORS, 'UNKNOWN_UPGRADE', 'UPGRADE_REFUSED', 'UPGRADE_IN_PROGRESS'],
  },
  upgradeStepAction: {
    summary: "skip a member's step (typed confirmation), mark its restart done (manual mode), or restart it again (a paused step whose restart was asked for)",
    errors: [...WRITE_ERRORS, ...MONITOR_ERRORS, 'UNKNOWN_UPGRADE', 'UNKNOWN_MEMBER', 'UPGRADE_REFUSED'],
  },
  reconfigs: {
    summary: "The ensemble's resizes (dynamic reconfigurations), newest first (the current one live on the `reconfig` topic)",
    errors: MONITOR_ERRORS,
  },
  reconfigCreate: {
    summary:
      'Plan a resize (add server.N= lines, remove ids, change roles): the steps in a safe order, the size before and after, the preflight; start=true starts it (with the typed phrase when the plan names a risk)',
    errors: [...WRITE_ERRORS, ...MONITOR_ERRORS, 'UPGRADE_IN_PROGRESS', 'RECONFIG_REFUSED'],
  },
  reconfig: {
    summary: 'One resize: every step with the version it was sent under and made, and what the check after it saw',
    errors: [...MONITOR_ERRORS, 'UNKNOWN_RECONFIG'],
  },
  reconfigAction: {
    summary: 'start, pause, resume or abort the resize (a step already sent finishes and is verified first)',
    errors: [...WRITE_ERRORS, ...MONITOR_ERRORS, 'UNKNOWN_RECONFIG', 'RECONFIG_REFUSED', 'UPGRADE_IN_PROGRESS'],
  },
  jobs: {
    summary: 'Long operations (recursive deletes, imports), running and recent',
    errors: [],
  },
  job: {
    summary: 'One job',
    errors: ['UNKNOWN_JOB'],
  },
  jobCancel: {
    summary: 'Cancel a running job',
    errors: ['CSRF', 'FORBIDDEN', 'UNKNOWN_JOB', 'JOB_FINISHED'],
  },
  shareLinkCreate: {
    summary: 'Create a read-only share link (its URL is shown once, in this answer)',
    errors: [...WRITE_ERRORS, 'INVALID_SCOPE', 'UNKNOWN_ENSEMBLE', 'TOO_MANY_SHARE_LINKS'],
  },
  shareLinks: {
    summary: 'Every share link, with its reach and open sockets',
    errors: ['FORBIDDEN'],
  },
  shareLinkRevoke: {
    summary: 'Revoke a share link (its open pages close at once)',
    errors: ['CSRF', 'FORBIDDEN', 'UNKNOWN_SHARE_LINK'],
  },
  audit: {
    summary: 'The audit trail, newest first, a page at a time',
    // With replicas the page is read from the home ensemble.
    errors: ['FORBIDDEN', 'INVALID_QUERY', ...ZOOKEEPER_ERRORS],
  },
  replicas: {
    summary: 'The Keeper replicas registered in the home ensemble (empty and enabled: false without "replicas")',
    errors: ['FORBIDDEN', 'NOT_READY', ...ZOOKEEPER_ERRORS],
  },
};
