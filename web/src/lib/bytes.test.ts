import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount } from './bytes';

describe('formatBytes', () => {
  it('formats the sizes the truncation notice uses', () => {
    expect(formatBytes(53)).toBe('53 B');
    expect(formatBytes(64 * 1024)).toBe('64 KiB');
    expect(formatBytes(812 * 1024)).toBe('812 KiB');
    expect(formatBytes(1.25 * 1024 * 1024)).toBe('1.3 MiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });
});

describe('formatCount', () => {
  it('groups thousands', () => {
    expect(formatCount(100000)).toBe('100,000');
  });
});
