/**
 * The ensemble's event timeline (issue 22 item 17): fed by every poll of the member poller (the
 * changes an operator would narrate: leaders lost and elected with their epochs, members down and
 * back, alerts raised and cleared) and by `add` for what other parts know (the upgrade's steps).
 * One per ensemble, whatever the number of browsers. Bounded: the last 24 hours, at most
 * `maxEvents`. Durable when Keeper has a state directory: `events.json` in the directory of the
 * ensemble's identity (ensembleIdentity.ts, the `/keeper/ensemble-id` marker), not its name,
 * written atomically a moment after a change.
 *
 * The identity is read from ZooKeeper, so it may come late (no quorum when Keeper starts): the
 * timeline observes in memory meanwhile, since an outage at start is what it is for. Once the
 * identity is known, the previous processes' events are put before this one's, its `watching`
 * entry says what it did not see, and subscribers get the whole timeline again.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { deriveEvents, ensembleEventSchema, type EnsembleEvent, type EnsembleHealth, type NewEnsembleEvent, type TimelineMemory } from '@keeper/shared';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';
import type { EnsembleIdentity } from './ensembleIdentity.js';
import { ensembleStateDir } from '../config/ensembleState.js';

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
  /** Whose directory the file is in (only read when Keeper has a state directory). */
  identity: Pick<EnsembleIdentity, 'whenKnown'>;
  log: Logger;
  keptMs?: number;
  maxEvents?: number;
  now?: () => number;
}

/** 'append': new events; 'full': the whole timeline changed (the previous processes' events were read). */
export type TimelineChange = { mode: 'append' | 'full'; events: readonly EnsembleEvent[] };
type Listener = (change: TimelineChange) => void;

/** The file's name in the identity's directory. */
export const EVENTS_FILE = 'events.json';

export class EnsembleTimeline {
  private events: EnsembleEvent[] = [];
  private memory: TimelineMemory | null = null;
  private seq = 0;
  private stateDir: string | null = null;
  private file: string | null = null;
  /** This process's first poll, until the file is read: its `watching` entry is told then what the previous process last saw. */
  private firstHealth: EnsembleHealth | null = null;
  private closed = false;
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

  /** Where to keep it (null: memory only). Called once before start(). */
  configure({ stateDir }: { stateDir: string | null }): void {
    this.stateDir = stateDir;
  }

  /** With a state directory: reads what previous Keeper processes kept for this ensemble, once its identity is known. */
  start(): void {
    const stateDir = this.stateDir;
    if (stateDir === null) return;
    this.options.identity.whenKnown().then(
      (id) => this.attach(path.join(ensembleStateDir(stateDir, id), EVENTS_FILE)),
      () => undefined, // closed before it was known: nothing to read or write
    );
  }

  private attach(file: string): void {
    if (this.closed) return;
    this.file = file;
    const stored = this.read(file);
    const firstHealth = this.firstHealth;
    this.firstHealth = null;
    if (stored === null) {
      this.scheduleSave();
      return;
    }
    let own = this.events;
    const lastSeen = stored.lastObservedAt;
    if (firstHealth !== null && lastSeen !== null) {
      // This process began watching before it knew whose file to read: its first entry learns of the gap now.
      const watching = deriveEvents(null, firstHealth, { notWatchingSince: lastSeen }).events[0]!;
      own = own.map((e) => (e.kind === 'watching' && e.at === watching.at ? { ...watching, seq: e.seq } : e));
    } else if (firstHealth === null) this.previousProcessLastAt = lastSeen;
    const base = stored.events.at(-1)?.seq ?? 0;
    this.events = [...stored.events, ...own.map((e, i) => ({ ...e, seq: base + i + 1 }))];
    this.seq = this.events.at(-1)?.seq ?? 0;
    this.prune();
    this.scheduleSave();
    this.notify({ mode: 'full', events: this.list() });
  }

  private read(file: string): z.infer<typeof fileSchema> | null {
    try {
      ensureStateDir(path.dirname(file));
      const text = readFileIfExists(file);
      if (text === null) return null;
      const parsed = fileSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      this.options.log.warn({ file, issues: parsed.error.issues.slice(0, 3) }, 'ensemble event file does not match the schema: starting afresh');
    } catch (error) {
      this.options.log.warn({ err: error, file }, 'ensemble event file unreadable: starting afresh');
    }
    return null;
  }

  /** Each poll: the changes since the previous one. */
  observe(health: EnsembleHealth): void {
    const first = this.memory === null;
    if (first && this.file === null && this.stateDir !== null) this.firstHealth = health;
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
    this.closed = true;
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
    this.notify({ mode: 'append', events: numbered });
  }

  private notify(change: TimelineChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
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
