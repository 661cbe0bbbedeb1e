/**
 * What the Locks view remembers across Keeper's restarts (issue 22, items 7 and 8), in the state
 * directory, one file per ensemble keyed by the ensemble's identity (the `/keeper/ensemble-id`
 * marker, ensembleIdentity.ts), never by its configured name:
 *   <stateDir>/ensembles/<identity>/locks.json   mode 0600, replaced atomically
 *  - the lock directories scans found (a restart watches them again at once), at most
 *    `maxTracked` of them;
 *  - the holds Keeper saw begin (a node that still holds, with the same name and ctime, has held
 *    since then), at most MAX_HOLDS_PER_DIRECTORY per directory.
 * Writes are batched (one per SAVE_DELAY_MS at most). A file that cannot be read or parsed is
 * set aside as `<file>.bad` and Keeper starts from nothing: a console never fails to start over
 * what it remembers.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';
import type { RememberedHold } from './lockDirectory.js';

const SAVE_DELAY_MS = 1_000;
export const MAX_HOLDS_PER_DIRECTORY = 50;

const memorySchema = z.object({
  version: z.literal(1),
  identity: z.string(),
  /** For people reading the file; never used to match. */
  ensemble: z.string(),
  scanned: z.array(z.string()),
  holds: z.record(z.string(), z.array(z.object({ name: z.string(), ctime: z.number(), at: z.number() }))),
});

export interface RememberedLocks {
  scanned: string[];
  holds: Map<string, RememberedHold[]>;
}

export interface LockMemorySnapshot {
  scanned: readonly string[];
  holds: ReadonlyMap<string, readonly RememberedHold[]>;
}

export class LockMemory {
  private readonly file: string;
  private timer: NodeJS.Timeout | null = null;
  private pending: (() => LockMemorySnapshot) | null = null;

  constructor(
    /** The ensemble's own state directory (ensembleStateDir()). */
    ensembleDir: string,
    private readonly identity: string,
    private readonly ensemble: string,
    private readonly maxScanned: number,
    private readonly log: Logger,
  ) {
    this.file = path.join(ensembleDir, 'locks.json');
  }

  load(): RememberedLocks {
    const empty: RememberedLocks = { scanned: [], holds: new Map() };
    let text: string | null;
    try {
      text = readFileIfExists(this.file);
    } catch (error) {
      this.log.warn({ err: error, file: this.file }, 'the locks memory could not be read: starting without it');
      return empty;
    }
    if (text === null) return empty;
    let parsed: z.infer<typeof memorySchema>;
    try {
      parsed = memorySchema.parse(JSON.parse(text));
    } catch (error) {
      this.log.warn({ err: error, file: this.file }, 'the locks memory is not valid: set aside as .bad, starting without it');
      try {
        fs.renameSync(this.file, `${this.file}.bad`);
      } catch {
        // Nothing more to do: it is ignored either way.
      }
      return empty;
    }
    // A file copied from another ensemble's identity is not this ensemble's.
    if (parsed.identity !== this.identity) return empty;
    return {
      scanned: parsed.scanned.slice(0, this.maxScanned),
      holds: new Map(Object.entries(parsed.holds).map(([dir, holds]) => [dir, holds.slice(0, MAX_HOLDS_PER_DIRECTORY)])),
    };
  }

  /** Saves what `snapshot` answers, soon: changes within SAVE_DELAY_MS make one write. */
  saveSoon(snapshot: () => LockMemorySnapshot): void {
    this.pending = snapshot;
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
    this.timer.unref();
  }

  /** Writes now what is pending (at close). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const snapshot = this.pending?.();
    this.pending = null;
    if (!snapshot) return;
    const holds: Record<string, RememberedHold[]> = {};
    for (const [dir, list] of snapshot.holds) if (list.length > 0) holds[dir] = list.slice(0, MAX_HOLDS_PER_DIRECTORY);
    const content = { version: 1, identity: this.identity, ensemble: this.ensemble, scanned: snapshot.scanned.slice(0, this.maxScanned), holds };
    try {
      ensureStateDir(path.dirname(this.file));
      writeFileAtomic(this.file, `${JSON.stringify(content)}\n`);
    } catch (error) {
      this.log.warn({ err: error, file: this.file }, 'the locks memory could not be written');
    }
  }
}
