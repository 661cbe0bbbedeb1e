import { describe, expect, it } from 'vitest';
import { lockUrl, locksUrl, parseLocksLocation } from './urls';

describe('lock URLs', () => {
  it('keep the lock path’s slashes and encode each segment', () => {
    expect(locksUrl('prod eu')).toBe('/ensembles/prod%20eu/locks');
    expect(lockUrl('default', '/app/locks/job 1')).toBe('/ensembles/default/locks/app/locks/job%201');
  });

  it('read back what they write, the list without a path', () => {
    expect(parseLocksLocation('/ensembles/prod%20eu/locks')).toEqual({ ensemble: 'prod eu', path: null });
    expect(parseLocksLocation('/ensembles/default/locks/')).toEqual({ ensemble: 'default', path: null });
    expect(parseLocksLocation(lockUrl('default', '/app/locks/job 1'))).toEqual({ ensemble: 'default', path: '/app/locks/job 1' });
    expect(parseLocksLocation('/ensembles/default/sessions')).toBeNull();
  });
});
