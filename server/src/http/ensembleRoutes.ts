/**
 * The ensemble view's JSON API (behind ensembleLookup): members (the poller's last
 * result), sessions and watches (gathered on demand, rate-limited per ensemble, shared by
 * every caller), sizing (live, what-if, calculator), and a znode's bare stat (`exists` needs no
 * permission, so a node the console may not read still shows its stat), and a znode's value as
 * its stored bytes (znodeDataRoute.ts). Thin: the logic lives
 * in shared/ensemble and server/ensemble. The event timeline (events) is the poller's observations.
 */
import { EVENT_TIMES_OBSERVED, findMember, ROUTES, sizingReport, whatIfDown, type EnsembleHealth, type SizingAnswer } from '@keeper/shared';
import type { Ensemble } from '../ensemble/ensemble.js';
import { OpError } from '../admin/opError.js';
import { ensembleOf } from './ensembleLookup.js';
import { znodeData } from './znodeDataRoute.js';
import type { ApiRoutes } from './apiRoute.js';
import { validPathOr400 } from './validPath.js';

const FIRST_POLL_WAIT_MS = 5_000;

/** The latest poll; right after start-up, waits for the first one. */
async function healthOf(ensemble: Ensemble): Promise<EnsembleHealth> {
  const health = ensemble.poller.current() ?? (await ensemble.poller.ready(FIRST_POLL_WAIT_MS));
  if (!health) throw new OpError('NOT_READY', 'the first poll of the members has not finished yet; try again in a few seconds');
  return health;
}

/** A gathering (sessions, watches) that failed: GATHER_FAILED with its reason. */
async function gathered<T>(gather: Promise<T>): Promise<T> {
  try {
    return await gather;
  } catch (error) {
    throw new OpError('GATHER_FAILED', error instanceof Error ? error.message : String(error));
  }
}

/** Registered behind ensembleLookup, which answers an unknown ensemble name. */
export function ensembleRoutes(api: ApiRoutes): void {
  api.handle(ROUTES.members, {}, async ({ res }) => {
    const health = await healthOf(ensembleOf(res));
    return { ...health, members: health.members.map((m) => ({ ...m, role: m.state })) };
  });

  api.handle(ROUTES.ensembleEvents, {}, ({ res }) => {
    const { name, timeline } = ensembleOf(res);
    return { ensemble: name, events: timeline.list(), observed: EVENT_TIMES_OBSERVED, keptMs: timeline.keptMs, maxEvents: timeline.maxEvents };
  });

  api.handle(ROUTES.sessions, {}, ({ query, res }) => gathered(ensembleOf(res).sessions.get(query.refresh)));

  api.handle(ROUTES.watches, {}, ({ query, res }) => gathered(ensembleOf(res).watches.get(query.byPath)));

  // A node whose ACL refuses the console READ: getData and getChildren fail with NO_AUTH, but
  // `exists` needs no permission, so the browser can still show when it was made and changed.
  api.handle(ROUTES.znodeStat, {}, async ({ params, res }) => {
    validPathOr400(params.path);
    return { path: params.path, stat: await ensembleOf(res).gateway.exists(params.path) };
  });

  api.handle(ROUTES.znodeData, {}, znodeData);

  api.handle(ROUTES.sizing, {}, async ({ query, res }) => {
    const health = await healthOf(ensembleOf(res));
    const { quorum } = health;
    let whatIf: SizingAnswer['whatIf'] = null;
    if (query.down !== undefined) {
      const target = findMember(health.members, query.down);
      if (!target) {
        const known = health.members.map((m) => (m.id === null ? m.address : `${m.id} (${m.address})`)).join(', ');
        throw new OpError('UNKNOWN_MEMBER', `no member ${JSON.stringify(query.down)}: name one by id or host:port (${known})`);
      }
      whatIf = whatIfDown(health.members, target);
    }
    const { voters, observers, votersDown } = query;
    return {
      ensemble: health.ensemble,
      live: sizingReport({ voters: quorum.voters, observers: quorum.observers, votersDown: quorum.voters - quorum.votersServing }),
      whatIf,
      calculator: voters === undefined ? null : sizingReport({ voters, observers: observers ?? 0, votersDown: votersDown ?? 0 }),
    };
  });
}
