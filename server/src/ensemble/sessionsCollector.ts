/**
 * The ensemble's sessions: `cons` on every member (each knows only its own connections)
 * joined with ONE member's `dump` (the leader's when it answers: it alone knows when each
 * session expires). cons and dump are among the expensive words, so a gathering happens
 * on demand at most once per `minIntervalMs` per ensemble, concurrent requests share it,
 * and a slow cadence keeps it fresh only while someone has asked recently. Never per browser.
 */
import {
  consFromConnections,
  dumpFromAdmin,
  joinSessions,
  parseCons,
  parseDump,
  SERVING_STATES,
  type DumpInfo,
  type MemberStatus,
  type SessionsResponse,
  type SilenceSighting,
} from '@keeper/shared';
import type { Logger } from 'pino';
import { askMember } from './memberAsk.js';
import { InterestCadence, RateLimitedGather } from './gatherCache.js';
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
  cadenceMs?: number;
  interestWindowMs?: number;
  log: Logger;
}

type Gap = SessionsResponse['gaps'][number];
type Gathering = Omit<SessionsResponse, 'nextGatherInSeconds'>;

const DUMP_ORDER: readonly string[] = ['leader', 'standalone', 'follower', 'observer'];
const DUMP_ATTEMPTS = 2;

export class SessionsCollector {
  private readonly gather: RateLimitedGather<Gathering>;
  private readonly cadence: InterestCadence;
  private sightings = new Map<string, SilenceSighting>();

  constructor(private readonly options: SessionsCollectorOptions) {
    this.gather = new RateLimitedGather(() => this.gatherOnce(), options.minIntervalMs ?? 10_000);
    this.cadence = new InterestCadence(
      () => void this.gather.get(true).catch((error: unknown) => options.log.debug({ err: error }, 'background sessions gathering failed')),
      options.cadenceMs ?? 60_000,
      options.interestWindowMs ?? 5 * 60_000,
    );
  }

  /** Gatherings started so far (one per rate window, whatever the number of askers). */
  get gatherings(): number {
    return this.gather.gatherings;
  }

  get cachedCount(): number | null {
    return this.gather.cached?.value.sessions.length ?? null;
  }

  async get(refresh: boolean): Promise<SessionsResponse> {
    this.cadence.touch();
    const { value } = await this.gather.get(refresh);
    return { ...value, nextGatherInSeconds: Math.ceil(this.gather.nextAllowedInMs() / 1000) };
  }

  close(): void {
    this.cadence.close();
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
        reachable.map(async (t) => ({
          member: t.address,
          answer: await askMember(transport, t, {
            word: 'cons',
            fromText: parseCons,
            admin: { command: 'connections', fromBody: consFromConnections },
            purpose: 'sessions',
          }),
        })),
      ),
      this.dumpFromOne(reachable, statuses, gaps),
    ]);

    const cons = [];
    // A member we could not ask may hold connections; then "connected to no member" proves nothing.
    let consIncomplete = reachable.length < targets.length;
    for (const { member, answer } of consAnswers) {
      if (answer.ok) {
        cons.push({ member, connections: answer.value });
        continue;
      }
      gaps.push({ member, reason: answer.reason });
      // A member outside the quorum has closed its client connections: nothing is missing.
      if (!answer.notServing) consIncomplete = true;
    }
    const now = Date.now();
    const joined = joinSessions({ now, cons, dump, consIncomplete, consoleSessionId: this.options.consoleSessionId(), sightings: this.sightings });
    this.sightings = joined.sightings;
    return { ensemble: this.options.ensemble, gatheredAt: now, gaps, sessions: joined.sessions };
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
      const answer = await askMember(this.options.transport, t, { word: 'dump', fromText: parseDump, admin: { command: 'dump', fromBody: dumpFromAdmin }, purpose: 'sessions' });
      if (answer.ok) return answer.value;
      reasons.push(`${t.address}: ${answer.reason}`);
    }
    gaps.push({ member: candidates[0]?.address ?? '', reason: `dump (ephemerals, disconnected sessions) unavailable: ${reasons.join('; ') || 'no member to ask'}` });
    return null;
  }
}
