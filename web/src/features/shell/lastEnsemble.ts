/**
 * The ensemble the operator last looked at, for views that span every ensemble (the audit trail):
 * the top bar and navigation stay on it instead of jumping to the first one configured.
 */
const KEY = 'keeper.lastEnsemble';

export function rememberEnsemble(name: string): void {
  try {
    sessionStorage.setItem(KEY, name);
  } catch {
    // Storage refused: the first ensemble is shown instead.
  }
}

export function lastEnsemble(known: readonly string[]): string | null {
  let stored: string | null = null;
  try {
    stored = sessionStorage.getItem(KEY);
  } catch {
    stored = null;
  }
  if (stored !== null && known.includes(stored)) return stored;
  return known[0] ?? null;
}
