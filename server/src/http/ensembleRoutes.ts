/**
 * The ensemble view's JSON API, mounted at /api/ensembles/:name: members (the poller's last
 * result), sessions and watches (gathered on demand, rate-limited per ensemble, shared by
 * every caller), sizing (live, what-if, calculator), and a znode's bare stat (`exists` needs no
 * permission, so a node the console may not read still shows its stat). Thin: the logic lives
 * in shared/ensemble and server/ensemble.
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { checkPath, findMember, sizingReport, whatIfDown, type EnsembleHealth, type MembersResponse, type SizingResponse, type ZnodeStat } from '@keeper/shared';
import type { EnsembleMonitor } from '../ensemble/ensembleMonitor.js';
import type { ZkGateway } from '../zk/gateway.js';
import { sendError, sendZkError } from './apiErrors.js';
import { wildcardPath } from './jsonBody.js';

/** GET /api/ensembles/:name/stat/<path>: the stat alone, from `exists` (no ACL permission needed). */
export interface ZnodeStatResponse {
  path: string;
  /** null when no node is at the path. */
  stat: ZnodeStat | null;
}

const FIRST_POLL_WAIT_MS = 5_000;

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === '');

const count = z.coerce.number().int().min(0).max(99);
const sizingQuery = z.object({
  down: z.string().min(1).max(300).optional(),
  voters: count.optional(),
  observers: count.optional(),
  votersDown: count.optional(),
});

function invalidQuery(res: Response, error: z.ZodError): void {
  sendError(res, 400, 'INVALID_QUERY', error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
}

export function ensembleRoutes(monitors: ReadonlyMap<string, EnsembleMonitor>, gateways: ReadonlyMap<string, ZkGateway> = new Map()): Router {
  const router = Router({ mergeParams: true });

  const monitorOf = (req: Request, res: Response): EnsembleMonitor | null => {
    const name = (req.params as { name?: string }).name ?? '';
    const monitor = monitors.get(name);
    if (!monitor) sendError(res, 404, 'UNKNOWN_ENSEMBLE', `no ensemble named ${JSON.stringify(name)}`);
    return monitor ?? null;
  };

  /** The latest poll; right after start-up, waits for the first one. */
  const healthOf = async (monitor: EnsembleMonitor, res: Response): Promise<EnsembleHealth | null> => {
    const health = monitor.poller.current() ?? (await monitor.poller.ready(FIRST_POLL_WAIT_MS));
    if (!health) sendError(res, 503, 'NOT_READY', 'the first poll of the members has not finished yet; try again in a few seconds');
    return health;
  };

  router.get('/members', async (req, res) => {
    const monitor = monitorOf(req, res);
    if (!monitor) return;
    const health = await healthOf(monitor, res);
    if (!health) return;
    const body: MembersResponse = { ...health, members: health.members.map((m) => ({ ...m, role: m.state })) };
    res.json(body);
  });

  router.get('/sessions', async (req, res) => {
    const monitor = monitorOf(req, res);
    if (!monitor) return;
    const query = z.object({ refresh: flag }).safeParse(req.query);
    if (!query.success) return invalidQuery(res, query.error);
    try {
      res.json(await monitor.sessions.get(query.data.refresh));
    } catch (error) {
      sendError(res, 503, 'GATHER_FAILED', error instanceof Error ? error.message : String(error));
    }
  });

  router.get('/watches', async (req, res) => {
    const monitor = monitorOf(req, res);
    if (!monitor) return;
    const query = z.object({ byPath: flag }).safeParse(req.query);
    if (!query.success) return invalidQuery(res, query.error);
    try {
      res.json(await monitor.watches.get(query.data.byPath));
    } catch (error) {
      sendError(res, 503, 'GATHER_FAILED', error instanceof Error ? error.message : String(error));
    }
  });

  // A node whose ACL refuses the console READ: getData and getChildren fail with NO_AUTH, but
  // `exists` needs no permission, so the browser can still show when it was made and changed.
  router.get(['/stat', '/stat/*path'], async (req, res) => {
    const name = (req.params as { name?: string }).name ?? '';
    const gateway = gateways.get(name);
    if (!gateway) return sendError(res, 404, 'UNKNOWN_ENSEMBLE', `no ensemble named ${JSON.stringify(name)}`);
    const path = wildcardPath(req.params);
    const check = checkPath(path);
    if (!check.ok) return sendError(res, 400, 'INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`);
    try {
      const body: ZnodeStatResponse = { path, stat: await gateway.exists(path) };
      res.json(body);
    } catch (error) {
      sendZkError(res, error);
    }
  });

  router.get('/sizing', async (req, res) => {
    const monitor = monitorOf(req, res);
    if (!monitor) return;
    const query = sizingQuery.safeParse(req.query);
    if (!query.success) return invalidQuery(res, query.error);
    const health = await healthOf(monitor, res);
    if (!health) return;
    const { quorum } = health;
    let whatIf: SizingResponse['whatIf'] = null;
    if (query.data.down !== undefined) {
      const target = findMember(health.members, query.data.down);
      if (!target) {
        const known = health.members.map((m) => (m.id === null ? m.address : `${m.id} (${m.address})`)).join(', ');
        return sendError(res, 400, 'UNKNOWN_MEMBER', `no member ${JSON.stringify(query.data.down)}: name one by id or host:port (${known})`);
      }
      whatIf = whatIfDown(health.members, target);
    }
    const { voters, observers, votersDown } = query.data;
    const body: SizingResponse = {
      ensemble: health.ensemble,
      live: sizingReport({ voters: quorum.voters, observers: quorum.observers, votersDown: quorum.voters - quorum.votersServing }),
      whatIf,
      calculator: voters === undefined ? null : sizingReport({ voters, observers: observers ?? 0, votersDown: votersDown ?? 0 }),
    };
    res.json(body);
  });

  return router;
}
