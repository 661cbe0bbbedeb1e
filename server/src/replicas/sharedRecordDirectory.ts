/**
 * One directory of records in the home ensemble that one replica at a time runs (docs/operating/replicas.md),
 * for one watched ensemble:
 *   <root>/ensembles/<ensemble id>/<directory>/<record id>   persistent: the record (≤ 64 KiB)
 *   <root>/ensembles/<ensemble id>/<directory>/owner         ephemeral: {replica, name, <owner id key>}, who runs the current one
 * keyed by the ensemble's identity, never its name.
 *
 * Upgrade workflows (sharedUpgrades.ts) and lock scans (sharedLockScans.ts) are kept the same way;
 * this is that way written once, so that a fix to the hand-over (the claim, the owner's watch, the
 * compare-and-set, the re-read of a record another replica writes) reaches both. What differs
 * between them is a `RecordKind`.
 *
 * Every replica follows the directory's children (a record made on another replica), the data of
 * each unfinished record (its progress, written by the replica that runs it) and the owner znode
 * (its deletion is the runner's session ending: another replica takes over). Each is one watch of
 * the state session's registry, re-armed after a new session.
 */
import zookeeper from 'node-zookeeper-client';
import type { Logger } from 'pino';
import { z } from 'zod';
import { normalizeSessionId, type ZnodeState } from '@keeper/shared';
import { ZkError, toZkError } from '../zk/errors.js';
import type { ReplicaStore } from './replicaStore.js';

const OWNER = 'owner';

/** A replica as the owner znode names it. */
export interface RecordReplica {
  replica: string;
  name: string;
}

/** The owner znode as read: the replica, the record it runs under `K`, its ctime and its session. */
export type RecordOwner<K extends string> = RecordReplica & Record<K, string> & { since: number; session: string; version: number };

export type RecordClaim<K extends string> = { won: true; since: number } | { won: false; owner: RecordOwner<K> | null };

export type RecordWriteOutcome = { ok: true; version: number } | { ok: false };

export interface RecordEvents<S> {
  /** A record as stored now (written by any replica, this one included; compare the version). */
  changed(stored: S): void;
  /** The owner znode is gone: the replica running the current record ended its session (or released it). */
  ownerGone(): void;
}

/** What one kind of record brings: its directory, schema, names and bounds. `S` is the record with its znode version. */
export interface RecordKind<T extends { id: string }, S extends { version: number }, K extends string> {
  directory: string;
  schema: z.core.$ZodType<T>;
  /** A record's znode name (the owner's never is one). */
  idPattern: RegExp;
  /** The owner znode's field naming the record it runs (stored as is: docs/operating/replicas.md shows it). */
  ownerIdKey: K;
  stored(record: T, version: number): S;
  recordOf(stored: S): T;
  /** Newest first in list(). */
  startedAt(record: T): number;
  isFinished(record: T): boolean;
  /** Fits the record under the value cap (or throws). */
  fit(record: T): T;
  /** How many of the finished records prune() keeps, given all the records read. */
  finishedKept(records: readonly T[]): number;
  /**
   * Whether claim() reads a record that the owner znode names but this replica has not seen yet, to
   * find it finished (lock scans: a scan's record may reach this replica after its owner znode).
   */
  claimReadsUnseen: boolean;
  /** For log lines and errors: 'shared upgrades', 'workflow', the log field 'upgrade', 'an upgrade id'. */
  words: { prefix: string; record: string; logKey: string; anId: string };
}

export class SharedRecordDirectory<T extends { id: string }, S extends { version: number }, K extends string> {
  private dir: string | null = null;
  private events: RecordEvents<S> | null = null;
  private readonly records = new Map<string, S>();
  /** Data watches of the unfinished records, by id. */
  private readonly following = new Map<string, () => void>();
  private readonly stops: (() => void)[] = [];
  private closed = false;
  private readonly ownerSchema: z.core.$ZodType<RecordReplica & Record<K, string>>;

  constructor(
    protected readonly store: ReplicaStore,
    /** This replica (its name is known once it serves). */
    private readonly who: () => RecordReplica,
    private readonly log: Logger,
    private readonly kind: RecordKind<T, S, K>,
  ) {
    const idShape = { [kind.ownerIdKey]: z.string().max(64) } as Record<K, z.ZodString>;
    this.ownerSchema = z.object({ replica: z.string().max(64), name: z.string().max(300) }).extend(idShape) as unknown as z.core.$ZodType<
      RecordReplica & Record<K, string>
    >;
  }

  get self(): RecordReplica {
    return this.who();
  }

  protected get isOpen(): boolean {
    return this.dir !== null;
  }

  private get ownerPath(): string {
    return `${this.requireDir()}/${OWNER}`;
  }

  protected pathOf(id: string): string {
    if (!this.isRecordName(id)) throw new ZkError('INVALID_PATH', `not ${this.kind.words.anId}: ${JSON.stringify(id.slice(0, 64))}`);
    return `${this.requireDir()}/${id}`;
  }

  private requireDir(): string {
    if (this.dir === null) throw new Error(`${this.kind.words.prefix}: not open yet`);
    return this.dir;
  }

  private isRecordName(name: string): boolean {
    return name !== OWNER && this.kind.idPattern.test(name);
  }

  async open(ensembleId: string, events: RecordEvents<S>): Promise<S[]> {
    const dir = this.store.path('ensembles', ensembleId, this.kind.directory);
    await this.store.ensureRoot();
    await this.store.createIfMissing(this.store.path('ensembles'), {});
    await this.store.createIfMissing(this.store.path('ensembles', ensembleId), {});
    await this.store.createIfMissing(dir, {});
    this.dir = dir;
    for (const name of (await this.store.children(dir)).filter((n) => this.isRecordName(n))) await this.readInto(name);
    this.events = events;
    if (this.closed) return [];
    const { prefix } = this.kind.words;
    this.stops.push(
      this.store.gateway.watches.watch(dir, {
        onNode: () => undefined,
        onChildren: ({ names }) => void this.onChildren(names),
        onWatchEvent: () => undefined,
        onError: (error, retrying) => this.log.warn({ err: error, retrying, path: dir }, `${prefix}: watching the directory failed`),
      }),
    );
    this.stops.push(
      this.store.gateway.watches.watch(this.ownerPath, {
        onNode: (state) => {
          if (!state.exists) this.events?.ownerGone();
        },
        onChildren: () => undefined,
        onWatchEvent: () => undefined,
        onError: (error, retrying) => this.log.warn({ err: error, retrying }, `${prefix}: watching the owner failed`),
      }),
    );
    this.followUnfinished();
    return [...this.records.values()];
  }

  close(): void {
    this.closed = true;
    for (const stop of this.stops.splice(0)) stop();
    for (const unwatch of this.following.values()) unwatch();
    this.following.clear();
  }

  /** The records read so far, newest first. */
  list(): T[] {
    return [...this.records.values()].map((s) => this.kind.recordOf(s)).sort((a, b) => this.kind.startedAt(b) - this.kind.startedAt(a));
  }

  get(id: string): T | null {
    const stored = this.records.get(id);
    return stored ? this.kind.recordOf(stored) : null;
  }

  async read(id: string): Promise<S | null> {
    const stored = await this.store.read(this.pathOf(id), this.kind.schema);
    if (!stored) return null;
    return this.remember(this.kind.stored(stored.value, stored.stat.version));
  }

  /** Creates (version null) or compare-and-sets the record, fitted; `ok: false` when another replica wrote first. */
  async write(record: T, version: number | null): Promise<RecordWriteOutcome> {
    const fitted = this.kind.fit(record);
    const path = this.pathOf(record.id);
    if (version === null) {
      try {
        await this.store.create(path, fitted);
      } catch (error) {
        if (toZkError(error).code === 'NODE_EXISTS') return { ok: false };
        throw error;
      }
      this.remember(this.kind.stored(fitted, 0));
      this.followUnfinished();
      return { ok: true, version: 0 };
    }
    const outcome = await this.store.compareAndSet(path, fitted, version, this.kind.schema);
    if (!outcome.ok) return { ok: false };
    this.remember(this.kind.stored(fitted, outcome.stat.version));
    return { ok: true, version: outcome.stat.version };
  }

  /** Takes the ownership for `id` with an ephemeral znode of this replica's state session. */
  async claim(id: string): Promise<RecordClaim<K>> {
    const value = { ...this.self, [this.kind.ownerIdKey]: id };
    for (let round = 0; round < 3; round++) {
      try {
        await this.store.create(this.ownerPath, value, zookeeper.CreateMode.EPHEMERAL);
      } catch (error) {
        if (toZkError(error).code !== 'NODE_EXISTS') throw error;
      }
      const owner = await this.readOwner();
      if (!owner) continue;
      const ownerId = owner[this.kind.ownerIdKey];
      const ours = owner.session === this.mySession() && owner.session !== null;
      if (ours && ownerId === id) return { won: true, since: owner.since };
      // Held by this session for another record, or for one that has ended (its release was lost): it holds nothing any more.
      // A record not stored (yet) is held: its replica may claim before it creates the record.
      const held = this.records.get(ownerId) ?? (this.kind.claimReadsUnseen ? await this.read(ownerId).catch(() => null) : undefined);
      if (ours || (held && this.kind.isFinished(this.kind.recordOf(held)))) {
        await this.store.remove(this.ownerPath, owner.version);
        continue;
      }
      return { won: false, owner };
    }
    return { won: false, owner: await this.readOwner() };
  }

  /** True while this replica's current state session holds the ownership for `id`. */
  async owns(id: string): Promise<boolean> {
    const owner = await this.readOwner();
    return owner !== null && owner[this.kind.ownerIdKey] === id && owner.session === this.mySession();
  }

  /** Gives the ownership up (the record's run ended). */
  async release(id: string): Promise<void> {
    const owner = await this.readOwner();
    if (owner && owner[this.kind.ownerIdKey] === id && owner.session === this.mySession()) await this.store.remove(this.ownerPath, owner.version);
  }

  /** Drops the oldest finished records past the kind's bound. */
  async prune(): Promise<void> {
    const all = this.list();
    const finished = all.filter((r) => this.kind.isFinished(r));
    for (const old of finished.slice(Math.max(0, this.kind.finishedKept(all)))) {
      await this.store.remove(this.pathOf(old.id), -1);
      this.records.delete(old.id);
    }
  }

  private mySession(): string | null {
    const id = this.store.gateway.session.sessionId;
    return id === null ? null : normalizeSessionId(id);
  }

  protected async readOwner(): Promise<RecordOwner<K> | null> {
    const stored = await this.store.read(this.ownerPath, this.ownerSchema);
    if (!stored) return null;
    return {
      ...stored.value,
      since: stored.stat.ctime,
      session: normalizeSessionId(stored.stat.ephemeralOwner) ?? stored.stat.ephemeralOwner,
      version: stored.stat.version,
    };
  }

  /** Keeps the newest version read of each record. */
  protected remember(stored: S): S {
    const id = this.kind.recordOf(stored).id;
    const known = this.records.get(id);
    if (known && known.version >= stored.version) return known;
    this.records.set(id, stored);
    return stored;
  }

  private async readInto(id: string): Promise<void> {
    try {
      const before = this.records.get(id)?.version ?? -1;
      const stored = await this.read(id);
      if (stored && stored.version > before) this.events?.changed(stored);
    } catch (error) {
      this.log.warn({ err: error, [this.kind.words.logKey]: id }, `${this.kind.words.prefix}: a stored ${this.kind.words.record} could not be read; ignored`);
    }
  }

  private async onChildren(names: readonly string[]): Promise<void> {
    const present = new Set(names.filter((n) => this.isRecordName(n)));
    for (const id of [...this.records.keys()]) if (!present.has(id)) this.records.delete(id);
    for (const id of present) if (!this.records.has(id)) await this.readInto(id);
    this.followUnfinished();
  }

  /** One data watch per unfinished record (the current one, in practice): its progress from the replica running it. */
  private followUnfinished(): void {
    if (this.closed || this.events === null) return;
    const { prefix, record, logKey } = this.kind.words;
    for (const [id, stored] of this.records) {
      if (this.following.has(id) || this.kind.isFinished(this.kind.recordOf(stored))) continue;
      this.following.set(
        id,
        this.store.gateway.watches.watch(this.pathOf(id), {
          onNode: (state) => this.onRecord(id, state),
          onChildren: () => undefined,
          onWatchEvent: () => undefined,
          onError: (error, retrying) => this.log.warn({ err: error, retrying, [logKey]: id }, `${prefix}: watching a ${record} failed`),
        }),
      );
    }
  }

  private onRecord(id: string, state: ZnodeState): void {
    if (!state.exists) return;
    const known = this.records.get(id)?.version ?? -1;
    if (state.stat.version > known) {
      // Read again rather than decode the watch's copy: a long record may come truncated there.
      void this.readInto(id).then(() => this.stopFollowingFinished(id));
    } else this.stopFollowingFinished(id);
  }

  private stopFollowingFinished(id: string): void {
    const stored = this.records.get(id);
    if (stored && !this.kind.isFinished(this.kind.recordOf(stored))) return;
    this.following.get(id)?.();
    this.following.delete(id);
  }
}
