/**
 * The Locks view's writes (admins only): start a scan (a job whose progress the JobsDock shows),
 * delete one contender as it was seen, and clean leaked contenders with a dry run first. Every
 * answer is parsed with the shared contract's schema; refusals come back as ApiError.
 */
import {
  ROUTES,
  type Contender,
  type JobSnapshot,
  type LockCleanAnswer,
  type LockCleanCandidate,
  type LockDeleteAnswer,
  type LockScanCancelAnswer,
} from '@keeper/shared';
import { call } from '../../lib/api';

export async function startLockScan(ensemble: string, path: string): Promise<JobSnapshot> {
  return (await call(ROUTES.lockScan, { params: { name: ensemble }, body: { path } })).job;
}

/** Stops a running scan whichever replica runs it: the answer says "stopped" only once that replica's record does. */
export async function cancelLockScan(ensemble: string, scanId: string): Promise<LockScanCancelAnswer> {
  return call(ROUTES.lockScanCancel, { params: { name: ensemble }, body: { scanId } });
}

/** Deletes `contender` only if the server still sees it as it was shown: same owner, same version, and not holding unless `confirmHolder` names it. */
export function deleteContender(ensemble: string, contender: Contender, confirmHolder?: string): Promise<LockDeleteAnswer> {
  const body = {
    path: contender.path,
    // A share link without sessions never gets here: only admins delete.
    owner: contender.owner?.sessionId ?? '0x0',
    version: contender.version ?? 0,
    ...(confirmHolder !== undefined ? { confirmHolder } : {}),
  };
  return call(ROUTES.lockDelete, { params: { name: ensemble }, body });
}

/** A dry run lists the leaked contenders; the real run deletes only those it lists (`pinned`), each re-checked by the server. */
export function cleanLeaked(ensemble: string, path: string, dryRun: boolean, pinned?: readonly LockCleanCandidate[]): Promise<LockCleanAnswer> {
  const body = { path, dryRun, ...(pinned ? { pinned: [...pinned] } : {}) };
  return call(ROUTES.lockClean, { params: { name: ensemble }, body });
}
