import { describe, expect, it } from 'vitest';
import { formatAgo, formatClock, formatDuration } from './time';

describe('formatDuration', () => {
  it('uses the largest sensible unit', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(4_900)).toBe('4 s');
    expect(formatDuration(3 * 60_000 + 5_000)).toBe('3 min');
    expect(formatDuration(2 * 3_600_000)).toBe('2 h');
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
  });
  it('treats clock skew as zero', () => {
    expect(formatDuration(-500)).toBe('0 s');
  });
});

describe('formatAgo', () => {
  it('says just now under a second and for future times', () => {
    expect(formatAgo(1000, 1500)).toBe('just now');
    expect(formatAgo(2000, 1000)).toBe('just now');
    expect(formatAgo(0, 12_000)).toBe('12 s ago');
  });
});

describe('formatClock', () => {
  it('pads to HH:MM:SS', () => {
    const at = new Date(2024, 0, 2, 3, 4, 5).getTime();
    expect(formatClock(at)).toBe('03:04:05');
  });
});
