/**
 * Page-wide keys: `?` for the shortcuts, `/` to focus the view's filter. Ignored while typing, so
 * a `/` inside a filter box is just a slash.
 */
import { useEffect } from 'react';

export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT';
}

export function useGlobalKeys(handlers: Record<string, () => void>): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      const handler = handlers[e.key];
      if (!handler) return;
      e.preventDefault();
      handler();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [handlers]);
}

/** Views mark their main filter with data-shortcut="filter"; `/` focuses the first one shown. */
export function focusFilter(): void {
  const el = document.querySelector<HTMLInputElement>('[data-shortcut="filter"]');
  el?.focus();
  el?.select();
}
