/**
 * Admin operations over HTTP: thin adapters around ZnodeOps (which refuses whoever may not and
 * audits). Znode changes: admins, and writers within their subtrees; ACL changes: admins. Reads
 * that serve them (ACL, subtree count, export, jobs) are open to any identity.
 *
 *   POST   /api/ensembles/<name>/znodes/<path>              create  {data?, encoding?, mode?} -> 201
 *   PUT    /api/ensembles/<name>/znodes/<path>              set     {data, encoding?, version} -> 200 | 409 + current
 *   DELETE /api/ensembles/<name>/znodes/<path>?version=N    delete  -> 200
 *   DELETE ...?version=N&recursive=true                     recursive delete job -> 202 {job}
 *   GET    /api/ensembles/<name>/subtree/<path>             {count, truncated, depth}
 *   GET|PUT /api/ensembles/<name>/acl/<path>                {acl:[{scheme,id,perms|permissions}], version}
 *   GET    /api/ensembles/<name>/export/<path>              keeper-export JSON
 *   POST   /api/ensembles/<name>/import/<path>?dryRun=true&overwrite=true
 *   GET    /api/jobs, GET|DELETE /api/jobs/<id>
 */
import type { Request, Response } from 'express';
import { ROUTES, type AuditAction } from '@keeper/shared';
import type { Admin, AuditRecord } from '../admin/admin.js';
import { OpError } from '../admin/opError.js';
import type { ZnodeOps } from '../ops/znodeOps.js';
import { ensembleOf } from './ensembleLookup.js';
import { adminRefusal, canMutate } from '../auth/identity.js';
import { wildcardPath } from './jsonBody.js';
import { caller } from './requestIdentity.js';
import { WalkBudget } from '../ops/walkBudget.js';
import type { ApiRoutes } from './apiRoute.js';

/** Admins' body limits per route; a viewer's write is refused before its body is read at all. */
export const ZNODE_BODY_LIMIT = '2mb';
export const ACL_BODY_LIMIT = '64kb';
export const IMPORT_BODY_LIMIT = '40mb';

/** Aborted when the response closes before it was sent: a walk nobody waits for stops and frees its slot. */
function abandonedWhenGone(res: Response): AbortSignal {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** What a refused change of a znode records: the action, the ensemble and the path as the URL named them. */
const target =
  (action: AuditAction) =>
  (req: Request): AuditRecord => ({ action, ensemble: String((req.params as { name?: unknown }).name), path: wildcardPath(req.params) });

export function opsRoutes(api: ApiRoutes, ops: ZnodeOps, admin: Admin, walks: WalkBudget = new WalkBudget()): void {
  api.handle(ROUTES.znodeCreate, { bodyLimit: ZNODE_BODY_LIMIT, refused: target('create') }, async ({ params, body, req, res }) =>
    ops.create(caller(req, res), ensembleOf(res), params.path, body),
  );

  api.handle(ROUTES.znodeSet, { bodyLimit: ZNODE_BODY_LIMIT, refused: target('setData') }, async ({ params, body, req, res }) =>
    ops.setData(caller(req, res), ensembleOf(res), params.path, body),
  );

  api.handle(
    ROUTES.znodeDelete,
    { refused: (req) => target(req.query.recursive === 'true' ? 'deleteRecursive' : 'delete')(req) },
    async ({ params, query, req, res, reply }) => {
      const who = caller(req, res);
      if (query.recursive === 'true') return reply(202, { job: await ops.startRecursiveDelete(who, ensembleOf(res), params.path, query.version) });
      return reply(200, await ops.delete(who, ensembleOf(res), params.path, query.version));
    },
  );

  api.handle(ROUTES.subtreeCount, {}, ({ params, req, res }) =>
    walks.run(caller(req, res).identity, () => ops.countSubtree(ensembleOf(res), params.path), abandonedWhenGone(res)),
  );

  api.handle(ROUTES.acl, {}, ({ params, res }) => ops.getAcl(ensembleOf(res), params.path));

  api.handle(ROUTES.aclSet, { bodyLimit: ACL_BODY_LIMIT, refused: target('setAcl') }, ({ params, body, req, res }) =>
    ops.setAcl(caller(req, res), ensembleOf(res), params.path, body),
  );

  api.handle(ROUTES.exportSubtree, {}, async ({ params, req, res }) => {
    const doc = await walks.run(caller(req, res).identity, () => ops.exportSubtree(ensembleOf(res), params.path), abandonedWhenGone(res));
    res.setHeader('Content-Disposition', `attachment; filename="${doc.ensemble}-export.json"`);
    return doc;
  });

  api.handle(
    ROUTES.importSubtree,
    { bodyLimit: IMPORT_BODY_LIMIT, refused: (req) => ({ ...target('import')(req), details: { dryRun: req.query.dryRun === 'true' } }) },
    async ({ params, query, body, req, res, reply }) => {
      const overwrite = query.overwrite === 'true';
      if (query.dryRun === 'true')
        return reply(200, { dryRun: true, overwrite, plan: await ops.planImport(caller(req, res), ensembleOf(res), params.path, body, overwrite) });
      return reply(202, { job: await ops.startImport(caller(req, res), ensembleOf(res), params.path, body, overwrite) });
    },
  );

  api.handle(ROUTES.jobs, {}, () => ({ jobs: admin.jobs.list() }));

  api.handle(ROUTES.job, {}, ({ params }) => {
    const job = admin.jobs.get(params.id);
    if (!job) throw new OpError('UNKNOWN_JOB', `no job ${JSON.stringify(params.id)}`);
    return { job };
  });

  api.handle(
    ROUTES.jobCancel,
    {
      // Admins cancel any job; a writer only one it started.
      allow: (identity, req) => (canMutate(identity) || ops.startedBy(identity, String(req.params.id)) ? null : adminRefusal(identity)),
      refused: (req) => ({ action: 'cancelJob', details: { jobId: String(req.params.id).slice(0, 64) } }),
    },
    ({ params, req, res }) => ({ job: ops.cancelJob(caller(req, res), params.id) }),
  );
}
