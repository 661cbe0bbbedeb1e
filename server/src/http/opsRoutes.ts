/**
 * Admin operations over HTTP: thin adapters around ZnodeOps (which refuses viewers and
 * audits). Reads that serve them (ACL, subtree count, export, jobs) are open to any identity.
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
import { Router, type Response } from 'express';
import { z } from 'zod';
import { createBodySchema, exportDocumentSchema, setAclBodySchema, setDataBodySchema } from '@keeper/shared';
import type { JobRegistry } from '../ops/jobs.js';
import { OpError, statusOf, toOpError } from '../ops/opError.js';
import type { ZnodeOps } from '../ops/znodeOps.js';
import { jsonBody, parseOr400, wildcardPath } from './jsonBody.js';
import { caller } from './requestIdentity.js';

const ZNODE_BODY_LIMIT = '2mb';
const IMPORT_BODY_LIMIT = '40mb';

const deleteQuery = z.object({
  version: z.coerce.number().int().min(0).max(2_147_483_647),
  recursive: z.enum(['true', 'false']).optional(),
});
const importQuery = z.object({
  dryRun: z.enum(['true', 'false']).optional(),
  overwrite: z.enum(['true', 'false']).optional(),
});

export function sendOpError(res: Response, error: unknown): void {
  const e = toOpError(error);
  res.status(statusOf(e.code)).json({ error: { code: e.code, message: e.message }, ...(e.current ? { current: e.current } : {}) });
}

const both = (route: string) => [`/ensembles/:name/${route}`, `/ensembles/:name/${route}/*path`];

export function opsRoutes(ops: ZnodeOps, jobs: JobRegistry): Router {
  const router = Router();
  const name = (params: unknown) => (params as { name: string }).name;

  router.post(both('znodes'), ...jsonBody(ZNODE_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(createBodySchema, req.body ?? {}, res);
    if (!body) return;
    try {
      res.status(201).json(await ops.create(caller(req, res), name(req.params), wildcardPath(req.params), body));
    } catch (error) {
      sendOpError(res, error);
    }
  });

  router.put(both('znodes'), ...jsonBody(ZNODE_BODY_LIMIT), async (req, res) => {
    const body = parseOr400(setDataBodySchema, req.body, res);
    if (!body) return;
    try {
      res.json(await ops.setData(caller(req, res), name(req.params), wildcardPath(req.params), body));
    } catch (error) {
      sendOpError(res, error);
    }
  });

  router.delete(both('znodes'), async (req, res) => {
    const q = parseOr400(deleteQuery, req.query, res, 'INVALID_QUERY');
    if (!q) return;
    try {
      const who = caller(req, res);
      if (q.recursive === 'true') {
        const job = await ops.startRecursiveDelete(who, name(req.params), wildcardPath(req.params), q.version);
        res.status(202).json({ job });
      } else {
        res.json(await ops.delete(who, name(req.params), wildcardPath(req.params), q.version));
      }
    } catch (error) {
      sendOpError(res, error);
    }
  });

  router.get(both('subtree'), async (req, res) => {
    try {
      res.json(await ops.countSubtree(name(req.params), wildcardPath(req.params)));
    } catch (error) {
      sendOpError(res, error);
    }
  });

  router.get(both('acl'), async (req, res) => {
    try {
      res.json(await ops.getAcl(name(req.params), wildcardPath(req.params)));
    } catch (error) {
      sendOpError(res, error);
    }
  });

  router.put(both('acl'), ...jsonBody('64kb'), async (req, res) => {
    const body = parseOr400(setAclBodySchema, req.body, res);
    if (!body) return;
    try {
      res.json(await ops.setAcl(caller(req, res), name(req.params), wildcardPath(req.params), body));
    } catch (error) {
      sendOpError(res, error);
    }
  });

  router.get(both('export'), async (req, res) => {
    try {
      const doc = await ops.exportSubtree(name(req.params), wildcardPath(req.params));
      res.setHeader('Content-Disposition', `attachment; filename="${doc.ensemble}-export.json"`);
      res.json(doc);
    } catch (error) {
      sendOpError(res, error);
    }
  });

  router.post(both('import'), ...jsonBody(IMPORT_BODY_LIMIT), async (req, res) => {
    const q = parseOr400(importQuery, req.query, res, 'INVALID_QUERY');
    if (!q) return;
    const doc = parseOr400(exportDocumentSchema, req.body, res);
    if (!doc) return;
    try {
      const overwrite = q.overwrite === 'true';
      if (q.dryRun === 'true') res.json({ dryRun: true, overwrite, plan: await ops.planImport(caller(req, res), name(req.params), wildcardPath(req.params), doc, overwrite) });
      else res.status(202).json({ job: await ops.startImport(caller(req, res), name(req.params), wildcardPath(req.params), doc, overwrite) });
    } catch (error) {
      sendOpError(res, error);
    }
  });

  router.get('/jobs', (_req, res) => {
    res.json({ jobs: jobs.list() });
  });

  router.get('/jobs/:id', (req, res) => {
    const job = jobs.get(req.params.id);
    if (!job) return sendOpError(res, new OpError('UNKNOWN_JOB', `no job ${JSON.stringify(req.params.id)}`));
    res.json({ job });
  });

  router.delete('/jobs/:id', (req, res) => {
    try {
      res.json({ job: ops.cancelJob(caller(req, res), req.params.id) });
    } catch (error) {
      sendOpError(res, error);
    }
  });

  return router;
}
