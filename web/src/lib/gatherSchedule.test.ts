import { describe, expect, it } from 'vitest';
import { allowedAt, blockedUntil, isOutdated, MAX_REFETCH_MS, MIN_REFETCH_MS, MIN_REMOUNT_REFETCH_MS, refetchDelay, refetchIn } from './gatherSchedule';

describe('refetchDelay', () => {
  it('never re-reads faster than the minimum, whatever the server says', () => {
    expect(refetchDelay(0)).toBe(MIN_REFETCH_MS);
    expect(refetchDelay(-5)).toBe(MIN_REFETCH_MS);
    expect(refetchDelay(3)).toBe(MIN_REFETCH_MS);
    expect(refetchDelay(8)).toBe(9_000);
  });
  it('waits for the server’s window when it is longer, up to a ceiling', () => {
    expect(refetchDelay(45)).toBe(46_000);
    expect(refetchDelay(86_400)).toBe(MAX_REFETCH_MS);
  });
});

describe('when "Gather now" is allowed', () => {
  it('counts the server’s window from when its answer arrived', () => {
    expect(allowedAt(1_000, 8, null, 2_000)).toBe(9_000);
    expect(allowedAt(1_000, 8, null, 9_000)).toBeNull();
    expect(allowedAt(1_000, 0, null, 1_000)).toBeNull();
  });
  it('respects a refusal that says later', () => {
    expect(allowedAt(1_000, 2, blockedUntil(1_500, 10), 2_000)).toBe(11_500);
    expect(blockedUntil(0, null)).toBe(15_000);
  });
});

describe('an outdated gathering', () => {
  it('is one older than the server’s cadence plus the re-read’s grace', () => {
    expect(isOutdated(0, 60, 65_000)).toBe(false);
    expect(isOutdated(0, 60, 65_001)).toBe(true);
    expect(isOutdated(0, undefined, 65_001)).toBe(true);
    expect(isOutdated(0, 10, 15_001)).toBe(true);
    expect(isOutdated(null, 60, 1e12)).toBe(false);
  });
});

describe('refetchIn', () => {
  it('is the whole delay right after an answer arrives', () => {
    expect(refetchIn(100_000, 30, 100_000)).toBe(31_000);
  });
  it('counts from when the answer arrived, not from when the view opened again', () => {
    // Answer received at 100 s, due at 131 s; the view is opened again at 130.5 s.
    expect(refetchIn(100_000, 30, 130_500)).toBe(500);
    // Opened long after it fell due: re-read at once (after the first render).
    expect(refetchIn(100_000, 30, 200_000)).toBe(MIN_REMOUNT_REFETCH_MS);
  });
});
