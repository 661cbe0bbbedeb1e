/**
 * The ensemble's event timeline (issue 22 item 17): fed by every poll of the member poller (the
 * changes an operator would narrate: leaders lost and elected with their epochs, members down and
 * back, alerts raised and cleared) and by `add` for what other parts know (the upgrade's steps).
 * One per ensemble, whatever the number of browsers. Bounded: the last 24 hours, at most
 * `maxEvents`. Durable when Keeper has a state directory: one file per ensemble, keyed by the
 * ensemble's identity (identityKey.ts), not its name, written atomically a moment after a change.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { deriveEvents, ensembleEventSchema, type EnsembleEvent, type EnsembleHealth, type NewEnsembleEvent, type TimelineMemory } from '@keeper/shared';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';

export const EVENTS_KEPT_MS = 24 * 3600_000;
export const MAX_EVENTS = 2_000;
/** Writes are gathered: a burst of events (an election) is one write. */
const SAVE_DELAY_MS = 1_000;
/** Without events, the time of the last poll is still written this often, so a restart knows from when nothing is known. */
const OBSERVED_SAVE_EVERY_MS = 60_000;

const fileSchema = z.object({
  version: z.literal(1),
  ensemble: z.string(),
  /** The last poll the process that wrote it observed: nothing is known after it until the next process watches. */
  lastObservedAt: z.number().nullable(),
  events: z.array(ensembleEventSchema),
});

export interface TimelineOptions {
  ensemble: string;
  /** The ensemble's identity (identityKey.ts): the file's name. */
  stateKey: string;
  log: Logger;
  keptMs?: number;
  maxEvents?: number;
  now?: () => number;
}

type Listener = (appended: readonly EnsembleEvent[]) => void;

export class EnsembleTimeline {
  private events: EnsembleEvent[] = [];
  private memory: TimelineMemory | null = null;
  private seq = 0;
  private file: string | null = null;
  private previousProcessLastAt: number | null = null;
  private lastObservedAt: number | null = null;
  private saveTimer: NodeJS.Timeout | null = null;
  private savedAt = 0;
  private readonly listeners = new Set<Listener>();
  private readonly now: () => number;
  readonly keptMs: number;
  readonly maxEvents: number;

  constructor(private readonly options: TimelineOptions) {
    this.now = options.now ?? Date.now;
    this.keptMs = options.keptMs ?? EVENTS_KEPT_MS;
    this.maxEvents = options.maxEvents ?? MAX_EVENTS;
  }

  /** Where to keep it (null: memory only); reads what a previous Keeper process kept for this ensemble. */
  configure({ stateDir }: { stateDir: string | null }): void {
    if (stateDir === null) return;
    const dir = path.join(stateDir, 'events');
    this.file = path.join(dir, `${this.options.stateKey}.json`);
    try {
      ensureStateDir(dir);
      const text = readFileIfExists(this.file);
      if (text === null) return;
      const parsed = fileSchema.safeParse(JSON.parse(text));
      if (!parsed.success) {
        this.options.log.warn({ file: this.file, issues: parsed.error.issues.slice(0, 3) }, 'ensemble event file does not match the schema: starting afresh');
        return;
      }
      this.events = parsed.data.events;
      this.seq = this.events.at(-1)?.seq ?? 0;
      this.previousProcessLastAt = parsed.data.lastObservedAt;
      this.prune();
    } catch (error) {
      this.options.log.warn({ err: error, file: this.file }, 'ensemble event file unreadable: starting afresh');
    }
  }

  /** Each poll: the changes since the previous one. */
  observe(health: EnsembleHealth): void {
    const first = this.memory === null;
    const { events, memory } = deriveEvents(this.memory, health, first ? { notWatchingSince: this.previousProcessLastAt } : {});
    this.memory = memory;
    this.lastObservedAt = health.polledAt;
    this.append(events);
    // The time of the last observation is kept even without events, so a restart can say from when nothing is known.
    if (events.length === 0 && this.now() - this.savedAt >= OBSERVED_SAVE_EVERY_MS) this.scheduleSave();
  }

  /** Events other parts know of (the upgrade runner's steps); `at` is theirs. */
  add(events: readonly NewEnsembleEvent[]): void {
    this.append(events);
  }

  list(): EnsembleEvent[] {
    this.prune();
    return [...this.events];
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = null;
    }
    this.save();
    this.listeners.clear();
  }

  private append(events: readonly NewEnsembleEvent[]): void {
    if (events.length === 0) return;
    const numbered = events.map((e) => ({ ...e, seq: ++this.seq }));
    this.events.push(...numbered);
    this.prune();
    this.scheduleSave();
    for (const listener of this.listeners) {
      try {
        listener(numbered);
      } catch (error) {
        this.options.log.warn({ err: error }, 'ensemble event listener threw');
      }
    }
  }

  private prune(): void {
    const oldest = this.now() - this.keptMs;
    let drop = this.events.findIndex((e) => e.at >= oldest);
    if (drop === -1) drop = this.events.length;
    drop = Math.max(drop, this.events.length - this.maxEvents);
    if (drop > 0) this.events.splice(0, drop);
  }

  private scheduleSave(): void {
    if (this.file === null || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      this.save();
    }, SAVE_DELAY_MS);
    this.saveTimer.unref();
  }

  private save(): void {
    if (this.file === null) return;
    try {
      const body: z.infer<typeof fileSchema> = { version: 1, ensemble: this.options.ensemble, lastObservedAt: this.lastObservedAt, events: this.events };
      writeFileAtomic(this.file, JSON.stringify(body));
      this.savedAt = this.now();
    } catch (error) {
      this.options.log.warn({ err: error, file: this.file }, 'could not write the ensemble event file');
    }
  }
}
