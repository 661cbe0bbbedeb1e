import { describe, expect, it } from 'vitest';
import { resolveTheme } from './themePreference';

describe('resolveTheme', () => {
  it('prefers the stored choice', () => {
    expect(resolveTheme('light', false)).toBe('light');
    expect(resolveTheme('dark', true)).toBe('dark');
  });
  it('follows the OS at first, dark by default', () => {
    expect(resolveTheme(null, true)).toBe('light');
    expect(resolveTheme(null, false)).toBe('dark');
    expect(resolveTheme('purple', false)).toBe('dark');
  });
});
