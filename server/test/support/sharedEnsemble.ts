/**
 * A real 3-member ensemble (tickTime 500, the sandbox's zoo.cfg) for a test file that does not break
 * it, lent by the pool that vitest's main process runs (ensemblePool.ts). Its tree is empty
 * (outside /zookeeper) and no session is open when the file gets it; give it back in afterAll.
 *
 *   let ensemble: SharedEnsemble;
 *   beforeAll(async () => { ensemble = await leaseSharedEnsemble(); });
 *   afterAll(async () => { await ensemble?.dispose(); });
 *
 * Use it when the file only connects clients (Keeper, kazoo, Curator, raw sessions) and reads or
 * writes znodes. Never stop, kill, pause, restart or reconfigure its members, and close every
 * session the file opens: a session still open when it is given back retires the ensemble. A
 * file that needs any of that, or its own zoo.cfg, keeps its own: startTestEnsemble().
 */
import { expect, inject } from 'vitest';
import type { LentEnsemble } from './ensemblePool.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where leaseSharedEnsemble asks for an ensemble (ensemblePoolSetup.ts provides it). */
    ensemblePool: { url: string };
  }
}

export interface SharedEnsemble extends LentEnsemble {
  /** Gives it back (the same as dispose of an ensemble from startTestEnsemble). */
  dispose(): Promise<void>;
}

async function post<T>(path: string, payload: unknown): Promise<T> {
  const res = await fetch(`${inject('ensemblePool').url}${path}`, { method: 'POST', body: JSON.stringify(payload) });
  const answer = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new Error(`ensemble pool: ${answer.error ?? res.status}`);
  return answer;
}

export async function leaseSharedEnsemble(): Promise<SharedEnsemble> {
  const who = expect.getState().testPath ?? 'a test file';
  const lent = await post<LentEnsemble>('/lease', { who });
  let released = false;
  return {
    ...lent,
    async dispose() {
      if (released) return;
      released = true;
      await post('/release', { id: lent.id });
    },
  };
}
