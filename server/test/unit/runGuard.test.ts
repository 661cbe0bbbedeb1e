import { describe, expect, it } from 'vitest';
import type { EnsembleHealth } from '@keeper/shared';
import { OpError } from '../../src/admin/opError.js';
import { RunGuard, type RunGuardOptions } from '../../src/workflows/runGuard.js';
import type { LockAttempt } from '../../src/workflows/workflowLock.js';
import { ZkError } from '../../src/zk/errors.js';

/** The guard's answers only carry the health through: any object stands for one. */
const polled = { members: [] } as unknown as EnsembleHealth;

function guard(over: Partial<RunGuardOptions> = {}): RunGuard {
  return new RunGuard({
    ensemble: 'prod',
    kept: 'resizes',
    isLoaded: () => true,
    identity: { whyUnknown: () => null },
    health: { current: () => polled },
    lock: { acquire: async (): Promise<LockAttempt> => ({ held: true }) },
    lockHeld: (holder) => `the ensemble's upgrade lock is held: ${holder}`,
    ...over,
  });
}

const refusal = (fn: () => unknown): OpError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof OpError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('RunGuard: what an upgrade and a resize check before they act', () => {
  it('refuses NOT_READY, naming what is not read and why, until the workflows are read', () => {
    let loaded = false;
    const g = guard({ isLoaded: () => loaded, identity: { whyUnknown: () => 'the ensemble is not reachable' } });
    const error = refusal(() => g.requireReady());
    expect(error.code).toBe('NOT_READY');
    expect(error.message).toBe(
      "the resizes of prod are not read yet: they are kept by the ensemble's identity, which is not known yet (the ensemble is not reachable); try again in a few seconds",
    );
    loaded = true;
    expect(() => g.requireReady()).not.toThrow();
  });

  it('refuses NOT_READY before the members are polled, and gives the latest health after', () => {
    let current: EnsembleHealth | null = null;
    const g = guard({ health: { current: () => current } });
    const error = refusal(() => g.requireHealth());
    expect(error.code).toBe('NOT_READY');
    expect(error.message).toBe('the members of prod have not been polled yet: try again in a few seconds');
    current = polled;
    expect(g.requireHealth()).toBe(polled);
  });

  it('takes the lock for the id and by whom, refuses UPGRADE_IN_PROGRESS naming the holder, and turns a ZooKeeper error into an OpError', async () => {
    const asked: [string, string | null][] = [];
    const taken = guard({ lock: { acquire: async (id, by) => (asked.push([id, by]), { held: true }) } });
    await expect(taken.takeLock('r-1', 'alice')).resolves.toBeUndefined();
    expect(asked).toEqual([['r-1', 'alice']]);

    const held = guard({ lock: { acquire: async () => ({ held: false, holder: 'Keeper b:1 (upgrade u-9)', sameUpgrade: false }) } });
    await expect(held.takeLock('r-1', 'alice')).rejects.toMatchObject({
      code: 'UPGRADE_IN_PROGRESS',
      message: "the ensemble's upgrade lock is held: Keeper b:1 (upgrade u-9)",
    });

    const failing = guard({ lock: { acquire: () => Promise.reject(new ZkError('NO_AUTH', 'not allowed')) } });
    const error = await failing.takeLock('r-1', 'alice').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpError);
    expect(error).toMatchObject({ code: 'NO_AUTH' });
  });
});
