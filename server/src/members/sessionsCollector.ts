/**
 * The ensemble's sessions: `cons` on every member (each knows only its own connections)
 * joined with ONE member's `dump` (the leader's when it answers: it alone knows when each
 * session expires). cons and dump are among the expensive words, so never per browser:
 *  - a read gathers when the last gathering is older than the cadence (`cadenceMs`, 60 s), so
 *    a view opened after sitting idle shows sessions as they are, not minutes old; an open
 *    view re-reads about once per cadence, which keeps it fresh while someone looks, and
 *    nothing is gathered while nobody does;
 *  - "gather now" (refresh) gathers sooner;
 *  - either way at most one gathering starts per `minIntervalMs` per ensemble, and everyone
 *    who asks meanwhile (N browsers opening at once) shares it.
 * Each gathering also yields request rates (each connection's recved/sent against the previous
 * gathering's) and, from them, a request-rate herd when there is one (herd/detect.ts, named across
 * gatherings by herd/track.ts): both come from the answers already asked for, so they add nothing
 * to ZooKeeper's load. While the ensemble view is open (keepGathering) it gathers once per cadence,
 * as an open sessions view does, so the herd is among the ensemble's alerts.
 */
import {
  connectionsByClientHost,
  consFromConnections,
  herdAlert,
  NO_REQUEST_HERD,
  operationName,
  trackRequestHerd,
  dumpFromAdmin,
  joinSessions,
  parseCons,
  parseDump,
  SERVING_STATES,
  type CounterReading,
  type DumpInfo,
  type Alert,
  type EnsembleSession,
  type RequestHerd,
  type RequestHerdMemory,
  type RequestHerdThresholds,
  type KnownList,
  type MemberStatus,
  type SessionsAnswer,
  type SilenceSighting,
  type WatchSighting,
} from '@keeper/shared';
import type { Logger } from 'pino';
import { askMember } from './memberAsk.js';
import { RateLimitedGather } from './gatherCache.js';
import type { MemberTarget } from './memberTargets.js';
import type { MemberTransport } from './transport.js';

export interface MemberView {
  targets(): MemberTarget[];
  statuses(): MemberStatus[];
}

export interface SessionsCollectorOptions {
  ensemble: string;
  members: MemberView;
  transport: MemberTransport;
  /** The console's own session id ("0x..."), to mark it in the list. */
  consoleSessionId: () => string | null;
  minIntervalMs?: number;
  /** A read gathers again when the last gathering is older than this. */
  cadenceMs?: number;
  /**
   * Znodes with their child count and pzxid that Keeper already holds (the watch registry's), to
   * name the node a herd hammers without asking ZooKeeper anything.
   */
  heldLists?: () => readonly HeldList[];
  herdThresholds?: Partial<RequestHerdThresholds>;
  log: Logger;
  now?: () => number;
}

export interface HeldList {
  path: string;
  numChildren: number;
  pzxid: string;
}

type Gap = SessionsAnswer['gaps'][number];
/** One gathering, as kept (and, with the replicas' sharedPolling, published to the other replicas). */
export type SessionsGathering = Omit<SessionsAnswer, 'nextGatherInSeconds'>;
type Gathering = SessionsGathering;

export const DEFAULT_SESSIONS_CADENCE_MS = 60_000;
export const DEFAULT_SESSIONS_MIN_INTERVAL_MS = 10_000;
const DUMP_ORDER: readonly string[] = ['leader', 'standalone', 'follower', 'observer'];
const DUMP_ATTEMPTS = 2;

export class SessionsCollector {
  private readonly gather: RateLimitedGather<Gathering>;
  private readonly now: () => number;
  readonly cadenceMs: number;
  private sightings = new Map<string, SilenceSighting>();
  private readings = new Map<string, CounterReading>();
  private previousGatheredAt: number | null = null;
  private listVersions = new Map<string, string>();
  private herdMemory: RequestHerdMemory = NO_REQUEST_HERD;
  private readonly watchSources: (() => WatchSighting | null)[] = [];
  /** Views that want gatherings without reading them (the ensemble view, for the herd alert). */
  private keepers = 0;
  private keepTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: SessionsCollectorOptions) {
    this.now = options.now ?? Date.now;
    this.gather = new RateLimitedGather(() => this.gatherOnce(), options.minIntervalMs ?? DEFAULT_SESSIONS_MIN_INTERVAL_MS, this.now);
    this.cadenceMs = Math.max(this.gather.minIntervalMs, options.cadenceMs ?? DEFAULT_SESSIONS_CADENCE_MS);
  }

  /** The rate-limited gathering itself: the replicas' sharedPolling relays it to the polling replica or publishes what it gathers. */
  get shared(): RateLimitedGather<Gathering> {
    return this.gather;
  }

  /** Gatherings started so far (one per rate window, whatever the number of askers). */
  get gatherings(): number {
    return this.gather.gatherings;
  }

  /** Sessions counted by a gathering no older than `maxAgeMs`, else null. */
  recentCount(maxAgeMs: number): number | null {
    const cached = this.gather.cached;
    return cached && this.now() - cached.at <= maxAgeMs ? cached.value.sessions.length : null;
  }

  /** Connections per client host on each member, from a gathering no older than `maxAgeMs`, else null. */
  recentConnectionsByHost(maxAgeMs: number): Map<string, Map<string, number>> | null {
    const cached = this.gather.cached;
    return cached && this.now() - cached.at <= maxAgeMs ? connectionsByClientHost(cached.value.sessions) : null;
  }

  /** The last gathering's sessions if no older than `maxAgeMs`, else null: never gathers (for metrics scrapes). */
  recentSessions(maxAgeMs: number): readonly SessionsAnswer['sessions'][number][] | null {
    const cached = this.gather.cached;
    return cached && this.now() - cached.at <= maxAgeMs ? cached.value.sessions : null;
  }

  /** The sessions: gathered now when asked to (`refresh`) or when the last gathering is older than the cadence, as the rate allows. */
  async get(refresh: boolean): Promise<SessionsAnswer> {
    const cached = this.gather.cached;
    const outdated = cached !== null && this.now() - cached.at >= this.cadenceMs;
    const { value, at } = await this.gather.get(refresh || outdated);
    const allowedInMs = this.gather.nextAllowedInMs();
    // When a read will gather again: once this gathering is a cadence old (and the rate allows).
    const nextMs = Math.max(allowedInMs, at + this.cadenceMs - this.now());
    return {
      ...value,
      nextGatherInSeconds: Math.ceil(nextMs / 1000),
      gatherAllowedInSeconds: Math.ceil(allowedInMs / 1000),
      cadenceSeconds: Math.round(this.cadenceMs / 1000),
    };
  }

  /** A wchp Keeper gathers anyway (the Watches view's, the Locks view's): the herd's paths are read from the newest, never asked for. */
  addWatchSource(source: () => WatchSighting | null): void {
    this.watchSources.push(source);
  }

  private newestWatches(): WatchSighting | null {
    let newest: WatchSighting | null = null;
    for (const source of this.watchSources) {
      const sighting = source();
      if (sighting && (!newest || sighting.gatheredAt > newest.gatheredAt)) newest = sighting;
    }
    return newest;
  }

  /**
   * The herd alert of the latest gathering when it is no older than `maxAgeMs` (the ensemble's
   * alerts show it beside the poller's own), else null.
   */
  recentHerdAlert(maxAgeMs: number): Alert | null {
    const cached = this.gather.cached;
    if (!cached || this.now() - cached.at > maxAgeMs) return null;
    const alert = cached.value.alerts?.find((a) => a.id === 'request-herd');
    return alert ? { ...alert, asOf: cached.at } : null;
  }

  /**
   * While someone looks at the ensemble view, gather once per cadence as an open sessions view
   * does (the shared gathering: a sessions view open as well costs nothing more), so a request
   * herd shows among the ensemble's alerts without anyone opening the sessions view. Returns how
   * to stop; nothing is gathered once every holder has stopped.
   */
  keepGathering(): () => void {
    this.keepers++;
    if (this.keepers === 1) this.scheduleKeep(0);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.keepers--;
      if (this.keepers === 0 && this.keepTimer) {
        clearTimeout(this.keepTimer);
        this.keepTimer = null;
      }
    };
  }

  private scheduleKeep(delayMs: number): void {
    if (this.keepTimer) clearTimeout(this.keepTimer);
    this.keepTimer = setTimeout(() => {
      this.keepTimer = null;
      if (this.keepers === 0) return;
      void this.get(false)
        .catch((error: unknown) => this.options.log.debug({ ensemble: this.options.ensemble, err: error }, 'background sessions gathering failed'))
        .finally(() => {
          if (this.keepers === 0) return;
          const cached = this.gather.cached;
          const dueIn = cached ? cached.at + this.cadenceMs - this.now() : this.gather.minIntervalMs;
          this.scheduleKeep(Math.max(this.gather.minIntervalMs / 10, dueIn));
        });
    }, delayMs);
    this.keepTimer.unref();
  }

  close(): void {
    this.keepers = 0;
    if (this.keepTimer) clearTimeout(this.keepTimer);
    this.keepTimer = null;
  }

  private async gatherOnce(): Promise<Gathering> {
    const { transport } = this.options;
    const statuses = new Map(this.options.members.statuses().map((s) => [s.address, s]));
    const targets = this.options.members.targets();
    const gaps: Gap[] = [];
    const reachable = targets.filter((t) => {
      const s = statuses.get(t.address);
      if (s && (s.state === 'down' || s.state === 'unreachable')) {
        gaps.push({ member: t.address, reason: `${s.state}: ${s.detail ?? 'not answering'}` });
        return false;
      }
      return true;
    });

    const [consAnswers, dump] = await Promise.all([
      Promise.all(
        reachable.map(async (t) => {
          const askedAt = this.now();
          const answer = await askMember(transport, t, {
            word: 'cons',
            fromText: parseCons,
            admin: { command: 'connections', fromBody: consFromConnections },
            purpose: 'sessions',
          });
          return { member: t.address, answer, askedAt, answeredAt: this.now() };
        }),
      ),
      this.dumpFromOne(reachable, statuses, gaps),
    ]);

    const cons = [];
    // A member we could not ask may hold connections; then "connected to no member" proves nothing.
    let consIncomplete = reachable.length < targets.length;
    for (const { member, answer, askedAt, answeredAt } of consAnswers) {
      if (answer.ok) {
        cons.push({ member, connections: answer.value, askedAt, answeredAt });
        continue;
      }
      gaps.push({ member, reason: answer.reason });
      // A member outside the quorum has closed its client connections: nothing is missing.
      if (!answer.notServing) consIncomplete = true;
    }
    const now = this.now();
    const joined = joinSessions({
      now,
      cons,
      dump,
      consIncomplete,
      consoleSessionId: this.options.consoleSessionId(),
      sightings: this.sightings,
      readings: this.readings,
    });
    this.sightings = joined.sightings;
    this.readings = joined.readings;
    const ratesOverSeconds = this.previousGatheredAt === null ? null : Math.round((now - this.previousGatheredAt) / 1000);
    this.previousGatheredAt = now;
    const tracked = trackRequestHerd(this.herdMemory, {
      now,
      sessions: joined.sessions,
      memberOutstanding: [...statuses.values()].filter((s) => SERVING_STATES.includes(s.state)).map((s) => s.metrics.outstanding),
      knownLists: this.knownLists(),
      watches: this.newestWatches(),
      ...(this.options.herdThresholds ? { thresholds: this.options.herdThresholds } : {}),
    });
    this.herdMemory = tracked.memory;
    const herd = tracked.herd;
    return {
      ensemble: this.options.ensemble,
      gatheredAt: now,
      gaps,
      // The header's "flagged" count and the herd banner say the same thing (issue 34 item 7).
      sessions: herd ? flagHerd(joined.sessions, herd) : joined.sessions,
      ratesOverSeconds,
      herd,
      alerts: herd ? [herdAlert(herd)] : [],
    };
  }

  /** The held child lists, each marked when its pzxid moved since the previous gathering. */
  private knownLists(): KnownList[] {
    const lists = this.options.heldLists?.() ?? [];
    const previous = this.listVersions;
    this.listVersions = new Map(lists.map((l) => [l.path, l.pzxid]));
    return lists.map((l) => ({ path: l.path, numChildren: l.numChildren, pzxidChanging: previous.has(l.path) && previous.get(l.path) !== l.pzxid }));
  }

  /** `dump` from the leader (it knows expiry times), else another serving member. */
  private async dumpFromOne(targets: readonly MemberTarget[], statuses: ReadonlyMap<string, MemberStatus>, gaps: Gap[]): Promise<DumpInfo | null> {
    const rank = (t: MemberTarget) => {
      const state = statuses.get(t.address)?.state;
      const i = state && SERVING_STATES.includes(state) ? DUMP_ORDER.indexOf(state) : -1;
      return i === -1 ? DUMP_ORDER.length : i;
    };
    const candidates = [...targets].sort((a, b) => rank(a) - rank(b)).slice(0, DUMP_ATTEMPTS);
    const reasons: string[] = [];
    for (const t of candidates) {
      const answer = await askMember(this.options.transport, t, {
        word: 'dump',
        fromText: parseDump,
        admin: { command: 'dump', fromBody: dumpFromAdmin },
        purpose: 'sessions',
      });
      if (answer.ok) return answer.value;
      reasons.push(`${t.address}: ${answer.reason}`);
    }
    gaps.push({
      member: candidates[0]?.address ?? '',
      reason: `dump (ephemerals, disconnected sessions) unavailable: ${reasons.join('; ') || 'no member to ask'}`,
    });
    return null;
  }
}

/** Each session the herd names carries a flag saying so. */
function flagHerd(sessions: EnsembleSession[], herd: RequestHerd): EnsembleSession[] {
  const ids = new Set(herd.sessionIds ?? []);
  const message = `One of ${herd.sessions.toLocaleString('en-US')} sessions the request herd names: together they send ${herd.requestsPerSecond.toLocaleString('en-US')} req/s${herd.operation ? ` of ${operationName(herd.operation)}` : ''}.`;
  return sessions.map((s) => (ids.has(s.sessionId) ? { ...s, flags: [...s.flags, { kind: 'request-herd' as const, message }] } : s));
}
