/** What a refused upgrade request says to an operator: the codes only the Upgrades routes answer, the rest in the server's own words. */
import { ApiError, errorText } from '../../lib/api';

export function upgradeErrorText(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.code) {
      case 'UPGRADE_IN_PROGRESS':
        return `Another upgrade of this ensemble is planned, running or paused (one at a time): it is shown here as soon as Keeper sends it. ${error.message}`;
      case 'UNKNOWN_UPGRADE':
        return 'Keeper does not know this upgrade any more: reload the page.';
      case 'FORBIDDEN':
        return 'Only admins can plan or act on an upgrade.';
    }
  }
  // UPGRADE_REFUSED's message says why (the state, the failing gates, a missing confirmation).
  return errorText(error);
}
