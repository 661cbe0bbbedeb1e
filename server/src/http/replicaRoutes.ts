/** GET /api/replicas (admins): the Keeper replicas registered in the home ensemble (docs/replicas.md). */
import { Router } from 'express';
import type { ReplicasAnswer } from '@keeper/shared';
import { REPLICAS_NOTE, type Replicas } from '../replicas/replicas.js';
import { sendError, sendFailure } from './apiErrors.js';
import { requireAdmin } from './requestIdentity.js';

export function replicaRoutes(replicas: Replicas | null): Router {
  const router = Router();
  router.get('/replicas', requireAdmin, async (_req, res) => {
    if (!replicas) {
      const alone: ReplicasAnswer = { enabled: false, readAt: Date.now(), note: REPLICAS_NOTE, replicas: [] };
      return void res.json(alone);
    }
    // A replica that cannot register (the home ensemble away, another secret) says why rather than list without itself.
    const problem = replicas.whyNotRegistered();
    if (problem !== null) return sendError(res, 'NOT_READY', `this replica is not in the registry: ${problem}`);
    try {
      res.json(await replicas.answer());
    } catch (error) {
      sendFailure(res, error);
    }
  });
  return router;
}
