/** The fixtures are the scenes they claim to be (the component tests rely on it). */
import { describe, expect, it } from 'vitest';
import { lockAnswerSchema, locksAnswerSchema } from '@keeper/shared';
import { bigLock, jobLock, lockResponse, locksResponse, persistentLock } from './fixtures';

describe('lock fixtures', () => {
  it('are what the server would send', () => {
    expect(locksAnswerSchema.parse(locksResponse())).toBeTruthy();
    expect(lockAnswerSchema.parse(lockResponse(jobLock()))).toBeTruthy();
  });

  it('hold each status: #732 (holder, leaked, waiting), a persistent holder, and 100,000 counted', () => {
    expect(jobLock().contenders.map((c) => c.status)).toEqual(['holder', 'leaked', 'waiting']);
    expect(persistentLock().contenders.map((c) => c.status)).toEqual(['persistent', 'waiting']);
    const big = bigLock();
    expect([big.total, big.contenders.length, big.holders, big.waiters]).toEqual([100_000, 50, 1, 99_999]);
    expect(locksResponse().locks.map((l) => l.worstStatus)).toEqual(['leaked', 'persistent', 'waiting']);
  });
});
