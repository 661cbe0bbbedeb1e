/** ROUTES.replicas (admins): the Keeper replicas registered in the home ensemble (docs/operating/replicas.md). */
import { ROUTES } from '@keeper/shared';
import { REPLICAS_NOTE, type Replicas } from '../replicas/replicas.js';
import { OpError } from '../admin/opError.js';
import type { ApiRoutes } from './apiRoute.js';

export function replicaRoutes(api: ApiRoutes, replicas: Replicas | null): void {
  api.handle(ROUTES.replicas, {}, async () => {
    if (!replicas) {
      const now = Date.now();
      return { enabled: false, sharedPolling: false, readAt: now, answeredAt: now, note: REPLICAS_NOTE, replicas: [] };
    }
    // A replica that cannot register (the home ensemble away, another secret) says why rather than list without itself.
    const problem = replicas.whyNotRegistered();
    if (problem !== null) throw new OpError('NOT_READY', `this replica is not in the registry: ${problem}`);
    // A reading may be shared by admins asking within a moment of each other: when it left says how old it was.
    return { ...(await replicas.answer()), answeredAt: Date.now() };
  });
}
