/**
 * One watched ensemble under sharedPolling (docs/operating/replicas.md), on one replica. Its mode:
 *  - `lead`: this replica won the election; its member poller runs and each round is published
 *    (health, and the kept history once a minute), with each sessions, watches and Locks view
 *    (wchp + cons) gathering, and
 *    the other replicas' asks for a gathering are answered;
 *  - `follow`: another replica polls; this one's poller is stopped and shows the published rounds
 *    (a round late by more than `lateGraceMs` past its expected refresh is said to be late, with
 *    its own time), and its gatherings ask the polling replica rather than the members;
 *  - `local`: this replica polls on its own and shares nothing, as without sharedPolling: while the
 *    home ensemble is away, or while the ensemble's identity (what the published results are keyed
 *    by) is not known;
 *  - `waiting`: just started, neither known yet: nothing is polled for a moment.
 * A replica running an upgrade of the ensemble polls it itself at the upgrade's brisk cadence
 * (the other replicas' rounds are not brisk), while it follows the rest.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { omit } from 'zod/mini';
import { ensembleHealthSchema, memberHistorySchema, sessionsAnswerSchema, watchesAnswerSchema, type EnsembleHealth, type MemberHistory } from '@keeper/shared';
import type { MemberMonitor } from '../members/memberMonitor.js';
import { sharedWatchGatheringSchema, type SharedWatchGathering } from '../locks/sharedWatchGathering.js';
import type { Gathered, RateLimitedGather } from '../members/gatherCache.js';
import { PolledFollower, type Followed } from './polledFollower.js';
import { PolledPublisher } from './polledPublisher.js';
import type { AskedKind, PolledKind } from './polledValue.js';
import type { ReplicaStore } from './replicaStore.js';

export type PollingMode = 'waiting' | 'local' | 'lead' | 'follow';

/** What sharedPolling needs of an ensemble (ensemble/ensemble.ts has it). */
export interface PollingTarget {
  name: string;
  monitor: Pick<MemberMonitor, 'poller' | 'sessions' | 'watches'>;
  /** The Locks view's wchp + cons gatherings. */
  locks: { gatherer: { shared: RateLimitedGather<SharedWatchGathering> } };
  identity: { current(): string | null; whenKnown(): Promise<string> };
}

export interface PolledEnsembleContext {
  store: ReplicaStore;
  self: { id: string; name: string };
  log: Logger;
  /** The election's sequence number of this replica (its term) while it leads. */
  term: () => number | null;
  /** A later leader's result was found: the election looks again. */
  superseded: () => void;
  /** How late past its expected refresh a published round may be before it is said to be late. */
  lateGraceMs: number;
  /** How long an ask for a gathering waits for the polling replica. */
  askDeadlineMs?: number;
}

const healthValueSchema = z.object({ health: ensembleHealthSchema, appended: memberHistorySchema });
type HealthValue = z.infer<typeof healthValueSchema>;
const sessionsGatheringSchema = omit(sessionsAnswerSchema, { nextGatherInSeconds: true });
const watchSummarySchema = watchesAnswerSchema.shape.summary;
const watchesByPathSchema = watchesAnswerSchema.shape.byPath.def.innerType;
/** The kept history goes out once a minute (~15 minutes of points: a replica that starts draws its charts from it). */
const HISTORY_EVERY_MS = 60_000;

/** One asked kind's sharing: its publisher while leading, its follower while following. */
interface GatheringShare {
  kind: AskedKind;
  lead(publisher: PolledPublisher): () => void;
  follow(): () => void;
}

export class PolledEnsemble {
  private modeNow: PollingMode = 'waiting';
  private teardown: (() => void)[] = [];
  private healthPublisher: PolledPublisher | null = null;
  private historyPublisher: PolledPublisher | null = null;
  private historyAt = 0;
  private lateTimer: NodeJS.Timeout | null = null;
  private readonly stops: (() => void)[] = [];
  private readonly gatherings: GatheringShare[];
  /** The ensemble's identity when this replica shares its polling (null: it polls on its own). */
  private id: string | null = null;

  constructor(
    readonly target: PollingTarget,
    private readonly ctx: PolledEnsembleContext,
  ) {
    const { sessions, watches } = target.monitor;
    const localName = <T extends { ensemble: string }>(value: T): T => ({ ...value, ensemble: target.name });
    this.gatherings = [
      this.gatheringShare('sessions', sessions.shared, sessionsGatheringSchema, localName),
      this.gatheringShare('watches', watches.shared.summary, watchSummarySchema, (v) => v),
      this.gatheringShare('watch-paths', watches.shared.byPath, watchesByPathSchema, (v) => v),
      this.gatheringShare('lock-watches', target.locks.gatherer.shared, sharedWatchGatheringSchema, (v) => v),
    ];
    const { poller } = target.monitor;
    this.stops.push(
      poller.subscribe((health, appended) => this.polled(health, appended)),
      poller.onBriskChange(() => this.applyPolling()),
    );
  }

  get mode(): PollingMode {
    return this.modeNow;
  }

  get name(): string {
    return this.target.name;
  }

  /** `<root>/ensembles/<id>` */
  private get dir(): string {
    return this.ctx.store.path('ensembles', this.id!);
  }

  /** Moves to `mode` (keyed by `id`; null for local and waiting). */
  setMode(mode: PollingMode, id: string | null): void {
    if (mode === this.modeNow && id === this.id) return;
    this.ctx.log.info({ ensemble: this.name, from: this.modeNow, to: mode }, 'sharedPolling: mode');
    for (const stop of this.teardown.splice(0)) stop();
    this.clearLate();
    this.modeNow = mode;
    this.id = id;
    if (mode === 'lead') this.startLeading();
    if (mode === 'follow') this.startFollowing();
    this.applyPolling();
  }

  close(): void {
    for (const stop of this.teardown.splice(0)) stop();
    for (const stop of this.stops.splice(0)) stop();
    this.clearLate();
  }

  /** The poller runs unless another replica polls for this one (and no upgrade here wants it brisk). */
  private applyPolling(): void {
    const { poller } = this.target.monitor;
    const polls = this.modeNow === 'lead' || this.modeNow === 'local' || (this.modeNow === 'follow' && poller.brisk);
    if (polls && !poller.polling) {
      this.clearLate();
      poller.start();
    }
    if (!polls && poller.polling) {
      poller.stop();
      // Its own last round (it led, or ran an upgrade) stays shown until the polling replica's next: late if that does not come.
      const latest = poller.current();
      if (this.modeNow === 'follow' && latest && !latest.lateReason) this.armLate(latest, latest.polledBy ?? 'the elected replica');
    }
  }

  // ---- leading ----

  private publisher(kind: PolledKind): PolledPublisher {
    const term = this.ctx.term();
    return new PolledPublisher({
      store: this.ctx.store,
      dir: `${this.dir}/polled`,
      kind,
      self: this.ctx.self,
      term: term ?? 0,
      log: this.ctx.log.child({ ensemble: this.name }),
      onSuperseded: () => this.ctx.superseded(),
    });
  }

  private startLeading(): void {
    const health = this.publisher('health');
    const history = this.publisher('history');
    this.healthPublisher = health;
    this.historyPublisher = history;
    this.historyAt = 0;
    const stops = this.gatherings.map((g) => g.lead(this.publisher(g.kind)));
    this.teardown.push(() => {
      health.stop();
      history.stop();
      this.healthPublisher = null;
      this.historyPublisher = null;
      for (const stop of stops) stop();
    });
  }

  /** Each round this replica polls, while it leads: published (never a round it was shown, nor a late mark). */
  private polled(health: EnsembleHealth, appended: MemberHistory): void {
    if (this.modeNow !== 'lead' || health.polledBy !== undefined || health.lateReason !== undefined) return;
    const value: HealthValue = { health, appended };
    this.healthPublisher?.publish(value, health.polledAt).catch((error: unknown) => this.ctx.log.warn({ err: error }, 'sharedPolling: health not published'));
    const now = Date.now();
    if (this.historyPublisher && now - this.historyAt >= HISTORY_EVERY_MS) {
      this.historyAt = now;
      this.historyPublisher
        .publish(this.target.monitor.poller.history(), health.polledAt)
        .catch((error: unknown) => this.ctx.log.warn({ err: error }, 'sharedPolling: history not published'));
    }
  }

  // ---- following ----

  private startFollowing(): void {
    const { store, self, log } = this.ctx;
    const { poller } = this.target.monitor;
    const common = { store, ensembleDir: this.dir, self, log: log.child({ ensemble: this.name }) };
    const health = new PolledFollower<HealthValue>({
      ...common,
      kind: 'health',
      schema: healthValueSchema,
      onResult: (result) => this.shown(result),
    });
    let seeded = false;
    const history = new PolledFollower<MemberHistory>({
      ...common,
      kind: 'history',
      schema: memberHistorySchema,
      onResult: (result) => {
        if (seeded) return;
        seeded = true;
        poller.seedHistory(result.value);
      },
    });
    // The history first: the charts are drawn from it, then the rounds add their points.
    history.start();
    health.start();
    const gatherings = this.gatherings.map((g) => g.follow());
    this.teardown.push(() => {
      health.close();
      history.close();
      for (const stop of gatherings) stop();
    });
  }

  /** A round the polling replica published: shown here, late already if it is far older than its cadence. */
  private shown(result: Followed<HealthValue>): void {
    const { poller } = this.target.monitor;
    if (this.modeNow !== 'follow' || poller.polling) return;
    const { health, appended } = result.value;
    poller.adopt({ ...health, polledBy: result.by.name }, appended);
    this.armLate(health, result.by.name);
  }

  /** The round shown now is said to be late when the next does not come within its cadence and the grace (at once when it is old already). */
  private armLate(health: EnsembleHealth, publisher: string): void {
    const { poller } = this.target.monitor;
    this.clearLate();
    const receivedAt = Date.now();
    const age = receivedAt - health.polledAt;
    // Published long ago (the replica that polled died before this one started): never shown as live.
    const old = age > 2 * health.pollIntervalMs + this.ctx.lateGraceMs;
    const every = Math.round(health.pollIntervalMs / 1000);
    this.lateTimer = setTimeout(
      () => {
        this.lateTimer = null;
        if (this.modeNow !== 'follow' || poller.polling) return;
        const silentS = Math.round((Date.now() - receivedAt) / 1000);
        poller.markLate(
          old
            ? `${publisher} polls the members for every replica, and its last round is from ${Math.round(age / 1000)} s ago`
            : `${publisher} polls the members for every replica, and has published nothing for ${silentS} s (a round is due every ${every} s)`,
        );
      },
      old ? 0 : health.pollIntervalMs + this.ctx.lateGraceMs,
    );
    this.lateTimer.unref();
  }

  private clearLate(): void {
    if (this.lateTimer) clearTimeout(this.lateTimer);
    this.lateTimer = null;
  }

  // ---- gatherings (sessions, watches, the Locks view's) ----

  private gatheringShare<T>(kind: AskedKind, gatherer: RateLimitedGather<T>, schema: z.core.$ZodType<T>, localize: (value: T) => T): GatheringShare {
    return {
      kind,
      lead: (publisher) => {
        const publish = (gathered: Gathered<T>, ask = 0) =>
          publisher.publish(gathered.value, gathered.at, ask).catch((error: unknown) => {
            this.ctx.log.warn({ err: error, kind }, 'sharedPolling: not published');
            return false;
          });
        const stopGathered = gatherer.onGathered((gathered) => void publish(gathered));
        // What was gathered before this replica led is worth sharing at once.
        void publisher.whenReady().then(() => {
          if (gatherer.cached) void publish(gatherer.cached);
        });
        let handling = false;
        let wanted = 0;
        const handle = async () => {
          if (handling) return;
          handling = true;
          try {
            await publisher.whenReady();
            while (wanted > publisher.answered) {
              const ask = wanted;
              try {
                const gathered = await gatherer.get(true);
                // Refused when too large to share (the publisher said why); else answered by it, or by a newer result held.
                if (await publish(gathered, ask)) publisher.answer(ask);
                else if (publisher.answered < ask) publisher.refuse(ask, 'the result could not be written to the home ensemble');
              } catch (error) {
                publisher.refuse(ask, error instanceof Error ? error.message : String(error));
              }
            }
          } finally {
            handling = false;
          }
        };
        const askPath = `${this.dir}/asks/${kind}`;
        const unwatch = this.ctx.store.gateway.watches.watch(askPath, {
          onNode: (state) => {
            if (!state.exists) return;
            wanted = Math.max(wanted, state.stat.version + 1);
            void handle();
          },
          onChildren: () => undefined,
          onWatchEvent: () => undefined,
          onError: (error, retrying) => this.ctx.log.debug({ err: error, retrying, path: askPath }, 'sharedPolling: watching asks failed'),
        });
        return () => {
          publisher.stop();
          stopGathered();
          unwatch();
        };
      },
      follow: () => {
        const follower = new PolledFollower<T>({
          store: this.ctx.store,
          ensembleDir: this.dir,
          kind,
          schema,
          self: this.ctx.self,
          log: this.ctx.log.child({ ensemble: this.name }),
          ...(this.ctx.askDeadlineMs !== undefined ? { askDeadlineMs: this.ctx.askDeadlineMs } : {}),
          onResult: (result) => gatherer.adopt({ value: localize(result.value), at: Math.min(result.at, Date.now()) }),
        });
        follower.start();
        gatherer.relayTo(async () => {
          const result = await follower.ask();
          return { value: localize(result.value), at: Math.min(result.at, Date.now()) };
        });
        return () => {
          gatherer.relayTo(null);
          follower.close();
        };
      },
    };
  }
}
