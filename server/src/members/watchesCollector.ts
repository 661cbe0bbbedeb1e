/**
 * Watches: `wchs` per member (cheap; cached for a few seconds so a page of refreshes costs
 * one round), and `wchp` only when asked for explicitly, at most once per `byPathMinIntervalMs`
 * (>= 30 s) per ensemble with one shared result: ZooKeeper holds a lock while it walks every
 * watch for wchp, which can hurt a busy ensemble.
 */
import {
  detectWatchHerds,
  mergeWatchesByPath,
  normalizeSessionId,
  parseWchp,
  parseWchs,
  SERVING_STATES,
  WATCH_COST_WARNING,
  wchpFromAdmin,
  wchsFromAdmin,
  type WatchesAnswer,
  type WatchSighting,
} from '@keeper/shared';
import { askMember } from './memberAsk.js';
import { RateLimitedGather } from './gatherCache.js';
import type { MemberView } from './sessionsCollector.js';
import type { MemberTransport } from './transport.js';

export interface WatchesCollectorOptions {
  ensemble: string;
  members: MemberView;
  transport: MemberTransport;
  /** Sessions on the ensemble, when known (the share rule of herd detection needs it). */
  totalSessions: () => number | null;
  /** The console's own session id, to mark the watches Keeper itself holds in wchp. */
  consoleSessionId?: () => string | null;
  summaryMaxAgeMs?: number;
  byPathMinIntervalMs?: number;
}

/** wchs on every member, and wchp on every member merged (each published as is with the replicas' sharedPolling). */
export type WatchSummary = WatchesAnswer['summary'];
export type WatchesByPath = NonNullable<WatchesAnswer['byPath']>;
type Summary = WatchSummary;
type ByPath = WatchesByPath;

/** How many paths the answer lists (herds are computed over all of them). */
export const TOP_PATHS = 100;

export class WatchesCollector {
  private readonly summary: RateLimitedGather<Summary>;
  private readonly byPath: RateLimitedGather<ByPath>;

  constructor(private readonly options: WatchesCollectorOptions) {
    this.summary = new RateLimitedGather(() => this.gatherSummary(), options.summaryMaxAgeMs ?? 5_000);
    this.byPath = new RateLimitedGather(() => this.gatherByPath(), Math.max(30_000, options.byPathMinIntervalMs ?? 30_000));
  }

  /** The two rate-limited gatherings: the replicas' sharedPolling relays them or publishes what they gather. */
  get shared(): { summary: RateLimitedGather<Summary>; byPath: RateLimitedGather<ByPath> } {
    return { summary: this.summary, byPath: this.byPath };
  }

  get byPathGatherings(): number {
    return this.byPath.gatherings;
  }

  /** The last wchp gathered for someone who asked, as the herd detection reads it (no new request). */
  lastSighting(): WatchSighting | null {
    const cached = this.byPath.cached?.value;
    if (!cached) return null;
    return { gatheredAt: cached.gatheredAt, complete: cached.gaps.length === 0, source: 'watches', paths: cached.paths };
  }

  async get(byPath: boolean): Promise<WatchesAnswer> {
    const [summary, paths] = await Promise.all([this.summary.get(true), byPath ? this.byPath.get(true) : Promise.resolve(this.byPath.cached)]);
    return {
      ensemble: this.options.ensemble,
      summary: summary.value,
      byPath: paths?.value ?? null,
      costWarning: WATCH_COST_WARNING,
      byPathNextInSeconds: Math.ceil(this.byPath.nextAllowedInMs() / 1000),
    };
  }

  /** Members worth asking: not known to be down, unreachable or outside the quorum. */
  private askable() {
    const statuses = new Map(this.options.members.statuses().map((s) => [s.address, s]));
    return this.options.members.targets().map((t) => ({ target: t, status: statuses.get(t.address) ?? null }));
  }

  private async gatherSummary(): Promise<Summary> {
    return Promise.all(
      this.askable().map(async ({ target, status }) => {
        const row = { member: target.address, connections: null, paths: null, watches: null };
        if (status && !SERVING_STATES.includes(status.state)) return { ...row, error: `${status.state}: ${status.detail ?? 'not serving'}` };
        const answer = await askMember(this.options.transport, target, {
          word: 'wchs',
          fromText: parseWchs,
          admin: { command: 'watch_summary', fromBody: wchsFromAdmin },
          purpose: 'watches',
        });
        if (!answer.ok) return { ...row, error: answer.reason };
        if (!answer.value) return { ...row, error: 'unreadable wchs answer' };
        return { member: target.address, ...answer.value, error: null };
      }),
    );
  }

  private async gatherByPath(): Promise<ByPath> {
    const gaps: ByPath['gaps'] = [];
    const perMember: Map<string, string[]>[] = [];
    await Promise.all(
      this.askable().map(async ({ target, status }) => {
        if (status && !SERVING_STATES.includes(status.state)) {
          gaps.push({ member: target.address, reason: `${status.state}: ${status.detail ?? 'not serving'}` });
          return;
        }
        const answer = await askMember(this.options.transport, target, {
          word: 'wchp',
          fromText: parseWchp,
          admin: { command: 'watches_by_path', fromBody: wchpFromAdmin },
          purpose: 'watches',
        });
        if (answer.ok) perMember.push(answer.value);
        else gaps.push({ member: target.address, reason: answer.reason });
      }),
    );
    const paths = mergeWatchesByPath(perMember);
    const raw = this.options.consoleSessionId?.() ?? null;
    const consoleSessionId = raw === null ? null : normalizeSessionId(raw);
    return {
      gatheredAt: Date.now(),
      paths: paths.slice(0, TOP_PATHS).map((p) => ({ ...p, byConsole: consoleSessionId !== null && p.sessions.includes(consoleSessionId) })),
      herds: detectWatchHerds(paths, this.options.totalSessions()),
      gaps,
      distinctPaths: paths.length,
      consoleSessionId,
    };
  }
}
