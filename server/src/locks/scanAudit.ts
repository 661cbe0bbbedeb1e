/**
 * What a lock scan itself writes to the audit trail (the admin's start and cancel are audited by
 * the routes): a replica taking the scan over after the previous one's session ended, and the
 * replica running it stopping it at the request of an admin on another replica. Each is written
 * by the replica it happened on (the shared window marks each entry with its replica).
 */
import type { LockScanRecord, ScanHandover } from '@keeper/shared';
import type { AuditInput } from '../audit/auditLog.js';

const KEEPER = { name: 'keeper', role: null, via: 'lockScan' } as const;

const clock = (at: number): string => new Date(at).toISOString().slice(11, 19);

/** "replica b:8080 took over lock scan <id> at 14:02:31 UTC after replica a:8080's session ended; ..." (`at`: ZooKeeper's ctime of its owner znode). */
export function scanHandoverEntry(ensemble: string, scan: LockScanRecord, h: ScanHandover): AuditInput {
  return {
    action: 'lock.scan',
    ensemble,
    path: scan.path,
    actor: KEEPER,
    outcome: 'ok',
    note: `lock scan ${scan.id}: ${h.sentence}`,
    details: { phase: 'handover', scanId: scan.id, at: h.at, from: h.from?.name ?? null, to: h.to.name, reached: h.reached },
  };
}

/** "lock scan <id> cancelled at 14:02:31 UTC at the request of admin on replica b:8080". */
export function scanCancelledEntry(ensemble: string, scan: LockScanRecord): AuditInput {
  const asked = scan.cancelRequest;
  const by = asked ? `at the request of ${asked.by} on replica ${asked.replica.name}` : 'on request';
  return {
    action: 'lock.scan',
    ensemble,
    path: scan.path,
    actor: KEEPER,
    outcome: 'ok',
    note: `lock scan ${scan.id} cancelled at ${clock(scan.finishedAt ?? scan.updatedAt)} UTC ${by}`,
    details: {
      phase: 'cancelled',
      scanId: scan.id,
      requestedBy: asked?.by ?? null,
      requestedOn: asked?.replica.name ?? null,
      requestedAt: asked?.at ?? null,
      stoppedAt: scan.finishedAt,
      visited: scan.visited,
      requests: scan.requests,
    },
  };
}
