/**
 * Lock scans kept in the home ensemble (docs/replicas.md), for one watched ensemble:
 *   <root>/ensembles/<ensemble id>/lock-scans/<scan id>   persistent: the scan's state and result (≤ 64 KiB)
 *   <root>/ensembles/<ensemble id>/lock-scans/owner       ephemeral: {replica, name, scanId}, who runs the current one
 * keyed by the ensemble's identity, never its name. At most LOCK_SCANS_KEPT records: the oldest
 * finished are deleted before a new one is made.
 *
 * Every replica follows the directory's children (a scan started elsewhere), the data of each
 * running scan (its progress, about once a second) and the owner znode (its deletion is the
 * runner's session ending: another replica takes over). Each is one watch of the state
 * session's registry, re-armed after a new session. Mirrors sharedUpgrades.ts.
 */
import zookeeper from 'node-zookeeper-client';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  fitScanRecord,
  isScanFinished,
  LOCK_SCAN_ID,
  LOCK_SCANS_KEPT,
  lockScanRecordSchema,
  normalizeSessionId,
  type LockScanRecord,
  type ScanReplica,
  type ZnodeState,
} from '@keeper/shared';
import { ZkError, toZkError } from '../zk/errors.js';
import type { ScanClaim, ScanOwner, ScanWriteOutcome, SharedScanEvents, SharedScans, StoredScan } from '../locks/sharedScans.js';
import { MAX_VALUE_BYTES, type ReplicaStore } from './replicaStore.js';

const OWNER = 'owner';
const ownerSchema = z.object({ replica: z.string().max(64), name: z.string().max(300), scanId: z.string().max(64) });

export class SharedLockScans implements SharedScans {
  private dir: string | null = null;
  private events: SharedScanEvents | null = null;
  private readonly scans = new Map<string, StoredScan>();
  /** Data watches of the running scans, by id. */
  private readonly following = new Map<string, () => void>();
  private readonly stops: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly store: ReplicaStore,
    private readonly who: () => ScanReplica,
    private readonly log: Logger,
  ) {}

  get self(): ScanReplica {
    return this.who();
  }

  private get ownerPath(): string {
    return `${this.requireDir()}/${OWNER}`;
  }

  private pathOf(id: string): string {
    if (!LOCK_SCAN_ID.test(id) || id === OWNER) throw new ZkError('INVALID_PATH', `not a scan id: ${JSON.stringify(id.slice(0, 64))}`);
    return `${this.requireDir()}/${id}`;
  }

  private requireDir(): string {
    if (this.dir === null) throw new Error('shared lock scans: not open yet');
    return this.dir;
  }

  async open(ensembleId: string, events: SharedScanEvents): Promise<StoredScan[]> {
    const dir = this.store.path('ensembles', ensembleId, 'lock-scans');
    await this.store.ensureRoot();
    await this.store.createIfMissing(this.store.path('ensembles'), {});
    await this.store.createIfMissing(this.store.path('ensembles', ensembleId), {});
    await this.store.createIfMissing(dir, {});
    this.dir = dir;
    for (const name of (await this.store.children(dir)).filter(isScanName)) await this.readInto(name);
    this.events = events;
    if (this.closed) return [];
    this.stops.push(
      this.store.gateway.watches.watch(dir, {
        onNode: () => undefined,
        onChildren: ({ names }) => void this.onChildren(names),
        onWatchEvent: () => undefined,
        onError: (error, retrying) => this.log.warn({ err: error, retrying, path: dir }, 'shared lock scans: watching the directory failed'),
      }),
    );
    this.stops.push(
      this.store.gateway.watches.watch(this.ownerPath, {
        onNode: (state) => {
          if (!state.exists) this.events?.ownerGone();
        },
        onChildren: () => undefined,
        onWatchEvent: () => undefined,
        onError: (error, retrying) => this.log.warn({ err: error, retrying }, 'shared lock scans: watching the owner failed'),
      }),
    );
    this.followRunning();
    return [...this.scans.values()];
  }

  close(): void {
    this.closed = true;
    for (const stop of this.stops.splice(0)) stop();
    for (const unwatch of this.following.values()) unwatch();
    this.following.clear();
  }

  list(): LockScanRecord[] {
    return [...this.scans.values()].map((s) => s.scan).sort((a, b) => b.startedAt - a.startedAt);
  }

  async read(id: string): Promise<StoredScan | null> {
    const stored = await this.store.read(this.pathOf(id), lockScanRecordSchema);
    if (!stored) return null;
    return this.remember({ scan: stored.value, version: stored.stat.version });
  }

  async write(scan: LockScanRecord, version: number | null): Promise<ScanWriteOutcome> {
    // A little under the cap: the store's own check counts the same bytes.
    const fitted = fitScanRecord(scan, MAX_VALUE_BYTES - 256);
    const path = this.pathOf(scan.id);
    if (version === null) {
      try {
        await this.store.create(path, fitted);
      } catch (error) {
        if (toZkError(error).code === 'NODE_EXISTS') return { ok: false };
        throw error;
      }
      this.remember({ scan: fitted, version: 0 });
      this.followRunning();
      return { ok: true, version: 0 };
    }
    const outcome = await this.store.compareAndSet(path, fitted, version, lockScanRecordSchema);
    if (!outcome.ok) return { ok: false };
    this.remember({ scan: fitted, version: outcome.stat.version });
    return { ok: true, version: outcome.stat.version };
  }

  async claim(scanId: string): Promise<ScanClaim> {
    const value = { ...this.self, scanId };
    for (let round = 0; round < 3; round++) {
      try {
        await this.store.create(this.ownerPath, value, zookeeper.CreateMode.EPHEMERAL);
      } catch (error) {
        if (toZkError(error).code !== 'NODE_EXISTS') throw error;
      }
      const owner = await this.readOwner();
      if (!owner) continue;
      const ours = owner.session !== null && owner.session === this.mySession();
      if (ours && owner.scanId === scanId) return { won: true, since: owner.since };
      // Held by this session for another scan, or for a scan that has ended (its release was lost): it holds nothing any more.
      // A scan not stored (yet) is held: its replica claims before it creates the record.
      const held = this.scans.get(owner.scanId) ?? (await this.read(owner.scanId).catch(() => null));
      if (ours || (held && isScanFinished(held.scan))) {
        await this.store.remove(this.ownerPath, owner.version);
        continue;
      }
      return { won: false, owner };
    }
    return { won: false, owner: await this.readOwner() };
  }

  async release(scanId: string): Promise<void> {
    const owner = await this.readOwner();
    if (owner && owner.scanId === scanId && owner.session === this.mySession()) await this.store.remove(this.ownerPath, owner.version);
  }

  async prune(): Promise<void> {
    const finished = this.list().filter(isScanFinished);
    const room = LOCK_SCANS_KEPT - 1 - this.list().filter((s) => !isScanFinished(s)).length;
    for (const old of finished.slice(Math.max(0, room))) {
      await this.store.remove(this.pathOf(old.id), -1);
      this.scans.delete(old.id);
    }
  }

  private mySession(): string | null {
    const id = this.store.gateway.session.sessionId;
    return id === null ? null : normalizeSessionId(id);
  }

  private async readOwner(): Promise<(ScanOwner & { session: string | null; version: number }) | null> {
    const stored = await this.store.read(this.ownerPath, ownerSchema);
    if (!stored) return null;
    return {
      ...stored.value,
      since: stored.stat.ctime,
      session: normalizeSessionId(stored.stat.ephemeralOwner) ?? stored.stat.ephemeralOwner,
      version: stored.stat.version,
    };
  }

  /** Keeps the newest version read of each scan. */
  private remember(stored: StoredScan): StoredScan {
    const known = this.scans.get(stored.scan.id);
    if (known && known.version >= stored.version) return known;
    this.scans.set(stored.scan.id, stored);
    return stored;
  }

  private async readInto(id: string): Promise<void> {
    try {
      const before = this.scans.get(id)?.version ?? -1;
      const stored = await this.read(id);
      if (stored && stored.version > before) this.events?.changed(stored);
    } catch (error) {
      this.log.warn({ err: error, scan: id }, 'shared lock scans: a stored scan could not be read; ignored');
    }
  }

  private async onChildren(names: readonly string[]): Promise<void> {
    const present = new Set(names.filter(isScanName));
    for (const id of [...this.scans.keys()]) if (!present.has(id)) this.scans.delete(id);
    for (const id of present) if (!this.scans.has(id)) await this.readInto(id);
    this.followRunning();
  }

  /** One data watch per running scan (one per ensemble at most): its progress from the replica running it. */
  private followRunning(): void {
    if (this.closed || this.events === null) return;
    for (const [id, stored] of this.scans) {
      if (this.following.has(id) || isScanFinished(stored.scan)) continue;
      this.following.set(
        id,
        this.store.gateway.watches.watch(this.pathOf(id), {
          onNode: (state) => this.onScan(id, state),
          onChildren: () => undefined,
          onWatchEvent: () => undefined,
          onError: (error, retrying) => this.log.warn({ err: error, retrying, scan: id }, 'shared lock scans: watching a scan failed'),
        }),
      );
    }
  }

  private onScan(id: string, state: ZnodeState): void {
    if (!state.exists) return;
    const known = this.scans.get(id)?.version ?? -1;
    if (state.stat.version > known) void this.readInto(id).then(() => this.stopFollowingFinished(id));
    else this.stopFollowingFinished(id);
  }

  private stopFollowingFinished(id: string): void {
    const stored = this.scans.get(id);
    if (stored && !isScanFinished(stored.scan)) return;
    this.following.get(id)?.();
    this.following.delete(id);
  }
}

const isScanName = (name: string): boolean => name !== OWNER && LOCK_SCAN_ID.test(name);
