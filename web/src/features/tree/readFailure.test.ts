import { describe, expect, it } from 'vitest';
import { isFinalFailure, readFailureOf } from './readFailure';

const entry = (message: string, retrying: boolean) => ({ message, retrying, at: 0, epoch: 1 });

describe('readFailureOf', () => {
  it('tells NO_AUTH apart, whether or not the server retries', () => {
    expect(readFailureOf(entry('NO_AUTH (-102) at /locked', false))).toEqual({ kind: 'noAuth', message: 'NO_AUTH (-102) at /locked' });
    expect(isFinalFailure(readFailureOf(entry('NO_AUTH (-102) at /locked', true)))).toBe(true);
  });

  it('keeps retried failures as loading, and final ones as failed', () => {
    expect(readFailureOf(entry('CONNECTION_LOSS (-4) at /a', true))?.kind).toBe('retrying');
    expect(isFinalFailure(readFailureOf(entry('CONNECTION_LOSS (-4) at /a', true)))).toBe(false);
    expect(readFailureOf(entry('SYSTEM_ERROR at /a', false))?.kind).toBe('failed');
  });

  it('is null without an error', () => {
    expect(readFailureOf(null)).toBeNull();
    expect(readFailureOf(undefined)).toBeNull();
    expect(isFinalFailure(null)).toBe(false);
  });
});
