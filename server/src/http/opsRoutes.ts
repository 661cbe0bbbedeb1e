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
import { Router, type Request, type RequestHandler, type Response } from 'express';
import {
  createBodySchema,
  deleteQuerySchema,
  exportDocumentSchema,
  importQuerySchema,
  setAclBodySchema,
  setDataBodySchema,
  type AuditAction,
} from '@keeper/shared';
import type { Admin, AuditRecord } from '../admin/admin.js';
import { OpError } from '../admin/opError.js';
import { sendFailure } from './apiErrors.js';
import { ensembleOf } from './ensembleLookup.js';
import type { ZnodeOps } from '../ops/znodeOps.js';
import { adminRefusal, canMutate, changeRefusal, type Identity } from '../auth/identity.js';
import { jsonBody, parseOr400, wildcardPath } from './jsonBody.js';
import { caller } from './requestIdentity.js';
import { WalkBudget } from '../ops/walkBudget.js';

/** Admins' body limits per route; a viewer's write is refused before its body is read at all. */
export const ZNODE_BODY_LIMIT = '2mb';
export const ACL_BODY_LIMIT = '64kb';
export const IMPORT_BODY_LIMIT = '40mb';

const both = (route: string) => [`/ensembles/:name/${route}`, `/ensembles/:name/${route}/*path`];

/** What a refused write may still send after its answer before the connection is cut. */
const MAX_DISCARDED_BYTES = 1024 * 1024;

/**
 * Identity and rights before anything else: a refused write is answered (and audited) before its
 * query is validated or its body read, so a viewer (or a writer outside its subtrees) cannot make
 * the server parse 40 MB or learn which of its inputs would have been wrong. Whatever of the body
 * still arrives is dropped unread; past 1 MiB the connection is cut. (Closing at once would reset
 * the connection under a client still uploading, which may then never see the 403.)
 */
function refusedUnless(admin: Admin, what: (req: Request) => AuditRecord, refusalOf: (identity: Identity, req: Request) => string | null): RequestHandler {
  return (req, res, next) => {
    const who = caller(req, res);
    const refusal = refusalOf(who.identity, req);
    if (refusal === null) return next();
    res.once('finish', () => {
      let discarded = 0;
      req.on('data', (chunk: Buffer) => {
        discarded += chunk.length;
        if (discarded > MAX_DISCARDED_BYTES) req.socket.destroy();
      });
    });
    void admin.refuse(who, what(req), refusal).finally(() => {
      sendFailure(res, new OpError('FORBIDDEN', refusal));
    });
  };
}

/** Admins only (ACLs, locks, upgrades). */
export function adminOnly(admin: Admin, what: (req: Request) => AuditRecord): RequestHandler {
  return refusedUnless(admin, what, (identity) => (canMutate(identity) ? null : adminRefusal(identity)));
}

/** A znode change: admins anywhere, writers within their granted subtrees of that ensemble (segment-exact). */
export function znodeWriters(admin: Admin, what: (req: Request) => AuditRecord): RequestHandler {
  return refusedUnless(admin, what, (identity, req) => changeRefusal(identity, (req.params as { name: string }).name, wildcardPath(req.params)));
}

/** Aborted when the response closes before it was sent: a walk nobody waits for stops and frees its slot. */
function abandonedWhenGone(res: Response): AbortSignal {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}

export function opsRoutes(ops: ZnodeOps, admin: Admin, walks: WalkBudget = new WalkBudget()): Router {
  const router = Router();
  const name = (params: unknown) => (params as { name: string }).name;
  const target =
    (action: AuditAction) =>
    (req: Request): AuditRecord => ({ action, ensemble: name(req.params), path: wildcardPath(req.params) });

  router.post(both('znodes'), znodeWriters(admin, target('create')), ...jsonBody(ZNODE_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(createBodySchema, req.body ?? {}, res);
    if (!body) return;
    try {
      res.status(201).json(await ops.create(caller(req, res), ensembleOf(res), wildcardPath(req.params), body));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.put(both('znodes'), znodeWriters(admin, target('setData')), ...jsonBody(ZNODE_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(setDataBodySchema, req.body, res);
    if (!body) return;
    try {
      res.json(await ops.setData(caller(req, res), ensembleOf(res), wildcardPath(req.params), body));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.delete(
    both('znodes'),
    znodeWriters(admin, (req) => target(req.query.recursive === 'true' ? 'deleteRecursive' : 'delete')(req)),
    async (req, res) => {
      const q = parseOr400(deleteQuerySchema, req.query, res, 'INVALID_QUERY');
      if (!q) return;
      try {
        const who = caller(req, res);
        if (q.recursive === 'true') {
          const job = await ops.startRecursiveDelete(who, ensembleOf(res), wildcardPath(req.params), q.version);
          res.status(202).json({ job });
        } else {
          res.json(await ops.delete(who, ensembleOf(res), wildcardPath(req.params), q.version));
        }
      } catch (error) {
        sendFailure(res, error);
      }
    },
  );

  router.get(both('subtree'), async (req, res) => {
    try {
      res.json(await walks.run(caller(req, res).identity, () => ops.countSubtree(ensembleOf(res), wildcardPath(req.params)), abandonedWhenGone(res)));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.get(both('acl'), async (req, res) => {
    try {
      res.json(await ops.getAcl(ensembleOf(res), wildcardPath(req.params)));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.put(both('acl'), adminOnly(admin, target('setAcl')), ...jsonBody(ACL_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(setAclBodySchema, req.body, res);
    if (!body) return;
    try {
      res.json(await ops.setAcl(caller(req, res), ensembleOf(res), wildcardPath(req.params), body));
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.get(both('export'), async (req, res) => {
    try {
      const doc = await walks.run(caller(req, res).identity, () => ops.exportSubtree(ensembleOf(res), wildcardPath(req.params)), abandonedWhenGone(res));
      res.setHeader('Content-Disposition', `attachment; filename="${doc.ensemble}-export.json"`);
      res.json(doc);
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.post(
    both('import'),
    znodeWriters(admin, (req) => ({ ...target('import')(req), details: { dryRun: req.query.dryRun === 'true' } })),
    ...jsonBody(IMPORT_BODY_LIMIT),
    async (req, res) => {
      const q = parseOr400(importQuerySchema, req.query, res, 'INVALID_QUERY');
      if (!q) return;
      const doc = parseOr400(exportDocumentSchema, req.body, res);
      if (!doc) return;
      try {
        const overwrite = q.overwrite === 'true';
        if (q.dryRun === 'true')
          res.json({ dryRun: true, overwrite, plan: await ops.planImport(caller(req, res), ensembleOf(res), wildcardPath(req.params), doc, overwrite) });
        else res.status(202).json({ job: await ops.startImport(caller(req, res), ensembleOf(res), wildcardPath(req.params), doc, overwrite) });
      } catch (error) {
        sendFailure(res, error);
      }
    },
  );

  router.get('/jobs', (_req, res) => {
    res.json({ jobs: admin.jobs.list() });
  });

  router.get('/jobs/:id', (req, res) => {
    const job = admin.jobs.get(req.params.id);
    if (!job) return sendFailure(res, new OpError('UNKNOWN_JOB', `no job ${JSON.stringify(req.params.id)}`));
    res.json({ job });
  });

  router.delete(
    '/jobs/:id',
    // Admins cancel any job; a writer only one it started.
    refusedUnless(
      admin,
      (req) => ({ action: 'cancelJob', details: { jobId: String(req.params.id).slice(0, 64) } }),
      (identity, req) => (canMutate(identity) || ops.startedBy(identity, String(req.params.id)) ? null : adminRefusal(identity)),
    ),
    (req, res) => {
      try {
        res.json({ job: ops.cancelJob(caller(req, res), String(req.params.id)) });
      } catch (error) {
        sendFailure(res, error);
      }
    },
  );

  return router;
}
