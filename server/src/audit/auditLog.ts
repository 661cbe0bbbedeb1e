/**
 * The audit trail: one JSON line per event (mutations, refusals, sign-ins, share links) in
 * `audit.jsonl` in the state directory. `append` resolves only once the line is on disk
 * (write, then fdatasync); appends that arrive together share one fdatasync (group commit),
 * so a busy console does not pay one disk flush per entry.
 *
 * Bounded: each entry's fields are capped (auditBounds.ts), and past `maxFileBytes` the file is
 * rotated (audit.jsonl -> audit.1.jsonl -> ... -> audit.<keepFiles>.jsonl, the oldest dropped),
 * so the trail never holds more than about (keepFiles + 1) x maxFileBytes.
 *
 * With `echo` (config `"audit": {"stdout": true}`), each entry also goes out as a JSON line beside
 * the logs once it is durable, so a log shipper collects the trail too; the file stays the record.
 */
import fs from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { auditEntrySchema, type AuditEntry, type AuditPage } from '@keeper/shared';
import { ensureStateDir } from '../config/stateFiles.js';
import { boundAuditInput, type AuditInput } from './auditBounds.js';
import { reverseLines } from './reverseLines.js';

export type { AuditInput } from './auditBounds.js';

export const AUDIT_FILE = 'audit.jsonl';

export interface AuditRotation {
  /** Rotate once the current file reaches this size. */
  maxFileBytes: number;
  /** Rotated files kept besides the current one. */
  keepFiles: number;
}

export const DEFAULT_AUDIT_ROTATION: AuditRotation = { maxFileBytes: 10 * 1024 * 1024, keepFiles: 4 };

/**
 * With replicas: the shared recent window of every replica's entries (replicas/sharedAudit.ts).
 * `add` resolves once the entry is stored there (false: not within its wait, written later).
 */
export interface AuditShare {
  add(entry: AuditEntry): Promise<boolean>;
  page(query: { limit: number; before?: number }): Promise<AuditPage>;
}

/** Where entries are echoed as they are recorded (stdout through the logger), if anywhere. */
export type AuditEcho = (entry: AuditEntry) => void;

/** audit.jsonl, audit.1.jsonl, audit.2.jsonl, ... (0 is the current file). */
export function auditFileName(index: number): string {
  return index === 0 ? AUDIT_FILE : AUDIT_FILE.replace(/\.jsonl$/, `.${index}.jsonl`);
}

async function newestSeq(handle: FileHandle, size: number): Promise<number | null> {
  for await (const line of reverseLines(handle, size)) {
    // The last complete entry numbers the next; a torn last line (crash mid-write) is skipped.
    try {
      return auditEntrySchema.parse(JSON.parse(line)).seq;
    } catch {
      continue;
    }
  }
  return null;
}

interface Pending {
  line: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class AuditLog {
  private pending: Pending[] = [];
  private flushing = false;
  /** The development mode keeps entries in memory only. */
  private readonly memory: AuditEntry[] = [];
  private shared: AuditShare | null = null;

  private constructor(
    private readonly dir: string | null,
    private handle: FileHandle | null,
    private seq: number,
    private size: number,
    private readonly rotation: AuditRotation,
    private readonly log: Logger,
    private readonly echo: AuditEcho | null,
  ) {}

  static async open(stateDir: string | null, log: Logger, rotation: AuditRotation = DEFAULT_AUDIT_ROTATION, echo: AuditEcho | null = null): Promise<AuditLog> {
    if (stateDir === null) return new AuditLog(null, null, 0, 0, rotation, log, echo);
    ensureStateDir(stateDir);
    const handle = await open(path.join(stateDir, AUDIT_FILE), 'a+', 0o600);
    let size = (await handle.stat()).size;
    if (size > 0) {
      // A crash mid-write can leave a torn last line: end it, so the next entry starts on its own line.
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) {
        await handle.appendFile('\n');
        size++;
      }
    }
    let seq = await newestSeq(handle, size);
    if (seq === null) {
      // Just rotated (or new): the newest entry is in the last rotated file, if any.
      const previous = await open(path.join(stateDir, auditFileName(1)), 'r').catch(() => null);
      if (previous) {
        try {
          seq = await newestSeq(previous, (await previous.stat()).size);
        } finally {
          await previous.close();
        }
      }
    }
    return new AuditLog(stateDir, handle, seq ?? 0, size, rotation, log, echo);
  }

  /** From now on every entry also goes to the replicas' shared window, and pages are read from it. */
  share(shared: AuditShare): void {
    this.shared = shared;
  }

  /**
   * Records an entry; resolves when it is durable: in this replica's file, and with replicas in the
   * shared window too (so an answer sent after it loses nothing when this replica dies). Secrets
   * never get here: callers pass fingerprints.
   */
  async append(input: AuditInput): Promise<AuditEntry> {
    const entry: AuditEntry = { seq: ++this.seq, at: Date.now(), ...boundAuditInput(input) };
    if (!this.handle) {
      this.memory.push(entry);
      if (this.memory.length > 10_000) this.memory.shift();
    } else {
      await new Promise<void>((resolve, reject) => {
        this.pending.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
        void this.flush();
      });
    }
    this.echo?.(entry);
    if (this.shared && !(await this.shared.add(entry)))
      this.log.warn(
        { seq: entry.seq, action: entry.action },
        'audit entry not yet in the shared window (the home ensemble did not take it in time): it is written when it can be',
      );
    return entry;
  }

  /** A page of the trail, newest first: this Keeper's own, or with replicas the shared window of all of them. */
  async page({ limit, before }: { limit: number; before?: number }): Promise<AuditPage> {
    if (this.shared) return this.shared.page({ limit, ...(before !== undefined ? { before } : {}) });
    const entries = await this.list({ limit, ...(before !== undefined ? { before } : {}) });
    const last = entries.at(-1);
    // `next` pages on: pass it as `before` (absent when this page reached the beginning).
    return { entries, ...(entries.length === limit && last ? { next: last.seq } : {}) };
  }

  /** Newest first; `before` is a seq (exclusive). */
  async list({ limit, before }: { limit: number; before?: number }): Promise<AuditEntry[]> {
    const out: AuditEntry[] = [];
    const wanted = (e: AuditEntry) => before === undefined || e.seq < before;
    if (!this.dir) {
      for (let i = this.memory.length - 1; i >= 0 && out.length < limit; i--) if (wanted(this.memory[i]!)) out.push(this.memory[i]!);
      return out;
    }
    // Newest first through the current file, then the rotated ones. Entries only ever go down
    // in seq, which also skips any seen twice if a rotation happens while this reads.
    let lastSeq = Number.POSITIVE_INFINITY;
    for (let index = 0; index <= this.rotation.keepFiles && out.length < limit; index++) {
      const handle = await open(path.join(this.dir, auditFileName(index)), 'r').catch(() => null);
      if (!handle) continue;
      try {
        const size = (await handle.stat()).size;
        for await (const line of reverseLines(handle, size)) {
          let entry: AuditEntry;
          try {
            entry = auditEntrySchema.parse(JSON.parse(line));
          } catch {
            continue;
          }
          if (entry.seq >= lastSeq) continue;
          lastSeq = entry.seq;
          if (wanted(entry)) out.push(entry);
          if (out.length >= limit) break;
        }
      } finally {
        await handle.close();
      }
    }
    return out;
  }

  async close(): Promise<void> {
    while (this.flushing || this.pending.length > 0) await new Promise((r) => setTimeout(r, 5));
    await this.handle?.close();
    this.handle = null;
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.pending.length > 0 && this.handle) {
        const batch = this.pending;
        this.pending = [];
        const text = batch.map((p) => p.line).join('');
        try {
          await this.handle.appendFile(text);
          await this.handle.datasync();
          this.size += Buffer.byteLength(text);
          for (const p of batch) p.resolve();
        } catch (error) {
          this.log.error({ err: error, dir: this.dir }, 'audit trail write failed');
          for (const p of batch) p.reject(error as Error);
        }
        if (this.size >= this.rotation.maxFileBytes) await this.rotate();
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Shifts audit.jsonl to audit.1.jsonl (and so on, dropping the oldest) and starts a new file. */
  private async rotate(): Promise<void> {
    if (!this.dir || !this.handle) return;
    const dir = this.dir;
    try {
      await this.handle.close();
      this.handle = null;
      const at = (i: number) => path.join(dir, auditFileName(i));
      await fs.promises.rm(at(this.rotation.keepFiles), { force: true });
      for (let i = this.rotation.keepFiles - 1; i >= 0; i--) {
        await fs.promises.rename(at(i), at(i + 1)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
      }
      this.log.info({ dir, maxFileBytes: this.rotation.maxFileBytes, keepFiles: this.rotation.keepFiles }, 'audit trail rotated');
    } catch (error) {
      this.log.error({ err: error, dir }, 'audit trail rotation failed; going on in the current file');
    } finally {
      this.handle = await open(path.join(dir, AUDIT_FILE), 'a+', 0o600);
      this.size = (await this.handle.stat()).size;
    }
  }
}

/** For tests and tools: every entry in file order. */
export function readAuditFile(stateDir: string): AuditEntry[] {
  const file = path.join(stateDir, AUDIT_FILE);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => auditEntrySchema.parse(JSON.parse(l)));
}
