/**
 * Alerts the operator dismissed, for this browser tab's session (sessionStorage): a dismissed alert
 * stays away while its condition lasts, and comes back if the condition clears and happens again
 * (alert ids are stable per condition, e.g. "behind:127.0.0.1:2192").
 */

export function storageKey(ensemble: string): string {
  return `keeper.alerts.dismissed.${ensemble}`;
}

export function readDismissed(storage: Pick<Storage, 'getItem'> | null, ensemble: string): Set<string> {
  try {
    const raw = storage?.getItem(storageKey(ensemble));
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return new Set(Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

export function writeDismissed(storage: Pick<Storage, 'setItem'> | null, ensemble: string, ids: ReadonlySet<string>): void {
  try {
    storage?.setItem(storageKey(ensemble), JSON.stringify([...ids]));
  } catch {
    // Storage full or refused: the dismissal lasts until the page reloads.
  }
}

/**
 * Forgets dismissals whose alert is gone, so the condition coming back shows again. Only call it
 * with a live alert list: stale or empty-before-the-first-poll lists would forget everything.
 */
export function pruneDismissed(dismissed: ReadonlySet<string>, currentIds: readonly string[]): Set<string> {
  const current = new Set(currentIds);
  return new Set([...dismissed].filter((id) => current.has(id)));
}

export function sameIds(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const id of a) if (!b.has(id)) return false;
  return true;
}
