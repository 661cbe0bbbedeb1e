import { useCallback, useSyncExternalStore } from 'react';
import { resolveTheme, THEME_STORAGE_KEY, type Theme } from './themePreference';

// The theme lives on <html data-theme>, set before first paint by index.html; this hook reads and flips it.
function current(): Theme {
  const t = document.documentElement.dataset.theme;
  return t === 'light' || t === 'dark' ? t : resolveTheme(null, window.matchMedia('(prefers-color-scheme: light)').matches);
}

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function setTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Private mode may refuse storage; the choice then lasts for this page only.
  }
  for (const l of listeners) l();
}

export function useTheme(): { theme: Theme; toggle: () => void } {
  const theme = useSyncExternalStore(subscribe, current);
  const toggle = useCallback(() => setTheme(current() === 'dark' ? 'light' : 'dark'), []);
  return { theme, toggle };
}
