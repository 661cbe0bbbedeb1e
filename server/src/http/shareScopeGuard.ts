/**
 * A share-link holder reaches only what its link's scope names (shared/src/shareScope.ts): one
 * ensemble, one znode subtree in it, and the ensemble views only when the link allows them.
 * Checked once for every API route, right after the identity and before any route parses its
 * input; deny by default, so a read route added later is out of scope for holders until it is
 * listed here. Other identities pass untouched.
 */
import type { RequestHandler } from 'express';
import { API_PREFIX, decodeUrlSegment, outOfScopeMessage, pathFromUrlSegment, pathWithin, type ShareScope } from '@keeper/shared';
import type { Identified } from '../auth/accessControl.js';
import { sendError } from './apiErrors.js';

/** API routes (under /api) that reach no ensemble: signing in and out, and the admin-only pages, which refuse holders by role. */
const OUTSIDE_ENSEMBLES = new Set(['me', 'logout', 'login', 'sign-in-methods', 'health', 'share-links', 'audit']);
/** Routes whose wildcard is a znode path. */
const ZNODE_ROUTES = new Set(['znodes', 'data', 'stat', 'acl', 'subtree', 'export', 'import']);
/** The ensemble views: members and quorum, sizing, sessions (client addresses), watches, the event timeline. */
const ENSEMBLE_VIEW_ROUTES = new Set(['members', 'sizing', 'sessions', 'watches', 'events']);

export type ScopeVerdict = { ok: true } | { ok: false; message: string };

/**
 * Whether a share holder with `scope` may use the API route at `apiPath` (relative to /api, still
 * percent-encoded, as Express gives req.path). The znode path is rebuilt as Express rebuilds it
 * for the route (segments decoded one by one), so the check and the route see the same path.
 */
export function shareRouteVerdict(scope: ShareScope, apiPath: string, method = 'GET'): ScopeVerdict {
  const refuse = (what: string): ScopeVerdict => ({ ok: false, message: outOfScopeMessage(scope, what) });
  const segments = apiPath.split('/').slice(1);
  const first = (segments[0] ?? '').toLowerCase();
  // Cancelling a job is a write: refused (and audited) by role like every other; the job list stays out of reach.
  if (first === 'jobs' && method === 'DELETE') return { ok: true };
  if (first !== 'ensembles') return OUTSIDE_ENSEMBLES.has(first) && segments.length === 1 ? { ok: true } : refuse(`${API_PREFIX}/${segments.join('/')}`);
  // The list itself answers holders with their ensemble only (apiRoutes.ts).
  if (segments.length === 1 || (segments.length === 2 && segments[1] === '')) return { ok: true };
  const ensemble = decodeUrlSegment(segments[1] ?? '');
  if (ensemble !== scope.ensemble) return refuse(`ensemble ${JSON.stringify(ensemble ?? segments[1])}`);
  const kind = (segments[2] ?? '').toLowerCase();
  const rest = segments.slice(3);
  if (kind === '' && rest.length === 0) return { ok: true };
  if (ZNODE_ROUTES.has(kind)) {
    const path = pathFromUrlSegment(`/${rest.join('/')}`);
    if (path === null) return refuse('a malformed path');
    return pathWithin(scope.root, path) ? { ok: true } : refuse(path);
  }
  // The Locks view: the list spans the ensemble (a view); one lock's detail is a znode path; its writes are refused by role.
  if (kind === 'locks') {
    // HEAD is answered by the GET route: it must be judged like GET, or it tells the list's size.
    if (method !== 'GET' && method !== 'HEAD') return { ok: true };
    if (rest.length === 0 || (rest.length === 1 && rest[0] === '')) return scope.ensembleViews ? { ok: true } : refuse('the locks view');
    const path = pathFromUrlSegment(`/${rest.join('/')}`);
    if (path === null) return refuse('a malformed path');
    return pathWithin(scope.root, path) ? { ok: true } : refuse(path);
  }
  // The Upgrades and Resize views: their lists and one workflow are ensemble views, as the `upgrade` and
  // `reconfig` topics are (a holder subscribed to one was refused the other, issue 34 item 11); their
  // writes are refused by role (and audited).
  if (kind === 'upgrades' || kind === 'reconfig') {
    if (method !== 'GET' && method !== 'HEAD') return { ok: true };
    return scope.ensembleViews ? { ok: true } : refuse(kind === 'upgrades' ? 'the upgrades view' : 'the resize view');
  }
  if (ENSEMBLE_VIEW_ROUTES.has(kind) && (rest.length === 0 || (rest.length === 1 && rest[0] === ''))) {
    return scope.ensembleViews ? { ok: true } : refuse(`the ${kind} view`);
  }
  return refuse(`${API_PREFIX}/${segments.join('/')}`);
}

/** Mounted at /api after requireIdentity. */
export const shareScopeGuard: RequestHandler = (req, res, next) => {
  const scope = (res.locals.identified as Identified | undefined)?.identity.shareScope;
  if (!scope) return next();
  const verdict = shareRouteVerdict(scope, req.path, req.method);
  if (verdict.ok) return next();
  sendError(res, 'OUT_OF_SCOPE', verdict.message);
};
