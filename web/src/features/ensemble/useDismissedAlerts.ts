import { useCallback, useEffect, useState } from 'react';
import type { Alert } from '@keeper/shared';
import { pruneDismissed, readDismissed, sameIds, writeDismissed } from './dismissedAlerts';

function sessionStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** Dismissed alert ids for this tab's session; `ensemble` must be constant (the view is keyed by it). */
export function useDismissedAlerts(ensemble: string, alerts: readonly Alert[], live: boolean) {
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(() => readDismissed(sessionStore(), ensemble));
  const [prunedFor, setPrunedFor] = useState<readonly Alert[] | null>(null);

  // Conditions that cleared are forgotten, adjusted during render; only from live data (a stale list proves nothing).
  if (live && prunedFor !== alerts) {
    setPrunedFor(alerts);
    const next = pruneDismissed(
      dismissed,
      alerts.map((a) => a.id),
    );
    if (!sameIds(dismissed, next)) setDismissed(next);
  }

  useEffect(() => writeDismissed(sessionStore(), ensemble, dismissed), [ensemble, dismissed]);

  const dismiss = useCallback((id: string) => setDismissed((prev) => new Set(prev).add(id)), []);
  const restoreAll = useCallback(() => setDismissed(new Set()), []);
  return { dismissed, dismiss, restoreAll };
}
