/**
 * What a refused lock write says to an operator, in words about the lock: the codes only the
 * Locks routes answer here; a delete's other refusals as the tree's dialogs say them, the rest in
 * the server's own words.
 */
import { ApiError, errorText } from '../../lib/api';
import { writeErrorText } from '../../app/writeErrors';

export function lockDeleteErrorText(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.code) {
      case 'LOCK_CHANGED':
        return 'It changed since you looked (another node, owner or version): nothing was deleted. The table shows it as it is now; look again before deleting.';
      case 'LOCK_HOLDER':
        return 'It holds the lock now: nothing was deleted. Deleting a holder lets the next waiter in while the old owner still believes it holds the lock; type its name to do it anyway.';
      case 'NOT_A_LOCK':
        return 'Keeper no longer sees this directory as a lock it recognizes: nothing was deleted.';
      case 'NO_NODE':
        return 'The node is already gone: nothing was deleted.';
      case 'OUTCOME_UNKNOWN':
        return 'The connection to ZooKeeper was lost while deleting: it may or may not be deleted. The table shows what ZooKeeper says once it answers again.';
    }
  }
  return writeErrorText(error, 'delete');
}

export function lockScanErrorText(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.code) {
      case 'SCAN_IN_PROGRESS':
        return 'A scan is already running on this ensemble (one at a time): its progress is in the corner of the page, or wait for it to end.';
      case 'NO_NODE':
        return 'There is no such znode to scan under.';
      case 'INVALID_BODY':
      case 'INVALID_PATH':
        return 'That is not a ZooKeeper path: it must start with / and not end with one.';
    }
  }
  return errorText(error);
}

export function lockCleanErrorText(error: unknown): string {
  if (error instanceof ApiError && (error.code === 'INVALID_BODY' || error.code === 'INVALID_PATH')) {
    return 'That is not a ZooKeeper path: it must start with / and not end with one.';
  }
  return errorText(error);
}
