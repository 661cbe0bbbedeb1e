/**
 * Lock scans kept in the home ensemble (docs/operating/replicas.md), for one watched ensemble:
 *   <root>/ensembles/<ensemble id>/lock-scans/<scan id>   persistent: the scan's state and result (≤ 64 KiB)
 *   <root>/ensembles/<ensemble id>/lock-scans/owner       ephemeral: {replica, name, scanId}, who runs the current one
 * keyed by the ensemble's identity, never its name. At most LOCK_SCANS_KEPT records: the oldest
 * finished are deleted before a new one is made.
 *
 * The directory, its owner znode and the watches that follow them are sharedRecordDirectory.ts's,
 * shared with upgrades; what is a scan's own is here.
 */
import type { Logger } from 'pino';
import { fitScanRecord, isScanFinished, LOCK_SCAN_ID, LOCK_SCANS_KEPT, lockScanRecordSchema, type LockScanRecord, type ScanReplica } from '@keeper/shared';
import type { SharedScans, StoredScan } from '../locks/sharedScans.js';
import { MAX_VALUE_BYTES, type ReplicaStore } from './replicaStore.js';
import { SharedRecordDirectory, type RecordKind } from './sharedRecordDirectory.js';

const LOCK_SCANS: RecordKind<LockScanRecord, StoredScan, 'scanId'> = {
  directory: 'lock-scans',
  schema: lockScanRecordSchema,
  idPattern: LOCK_SCAN_ID,
  ownerIdKey: 'scanId',
  stored: (scan, version) => ({ scan, version }),
  recordOf: (stored) => stored.scan,
  startedAt: (scan) => scan.startedAt,
  isFinished: (scan) => isScanFinished(scan),
  // A little under the cap: the store's own check counts the same bytes.
  fit: (scan) => fitScanRecord(scan, MAX_VALUE_BYTES - 256),
  // Room for one more: prune() runs before a new scan's record is made.
  finishedKept: (scans) => LOCK_SCANS_KEPT - 1 - scans.filter((s) => !isScanFinished(s)).length,
  // The owner znode may name a scan whose record this replica has not seen yet (its watch lags): read it, and take over if it has ended.
  claimReadsUnseen: true,
  words: { prefix: 'shared lock scans', record: 'scan', logKey: 'scan', anId: 'a scan id' },
};

export class SharedLockScans extends SharedRecordDirectory<LockScanRecord, StoredScan, 'scanId'> implements SharedScans {
  constructor(store: ReplicaStore, who: () => ScanReplica, log: Logger) {
    super(store, who, log, LOCK_SCANS);
  }
}
