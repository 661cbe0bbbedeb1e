/**
 * Dark by default, light on request; the first visit follows the OS (prefers-color-scheme), after
 * that the operator's choice is remembered. index.html applies the same rule before first paint.
 */
export type Theme = 'dark' | 'light';

export const THEME_STORAGE_KEY = 'keeper.theme';

export function resolveTheme(stored: string | null, prefersLight: boolean): Theme {
  if (stored === 'dark' || stored === 'light') return stored;
  return prefersLight ? 'light' : 'dark';
}
