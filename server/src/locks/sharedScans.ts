/**
 * What lock scans need when several Keeper replicas share their state (docs/operating/replicas.md): the
 * replicas' store implements it (replicas/sharedLockScans.ts); a single Keeper keeps its last
 * scans in memory instead and needs none of this.
 *
 * One scan runs at a time per ensemble, across replicas: the one whose replica's state session
 * holds the ephemeral owner znode. Every write of a scan's record is compare-and-set at the
 * version its runner last wrote, so a replica that lost the scan (its session ended and another
 * took over) stores nothing more of it.
 */
import type { LockScanRecord, ScanReplica } from '@keeper/shared';

export interface StoredScan {
  scan: LockScanRecord;
  /** The znode's version: the next compare-and-set names it. */
  version: number;
}

/** Who runs an ensemble's scan, as its owner znode says. */
export interface ScanOwner extends ScanReplica {
  scanId: string;
  /** ZooKeeper's time of the owner znode (its ctime). */
  since: number;
}

export type ScanClaim = { won: true; since: number } | { won: false; owner: ScanOwner | null };

export type ScanWriteOutcome = { ok: true; version: number } | { ok: false };

export interface SharedScanEvents {
  /** A scan as stored now by another replica (or read again). */
  changed(stored: StoredScan): void;
  /** The owner znode is gone: the replica running a scan ended its session (or released it). */
  ownerGone(): void;
}

export interface SharedScans {
  readonly self: ScanReplica;
  /** Reads the ensemble's stored scans (keyed by its identity) and follows them from now on. */
  open(ensembleId: string, events: SharedScanEvents): Promise<StoredScan[]>;
  read(id: string): Promise<StoredScan | null>;
  /** The scan as last read or written here (no request). */
  get(id: string): LockScanRecord | null;
  /** Creates (version null) or compare-and-sets the record (fitted under the value cap); `ok: false` when another replica wrote first. */
  write(scan: LockScanRecord, version: number | null): Promise<ScanWriteOutcome>;
  /** Takes the ensemble's scan ownership for `scanId` with an ephemeral znode of this replica's state session. */
  claim(scanId: string): Promise<ScanClaim>;
  /** Gives the ownership up (the scan ended). */
  release(scanId: string): Promise<void>;
  /** The scans read so far, newest first. */
  list(): LockScanRecord[];
  /** Drops the oldest finished scans so that one more fits under the bound. */
  prune(): Promise<void>;
  close(): void;
}
