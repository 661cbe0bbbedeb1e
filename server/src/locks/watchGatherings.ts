/**
 * The evidence behind `waiting` and `leaked`: `wchp` (who watches what) and `cons` (who is
 * connected) asked of every member in one round, so each gathering says both at about the same
 * moment (a session between two members has no watch anywhere until it re-registers them).
 * Both words are expensive, so:
 *  - one gatherer per ensemble, shared by every browser and API caller;
 *  - it runs only while someone looks at locks (`touch()`), every `intervalMs` (15 s by default,
 *    never under LEAK_MIN_GAP_MS: two gatherings that far apart are what proving a leak takes);
 *  - it keeps the last few gatherings (enough to span the leak proof), and of each only the
 *    watches the Locks view reads (`keep`: tracked lock directories and their nodes, and herds),
 *    so an ensemble with a million watches does not cost Keeper a million entries six times.
 * The owners' details (client, timeout, last response) come from the sessions view's own
 * gathering (SessionsCollector), asked at its cadence: nothing is gathered twice for them.
 * Under the replicas' sharedPolling, the members are asked through `shared` (a RateLimitedGather,
 * as the sessions and watches views'): the elected replica gathers and publishes, and the others
 * ask it and keep what it shares, so 3 replicas' Locks views cost the members what one costs.
 */
import type { Logger } from 'pino';
import {
  consFromConnections,
  LEAK_MIN_GAP_MS,
  parseCons,
  parseWchp,
  SERVING_STATES,
  wchpFromAdmin,
  type EnsembleSession,
  type WatchGathering,
} from '@keeper/shared';
import { RateLimitedGather } from '../members/gatherCache.js';
import { askMember } from '../members/memberAsk.js';
import type { MemberView, SessionsCollector } from '../members/sessionsCollector.js';
import type { MemberTransport } from '../members/transport.js';
import type { SharedWatchGathering } from './sharedWatchGathering.js';

export interface WatchGathererOptions {
  members: MemberView;
  transport: MemberTransport;
  sessions: Pick<SessionsCollector, 'get'>;
  intervalMs: number;
  /** Which watched paths to keep (the rest are counted out at once); by default all. */
  keep?: (path: string, watchers: number) => boolean;
  /** Nobody has looked for this long: stop gathering. */
  idleAfterMs?: number;
  log: Logger;
  now?: () => number;
}

/** Gatherings kept: at 15 s apart, a minute and a half of evidence. */
const KEEP = 6;
const DEFAULT_IDLE_AFTER_MS = 60_000;

export class WatchGatherer {
  private readonly kept: WatchGathering[] = [];
  private ownerSessions: EnsembleSession[] | null = null;
  private ownerSessionsAt: number | null = null;
  /** Counts gatherings (and owner refreshes): reports computed before the latest one are out of date. */
  epoch = 0;
  private lastTouched = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;
  readonly intervalMs: number;
  /**
   * Where a round's gathering comes from: the members, at most once per interval however many
   * ask (with sharedPolling, the other replicas too), or the elected replica while this one
   * follows (`relayTo`).
   */
  readonly shared: RateLimitedGather<SharedWatchGathering>;
  /** Rounds whose relayed gathering failed and were gathered from the members here instead. */
  fallbacks = 0;

  constructor(private readonly options: WatchGathererOptions) {
    this.now = options.now ?? Date.now;
    this.intervalMs = Math.max(LEAK_MIN_GAP_MS, options.intervalMs);
    // A little under the interval: the rounds come an interval after the previous one ended, so each may start one.
    this.shared = new RateLimitedGather(() => this.fromMembers(), this.intervalMs - 1_000, this.now);
    // `kept` holds this replica's part of each gathering. The whole one (every watched path on the
    // ensemble) is held only while this replica publishes it for the others (sharedPolling's lead).
    this.shared.holdWhile = () => this.shared.told;
  }

  get gatherings(): readonly WatchGathering[] {
    return this.kept;
  }

  /** The owners as the sessions view last saw them; null before its first gathering. */
  get sessions(): readonly EnsembleSession[] | null {
    return this.ownerSessions;
  }

  /** Keeper's clock at the sessions gathering `sessions` come from (an owner's last response is as of then). */
  get sessionsAsOf(): number | null {
    return this.ownerSessionsAt;
  }

  /**
   * A gathering asked after this call (an admin's Clean re-gathers the watches right before it
   * deletes): waits for one in flight if it began after the call, otherwise runs one now. Null
   * when it failed.
   */
  async gatherNow(): Promise<WatchGathering | null> {
    const calledAt = this.now();
    while (this.running) await this.running;
    const latest = this.kept.at(-1);
    if (latest && latest.askedAt >= calledAt) return latest;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // From the members here, whoever polls: what a delete rests on is asked after the admin asked.
    await this.round(true);
    const fresh = this.kept.at(-1);
    return fresh && fresh.askedAt >= calledAt ? fresh : null;
  }

  /** Calls `listener` after each gathering; returns how to stop. */
  onGathering(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Someone looks at locks: gather now if idle, and keep gathering while they do. */
  touch(): void {
    if (this.closed) return;
    const wasIdle = this.now() - this.lastTouched > (this.options.idleAfterMs ?? DEFAULT_IDLE_AFTER_MS);
    this.lastTouched = this.now();
    if (wasIdle && this.timer === null && this.running === null) void this.round();
  }

  /** Wait for the gathering in flight, if any (tests, and a first answer that wants evidence). */
  async settled(): Promise<void> {
    await this.running;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private round(fromHere = false): Promise<void> {
    this.running = this.gather(fromHere)
      .catch((error: unknown) => this.options.log.warn({ err: error }, 'lock watch gathering failed'))
      .finally(() => {
        this.running = null;
        this.epoch += 1;
        for (const listener of this.listeners) listener();
        this.schedule();
      });
    return this.running;
  }

  private schedule(): void {
    if (this.closed || this.timer !== null) return;
    const idle = this.now() - this.lastTouched > (this.options.idleAfterMs ?? DEFAULT_IDLE_AFTER_MS);
    if (idle) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.round();
    }, this.intervalMs);
    this.timer.unref();
  }

  private async gather(fromHere: boolean): Promise<void> {
    const gathering = fromHere ? await this.fromMembers() : await this.fromShared();
    if (gathering) this.take(gathering);
    try {
      const answer = await this.options.sessions.get(false);
      this.ownerSessions = answer.sessions;
      this.ownerSessionsAt = answer.gatheredAt;
    } catch (error) {
      // Without owners nothing is called leaked (analyzeLock needs them): say why in the log only.
      this.options.log.debug({ err: error }, 'sessions for the locks view not gathered');
    }
  }

  /**
   * The round's gathering through `shared`; when the elected replica cannot share one (too large,
   * gone), from the members here. Null: nothing new this round, the gatherings kept stand (a round
   * right after an idle spell can come inside the rate, and the whole last one is not held).
   */
  private async fromShared(): Promise<SharedWatchGathering | null> {
    if (this.shared.waitingOutRate) return null;
    try {
      return (await this.shared.get(true)).value;
    } catch (error) {
      if (!this.shared.relayed) throw error;
      this.fallbacks++;
      this.options.log.warn({ err: error }, 'lock watch gathering not shared by the polling replica: gathered here');
      return this.fromMembers();
    }
  }

  /** Keeps this replica's part of a gathering (one it already holds is not kept twice: a shared one may come again). */
  private take(shared: SharedWatchGathering): void {
    const last = this.kept.at(-1);
    if (last && shared.askedAt <= last.askedAt) return;
    const keep = this.options.keep;
    const gathering: WatchGathering = {
      askedAt: shared.askedAt,
      answeredAt: shared.answeredAt,
      complete: shared.complete,
      watches: new Map(keep ? shared.watches.filter(([path, ids]) => keep(path, ids.length)) : shared.watches),
      connectedSessions: shared.connectedSessions === null ? null : new Set(shared.connectedSessions),
    };
    this.kept.push(gathering);
    if (this.kept.length > KEEP) this.kept.splice(0, this.kept.length - KEEP);
  }

  /** wchp and cons of every member, merged, whole (each replica keeps its own part). */
  private async fromMembers(): Promise<SharedWatchGathering> {
    const { members, transport } = this.options;
    const statuses = new Map(members.statuses().map((s) => [s.address, s]));
    const askedAt = this.now();
    let complete = true;
    const perMember = await Promise.all(
      members.targets().map(async (target) => {
        const state = statuses.get(target.address)?.state;
        // A member that is down holds no connection: nothing of it is missing. One we cannot read might.
        if (state === 'down') return null;
        if (state === undefined || !SERVING_STATES.includes(state)) complete = false;
        const [watches, cons] = await Promise.all([
          askMember(transport, target, {
            word: 'wchp',
            fromText: parseWchp,
            admin: { command: 'watches_by_path', fromBody: wchpFromAdmin },
            purpose: 'watches',
          }),
          askMember(transport, target, {
            word: 'cons',
            fromText: parseCons,
            admin: { command: 'connections', fromBody: consFromConnections },
            purpose: 'sessions',
          }),
        ]);
        if (!watches.ok || !cons.ok) {
          if (!(watches.ok || watches.notServing) || !(cons.ok || cons.notServing)) complete = false;
          return null;
        }
        return { watches: watches.value, cons: cons.value };
      }),
    );
    const answeredAt = this.now();
    const watches = new Map<string, string[]>();
    const connected = new Set<string>();
    for (const answer of perMember) {
      if (!answer) continue;
      for (const [path, ids] of answer.watches) {
        const list = watches.get(path);
        if (list) list.push(...ids.filter((id) => !list.includes(id)));
        else watches.set(path, [...ids]);
      }
      for (const c of answer.cons) if (c.sessionId) connected.add(c.sessionId);
    }
    return { askedAt, answeredAt, complete, watches: [...watches], connectedSessions: [...connected] };
  }
}
