/**
 * The ensemble view's JSON API, mounted at /api/ensembles/:name: members (the poller's last
 * result), sessions and watches (gathered on demand, rate-limited per ensemble, shared by
 * every caller), sizing (live, what-if, calculator), and a znode's bare stat (`exists` needs no
 * permission, so a node the console may not read still shows its stat), and a znode's value as
 * its stored bytes (znodeDataRoute.ts). Thin: the logic lives
 * in shared/ensemble and server/ensemble. The event timeline (events) is the poller's observations.
 */
import { Router, type Response } from 'express';
import type { z } from 'zod';
import {
  checkPath,
  EVENT_TIMES_OBSERVED,
  findMember,
  sessionsQuerySchema,
  sizingQuerySchema,
  sizingReport,
  watchesQuerySchema,
  whatIfDown,
  type EnsembleEventsAnswer,
  type EnsembleHealth,
  type MembersAnswer,
  type SizingAnswer,
  type ZnodeStatAnswer,
} from '@keeper/shared';
import type { Ensemble } from '../ensemble/ensemble.js';
import { sendError, sendFailure } from './apiErrors.js';
import { wildcardPath } from './jsonBody.js';
import { ensembleOf } from './ensembleLookup.js';
import { znodeData } from './znodeDataRoute.js';

const FIRST_POLL_WAIT_MS = 5_000;

function invalidQuery(res: Response, error: z.ZodError): void {
  sendError(res, 'INVALID_QUERY', error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
}

/** Mounted behind ensembleLookup, which answers an unknown ensemble name. */
export function ensembleRoutes(): Router {
  const router = Router({ mergeParams: true });

  /** The latest poll; right after start-up, waits for the first one. */
  const healthOf = async (ensemble: Ensemble, res: Response): Promise<EnsembleHealth | null> => {
    const health = ensemble.poller.current() ?? (await ensemble.poller.ready(FIRST_POLL_WAIT_MS));
    if (!health) sendError(res, 'NOT_READY', 'the first poll of the members has not finished yet; try again in a few seconds');
    return health;
  };

  router.get('/members', async (req, res) => {
    const ensemble = ensembleOf(res);
    const health = await healthOf(ensemble, res);
    if (!health) return;
    const body: MembersAnswer = { ...health, members: health.members.map((m) => ({ ...m, role: m.state })) };
    res.json(body);
  });

  router.get('/events', (req, res) => {
    const { name, timeline } = ensembleOf(res);
    const body: EnsembleEventsAnswer = {
      ensemble: name,
      events: timeline.list(),
      observed: EVENT_TIMES_OBSERVED,
      keptMs: timeline.keptMs,
      maxEvents: timeline.maxEvents,
    };
    res.json(body);
  });

  router.get('/sessions', async (req, res) => {
    const ensemble = ensembleOf(res);
    const query = sessionsQuerySchema.safeParse(req.query);
    if (!query.success) return invalidQuery(res, query.error);
    try {
      res.json(await ensemble.sessions.get(query.data.refresh));
    } catch (error) {
      sendError(res, 'GATHER_FAILED', error instanceof Error ? error.message : String(error));
    }
  });

  router.get('/watches', async (req, res) => {
    const ensemble = ensembleOf(res);
    const query = watchesQuerySchema.safeParse(req.query);
    if (!query.success) return invalidQuery(res, query.error);
    try {
      res.json(await ensemble.watches.get(query.data.byPath));
    } catch (error) {
      sendError(res, 'GATHER_FAILED', error instanceof Error ? error.message : String(error));
    }
  });

  // A node whose ACL refuses the console READ: getData and getChildren fail with NO_AUTH, but
  // `exists` needs no permission, so the browser can still show when it was made and changed.
  router.get(['/stat', '/stat/*path'], async (req, res) => {
    const { gateway } = ensembleOf(res);
    const path = wildcardPath(req.params);
    const check = checkPath(path);
    if (!check.ok) return sendError(res, 'INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`);
    try {
      const body: ZnodeStatAnswer = { path, stat: await gateway.exists(path) };
      res.json(body);
    } catch (error) {
      sendFailure(res, error);
    }
  });

  router.get(['/data', '/data/*path'], znodeData);

  router.get('/sizing', async (req, res) => {
    const ensemble = ensembleOf(res);
    const query = sizingQuerySchema.safeParse(req.query);
    if (!query.success) return invalidQuery(res, query.error);
    const health = await healthOf(ensemble, res);
    if (!health) return;
    const { quorum } = health;
    let whatIf: SizingAnswer['whatIf'] = null;
    if (query.data.down !== undefined) {
      const target = findMember(health.members, query.data.down);
      if (!target) {
        const known = health.members.map((m) => (m.id === null ? m.address : `${m.id} (${m.address})`)).join(', ');
        return sendError(res, 'UNKNOWN_MEMBER', `no member ${JSON.stringify(query.data.down)}: name one by id or host:port (${known})`);
      }
      whatIf = whatIfDown(health.members, target);
    }
    const { voters, observers, votersDown } = query.data;
    const body: SizingAnswer = {
      ensemble: health.ensemble,
      live: sizingReport({ voters: quorum.voters, observers: quorum.observers, votersDown: quorum.voters - quorum.votersServing }),
      whatIf,
      calculator: voters === undefined ? null : sizingReport({ voters, observers: observers ?? 0, votersDown: votersDown ?? 0 }),
    };
    res.json(body);
  });

  return router;
}
