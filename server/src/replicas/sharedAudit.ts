/**
 * One audit trail across the replicas (docs/operating/replicas.md): a bounded recent window in the home
 * ensemble, written by every replica, read by any. Each replica still writes its own file (and
 * stdout if asked): that file is the whole record, the window is what the Audit page and
 * `GET /api/audit` show, each entry marked with its replica.
 *
 * Why a window rather than asking the peers: a dead replica cannot answer, and "nothing is lost
 * when a replica dies after answering done" needs each entry stored somewhere that outlives it
 * before the answer. So `add` resolves once the entry's batch is created in the home ensemble,
 * and the routes await it before they answer.
 *
 * Layout: `<root>/audit/b<entries>-<KiB>-<10-digit sequence>`, persistent sequential, each
 * `{replica, name, entries}` of at most 64 KiB and 1,000 entries: everything appended within
 * 20 ms goes in one create (group commit). The name carries the batch's entry count and size, so
 * pruning needs one listing, no reads: past `maxEntries` entries or 16 MiB, the oldest batches go.
 * The shared order of an entry is its batch's sequence × 1,024 + its index: `seq` in answers.
 *
 * While the home ensemble cannot take a batch, entries wait in memory (at most 10,000, the
 * oldest dropped past it, each said in the log) and are written when it can; `add` stops waiting
 * after 10 s (the entry is in the replica's file, the window gets it later).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import zookeeper from 'node-zookeeper-client';
import type { Logger } from 'pino';
import { z } from 'zod';
import { auditEntrySchema, backoffDelay, type AuditEntry, type AuditPage, type Backoff } from '@keeper/shared';
import { toZkError } from '../zk/errors.js';
import { DEFAULT_AUDIT_WINDOW } from '../config/replicasConfig.js';
import { MAX_VALUE_BYTES, type ReplicaStore } from './replicaStore.js';

/** The window's byte cap, whatever its entry count. */
export const AUDIT_WINDOW_BYTES = 16 * 1024 * 1024;
const MAX_BATCH_ENTRIES = 1_000;
const ORDER_STRIDE = 1_024;
const GROUP_COMMIT_MS = 20;
/** Room for the batch's own fields around the entries. */
const BATCH_BYTES = MAX_VALUE_BYTES - 512;
const MAX_WAITING = 10_000;
const ADD_WAIT_MS = 10_000;
/** A replica that writes lists the window at least this often (the others' batches are not in its count). */
const PRUNE_EVERY_MS = 5_000;
/** ...and as soon as its count passes the bound by this share: each listing is the whole window's names. */
const PRUNE_SLACK = 1.1;
/** Batches kept in memory for reading (they never change once made). */
const CACHE_BYTES = 4 * 1024 * 1024;
const READ_AT_ONCE = 8;
const RETRY: Backoff = { baseMs: 200, capMs: 5_000, jitter: [0.5, 1] };

const batchSchema = z.object({ replica: z.string().max(64), name: z.string().max(300), entries: z.array(auditEntrySchema).max(MAX_BATCH_ENTRIES) });
type Batch = z.infer<typeof batchSchema>;

interface BatchName {
  name: string;
  entries: number;
  kib: number;
  seq: number;
}

/** `b12-3-0000000042`: 12 entries, 3 KiB, the 42nd child made under the directory. */
export function parseBatchName(name: string): BatchName | null {
  const m = /^b(\d{1,4})-(\d{1,3})-(\d{10})$/.exec(name);
  return m ? { name, entries: Number(m[1]), kib: Number(m[2]), seq: Number(m[3]) } : null;
}

/** The oldest batches to delete so that the newest stay within `maxEntries` and `maxBytes`. */
export function batchesPastWindow(names: readonly string[], maxEntries: number, maxBytes: number): string[] {
  const batches = names
    .map(parseBatchName)
    .filter((b): b is BatchName => b !== null)
    .sort((a, b) => b.seq - a.seq);
  let entries = 0;
  let bytes = 0;
  const past: string[] = [];
  for (const b of batches) {
    entries += b.entries;
    bytes += b.kib * 1024;
    if (entries > maxEntries || bytes > maxBytes) past.push(b.name);
  }
  return past;
}

interface Waiting {
  entry: AuditEntry;
  bytes: number;
  stored: (ok: boolean) => void;
}

export class SharedAudit {
  readonly maxEntries: number;
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing = false;
  private lastPrune = 0;
  private pruning = false;
  /** The window's size as this replica knows it: its last listing plus its own batches since (null: not listed yet). */
  private size: { entries: number; bytes: number } | null = null;
  private closed = false;
  private readonly cache = new Map<string, { batch: Batch; bytes: number }>();
  private cacheBytes = 0;

  constructor(
    private readonly store: ReplicaStore,
    private readonly who: () => { replica: string; name: string },
    private readonly log: Logger,
    maxEntries = DEFAULT_AUDIT_WINDOW,
  ) {
    this.maxEntries = maxEntries;
  }

  private get dir(): string {
    return this.store.path('audit');
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.waiting.splice(0)) w.stored(false);
  }

  /** Adds the entry to the window; true once its batch is stored, false if that took over 10 s (it is written later). */
  add(entry: AuditEntry): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const bytes = Buffer.byteLength(JSON.stringify(entry));
    const stored = new Promise<boolean>((resolve) => {
      this.waiting.push({ entry, bytes, stored: resolve });
      if (this.waiting.length > MAX_WAITING) {
        const dropped = this.waiting.shift()!;
        this.log.error(
          { seq: dropped.entry.seq, action: dropped.entry.action },
          'audit: the shared window cannot be written; an entry waiting for it was dropped (it is in this replica’s file)',
        );
        dropped.stored(false);
      }
    });
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, GROUP_COMMIT_MS);
    return Promise.race([stored, sleep(ADD_WAIT_MS, false, { ref: false })]);
  }

  /** A page of the window, newest first; `before` is a shared order (`seq` of an answer). */
  async page({ limit, before }: { limit: number; before?: number }): Promise<AuditPage> {
    const batches = (await this.store.children(this.dir))
      .map(parseBatchName)
      .filter((b): b is BatchName => b !== null && (before === undefined || b.seq * ORDER_STRIDE < before))
      .sort((a, b) => b.seq - a.seq);
    const out: AuditEntry[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < batches.length && out.length < limit; i += READ_AT_ONCE) {
      const chunk = batches.slice(i, i + READ_AT_ONCE);
      const read = await Promise.all(chunk.map((b) => this.readBatch(b.name)));
      chunk.forEach((b, j) => {
        const batch = read[j];
        if (!batch) return;
        for (let k = batch.entries.length - 1; k >= 0 && out.length < limit; k--) {
          const entry = batch.entries[k]!;
          const seq = b.seq * ORDER_STRIDE + k;
          // A batch sent again after a lost reply holds the same entries: shown once.
          const key = `${batch.replica} ${entry.seq}`;
          if ((before !== undefined && seq >= before) || seen.has(key)) continue;
          seen.add(key);
          out.push({ ...entry, seq, replica: { id: batch.replica, name: batch.name, seq: entry.seq } });
        }
      });
    }
    const last = out.at(-1);
    return {
      entries: out,
      ...(out.length === limit && last ? { next: last.seq } : {}),
      shared: {
        maxEntries: this.maxEntries,
        maxBytes: AUDIT_WINDOW_BYTES,
        note: `Every replica's newest entries, kept in the home ensemble (at most ${this.maxEntries.toLocaleString('en-US')} entries, 16 MiB); older ones are in each replica's own audit file.`,
      },
    };
  }

  private async readBatch(name: string): Promise<Batch | null> {
    const cached = this.cache.get(name);
    if (cached) return cached.batch;
    const stored = await this.store.read(`${this.dir}/${name}`, batchSchema).catch((error: unknown) => {
      this.log.warn({ err: error, name }, 'audit: a batch of the shared window could not be read');
      return null;
    });
    if (!stored) return null;
    const bytes = stored.stat.dataLength;
    this.cache.set(name, { batch: stored.value, bytes });
    this.cacheBytes += bytes;
    for (const [key, value] of this.cache) {
      if (this.cacheBytes <= CACHE_BYTES) break;
      this.cache.delete(key);
      this.cacheBytes -= value.bytes;
    }
    return stored.value;
  }

  /** Writes what waits, a batch at a time, until nothing does (or the home ensemble stops taking them: tried again with backoff). */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (let attempt = 0; this.waiting.length > 0 && !this.closed;) {
        const batch = this.nextBatch();
        try {
          await this.createBatch(batch);
          attempt = 0;
          for (const w of batch) w.stored(true);
          const written = new Set(batch);
          this.waiting = this.waiting.filter((w) => !written.has(w));
          if (this.size) {
            this.size.entries += batch.length;
            this.size.bytes += batch.reduce((sum, w) => sum + w.bytes, 0);
          }
          void this.pruneNow();
        } catch (error) {
          if (attempt === 0 || attempt % 10 === 0)
            this.log.warn({ err: error, entries: this.waiting.length }, 'audit: the shared window could not be written yet; retrying');
          await sleep(backoffDelay(attempt++, RETRY));
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** The oldest waiting entries that fit one value. */
  private nextBatch(): Waiting[] {
    const batch: Waiting[] = [];
    let bytes = 0;
    for (const w of this.waiting) {
      if (batch.length > 0 && (bytes + w.bytes + 1 > BATCH_BYTES || batch.length >= MAX_BATCH_ENTRIES)) break;
      batch.push(w);
      bytes += w.bytes + 1;
    }
    return batch;
  }

  private async createBatch(batch: Waiting[]): Promise<void> {
    const self = this.who();
    const value: Batch = { replica: self.replica, name: self.name, entries: batch.map((w) => w.entry) };
    const kib = Math.ceil(Buffer.byteLength(JSON.stringify(value)) / 1024);
    const prefix = `${this.dir}/b${batch.length}-${kib}-`;
    try {
      await this.store.create(prefix, value, zookeeper.CreateMode.PERSISTENT_SEQUENTIAL);
    } catch (error) {
      const code = toZkError(error).code;
      if (code === 'NO_NODE') {
        // The directory is not there yet (the first batch ever, or the root was reset).
        await this.store.ensureRoot();
        await this.store.createIfMissing(this.dir, {});
        await this.store.create(prefix, value, zookeeper.CreateMode.PERSISTENT_SEQUENTIAL);
      } else if (code === 'OUTCOME_UNKNOWN') {
        // A lost reply to a sequential create cannot be read back: once more (pages show an entry once).
        await this.store.create(prefix, value, zookeeper.CreateMode.PERSISTENT_SEQUENTIAL);
      } else throw error;
    }
  }

  private async pruneNow(): Promise<void> {
    const over = this.size === null || this.size.entries > this.maxEntries * PRUNE_SLACK || this.size.bytes > AUDIT_WINDOW_BYTES * PRUNE_SLACK;
    if (this.pruning || (!over && Date.now() - this.lastPrune < PRUNE_EVERY_MS)) return;
    this.lastPrune = Date.now();
    this.pruning = true;
    try {
      const names = await this.store.children(this.dir);
      const past = batchesPastWindow(names, this.maxEntries, AUDIT_WINDOW_BYTES);
      const gone = new Set(past);
      const kept = names.map(parseBatchName).filter((b): b is BatchName => b !== null && !gone.has(b.name));
      this.size = { entries: kept.reduce((n, b) => n + b.entries, 0), bytes: kept.reduce((n, b) => n + b.kib * 1024, 0) };
      for (const name of past) {
        await this.store.remove(`${this.dir}/${name}`, -1);
        const cached = this.cache.get(name);
        if (cached) {
          this.cache.delete(name);
          this.cacheBytes -= cached.bytes;
        }
      }
    } catch (error) {
      this.log.warn({ err: error }, 'audit: the shared window was not pruned this time');
    } finally {
      this.pruning = false;
    }
  }
}
