/**
 * The audit trail: one JSON line per event (mutations, refusals, sign-ins, share links) in
 * `audit.jsonl` in the state directory. `append` resolves only once the line is on disk
 * (write, then fdatasync); appends that arrive together share one fdatasync (group commit),
 * so a busy console does not pay one disk flush per entry.
 */
import fs from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { auditEntrySchema, type AuditEntry } from '@keeper/shared';
import { ensureStateDir } from '../auth/stateFiles.js';
import { reverseLines } from './reverseLines.js';

export const AUDIT_FILE = 'audit.jsonl';
export const MAX_AUDIT_PAGE = 1_000;

export type AuditInput = Omit<AuditEntry, 'seq' | 'at'>;

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

  private constructor(
    private readonly file: string | null,
    private handle: FileHandle | null,
    private seq: number,
    private readonly log: Logger,
  ) {}

  static async open(stateDir: string | null, log: Logger): Promise<AuditLog> {
    if (stateDir === null) return new AuditLog(null, null, 0, log);
    ensureStateDir(stateDir);
    const file = path.join(stateDir, AUDIT_FILE);
    const handle = await open(file, 'a+', 0o600);
    const size = (await handle.stat()).size;
    if (size > 0) {
      // A crash mid-write can leave a torn last line: end it, so the next entry starts on its own line.
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await handle.appendFile('\n');
    }
    let seq = 0;
    for await (const line of reverseLines(handle, size)) {
      // The last complete entry numbers the next; a torn last line (crash mid-write) is skipped.
      try {
        seq = auditEntrySchema.parse(JSON.parse(line)).seq;
        break;
      } catch {
        continue;
      }
    }
    return new AuditLog(file, handle, seq, log);
  }

  /** Records an entry; resolves when it is durable. Secrets never get here: callers pass fingerprints. */
  async append(input: AuditInput): Promise<AuditEntry> {
    const entry: AuditEntry = { seq: ++this.seq, at: Date.now(), ...input };
    if (!this.handle) {
      this.memory.push(entry);
      if (this.memory.length > 10_000) this.memory.shift();
      return entry;
    }
    await new Promise<void>((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
      void this.flush();
    });
    return entry;
  }

  /** Newest first; `before` is a seq (exclusive). */
  async list({ limit, before }: { limit: number; before?: number }): Promise<AuditEntry[]> {
    const out: AuditEntry[] = [];
    const wanted = (e: AuditEntry) => before === undefined || e.seq < before;
    if (!this.file) {
      for (let i = this.memory.length - 1; i >= 0 && out.length < limit; i--) if (wanted(this.memory[i]!)) out.push(this.memory[i]!);
      return out;
    }
    const handle = await open(this.file, 'r');
    try {
      const size = (await handle.stat()).size;
      for await (const line of reverseLines(handle, size)) {
        let entry: AuditEntry;
        try {
          entry = auditEntrySchema.parse(JSON.parse(line));
        } catch {
          continue;
        }
        if (wanted(entry)) out.push(entry);
        if (out.length >= limit) break;
      }
    } finally {
      await handle.close();
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
        try {
          await this.handle.appendFile(batch.map((p) => p.line).join(''));
          await this.handle.datasync();
          for (const p of batch) p.resolve();
        } catch (error) {
          this.log.error({ err: error, file: this.file }, 'audit trail write failed');
          for (const p of batch) p.reject(error as Error);
        }
      }
    } finally {
      this.flushing = false;
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
