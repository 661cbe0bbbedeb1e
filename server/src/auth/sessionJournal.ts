/**
 * The sign-in sessions on disk, so that a Keeper restart signs nobody out: `sessions.jsonl` in the
 * state directory (mode 0600), one JSON line per change: a session started, or a session ended
 * with its reason. Appends that arrive together share one fdatasync (group commit), and a sign-in
 * is answered only once its line is durable, so even a SIGKILL right after it keeps it.
 *
 * Bounded: when the file holds more than twice the live records (plus slack), it is rewritten
 * atomically from the store's snapshot, so it never grows past about 2 x (sessions + ended).
 * Cookies are never written: a session is keyed by the SHA-256 of its cookie's value.
 */
import fs from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ROLES } from '@keeper/shared';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';

export const SESSIONS_FILE = 'sessions.jsonl';

export const storedSessionSchema = z.object({
  id: z.string().regex(/^[0-9a-f]{64}$/),
  hintId: z.string().regex(/^[0-9a-f]{64}$/),
  name: z.string().max(256),
  role: z.enum(ROLES),
  via: z.enum(['cookie', 'share']),
  csrfToken: z.string().max(64),
  createdAt: z.number(),
  expiresAt: z.number(),
  shareLinkId: z.string().max(64).optional(),
  method: z.enum(['password', 'token', 'url', 'oidc', 'share']).optional(),
  credential: z.string().max(128).optional(),
  subject: z.string().max(512).optional(),
  groups: z.array(z.string().max(256)).max(200).optional(),
});
export type StoredSession = z.infer<typeof storedSessionSchema>;

export const endedSessionSchema = z.object({ id: z.string().regex(/^[0-9a-f]{64}$/), reason: z.string().max(300), at: z.number() });
export type EndedSession = z.infer<typeof endedSessionSchema>;

const lineSchema = z.union([z.strictObject({ put: storedSessionSchema }), z.strictObject({ end: endedSessionSchema })]);
export type JournalRecord = z.infer<typeof lineSchema>;

/** Past this many lines beyond twice the live records, the file is rewritten from the snapshot. */
const COMPACTION_SLACK = 1_000;

interface Pending {
  line: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

export interface JournalContents {
  records: JournalRecord[];
  /** Lines that did not parse (a torn last line after a crash, or a hand edit): skipped. */
  skipped: number;
}

export class SessionJournal {
  private pending: Pending[] = [];
  private flushing = false;
  private handle: FileHandle | null = null;

  private constructor(
    readonly file: string,
    private lines: number,
    /** The live records now, for a compaction (sessions and remembered ends). */
    private readonly snapshot: () => JournalRecord[],
    private readonly log: Logger,
  ) {}

  /** Reads what a previous process wrote. A missing file is an empty journal. */
  static read(stateDir: string): JournalContents {
    const text = readFileIfExists(path.join(stateDir, SESSIONS_FILE));
    if (text === null) return { records: [], skipped: 0 };
    const records: JournalRecord[] = [];
    let skipped = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        records.push(lineSchema.parse(JSON.parse(line)));
      } catch {
        skipped++;
      }
    }
    return { records, skipped };
  }

  /** Starts the file afresh from `snapshot()` (compacting what was read) and appends from then on. */
  static async open(stateDir: string, snapshot: () => JournalRecord[], log: Logger): Promise<SessionJournal> {
    ensureStateDir(stateDir);
    const file = path.join(stateDir, SESSIONS_FILE);
    const journal = new SessionJournal(file, 0, snapshot, log);
    journal.compact();
    journal.handle = await open(file, 'a', 0o600);
    return journal;
  }

  /** Records one change; resolves once it is on disk. */
  append(record: JournalRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify(record)}\n`, resolve, reject });
      void this.flush();
    });
  }

  /** Resolves once everything appended so far is on disk (or failed). */
  async settled(): Promise<void> {
    while (this.flushing || this.pending.length > 0) await new Promise((r) => setTimeout(r, 2));
  }

  async close(): Promise<void> {
    await this.settled();
    await this.handle?.close();
    this.handle = null;
  }

  private compact(): void {
    const records = this.snapshot();
    writeFileAtomic(this.file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    // writeFileAtomic creates with 0600; tighten a file someone copied in with a looser mode.
    fs.chmodSync(this.file, 0o600);
    this.lines = records.length;
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.pending.length > 0 && this.handle) {
        const batch = this.pending;
        this.pending = [];
        try {
          const live = this.snapshot().length;
          if (this.lines + batch.length > 2 * live + COMPACTION_SLACK) {
            // The snapshot already holds every change of this batch (memory is updated first).
            await this.handle.close();
            this.handle = null;
            this.compact();
            this.handle = await open(this.file, 'a', 0o600);
          } else {
            await this.handle.appendFile(batch.map((p) => p.line).join(''));
            await this.handle.datasync();
            this.lines += batch.length;
          }
          for (const p of batch) p.resolve();
        } catch (error) {
          this.log.error({ err: error, file: this.file }, 'could not record sign-in sessions; they will not survive a restart');
          for (const p of batch) p.reject(error as Error);
          this.handle ??= await open(this.file, 'a', 0o600).catch(() => null);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
