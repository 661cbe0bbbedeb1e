/**
 * The health of the other replicas, as GET /api/replicas says it: each peer's own GET /api/health,
 * asked at the URL it registered, with a deadline. ZooKeeper's registry says a replica's state
 * session lives; a process that is killed stays registered until that session times out, and one
 * that is frozen or whose ensembles are away stays registered for good. Asking it says which.
 *
 * Bounded: at most one probe per peer in flight, and an answer is reused for REUSE_MS, so any
 * number of admins looking at the panel cost each peer one request per REUSE_MS at most.
 */
import { healthSchema, type ReplicaHealth } from '@keeper/shared';

export const PROBE_DEADLINE_MS = 1_500;
const REUSE_MS = 2_000;

export class PeerHealth {
  private readonly last = new Map<string, { at: number; health: Promise<ReplicaHealth> }>();
  /** When each peer last answered a probe (serving or degraded): what is known of a peer that went silent. */
  private readonly answered = new Map<string, number>();

  constructor(private readonly probe: (url: string, signal: AbortSignal) => Promise<Response> = (url, signal) => fetch(url, { signal })) {}

  /** The peer at `url` (its own address, not the load balancer's), asked now or at most REUSE_MS ago. */
  of(url: string): Promise<ReplicaHealth> {
    const now = Date.now();
    const known = this.last.get(url);
    if (known && now - known.at < REUSE_MS) return known.health;
    const health = this.ask(url);
    this.last.set(url, { at: now, health });
    return health;
  }

  /** Forgets peers no longer registered (the map stays as small as the registry). */
  keepOnly(urls: Iterable<string>): void {
    const keep = new Set(urls);
    for (const url of this.last.keys()) if (!keep.has(url)) this.last.delete(url);
    for (const url of this.answered.keys()) if (!keep.has(url)) this.answered.delete(url);
  }

  private async ask(url: string): Promise<ReplicaHealth> {
    const health = await this.probeOnce(url);
    if (health.state !== 'unreachable') this.answered.set(url, health.checkedAt + (health.answeredInMs ?? 0));
    return { ...health, lastAnsweredAt: this.answered.get(url) ?? null };
  }

  private async probeOnce(url: string): Promise<ReplicaHealth> {
    const checkedAt = Date.now();
    try {
      const res = await this.probe(`${url}/api/health`, AbortSignal.timeout(PROBE_DEADLINE_MS));
      const answeredInMs = Date.now() - checkedAt;
      if (!res.ok) return { state: 'unreachable', checkedAt, answeredInMs, detail: `answered ${res.status} at ${url}` };
      const parsed = healthSchema.safeParse(await res.json());
      if (!parsed.success) return { state: 'unreachable', checkedAt, answeredInMs, detail: `answered something that is not Keeper's health at ${url}` };
      const down = parsed.data.ensembles.filter((e) => e.state !== 'connected' && e.state !== 'readOnly');
      if (parsed.data.status === 'ok') return { state: 'serving', checkedAt, answeredInMs, detail: `up ${parsed.data.uptimeSeconds} s` };
      return {
        state: 'degraded',
        checkedAt,
        answeredInMs,
        detail: down.length ? `not connected to ${down.map((e) => `${e.name} (${e.state})`).join(', ')}` : 'degraded',
      };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
      return {
        state: 'unreachable',
        checkedAt,
        detail: timedOut ? `no answer from ${url} within ${PROBE_DEADLINE_MS / 1000} s` : `cannot reach ${url} from this replica (${cause})`,
      };
    }
  }
}

/** The answering replica needs no probe: it is serving, since it answers. */
export function selfHealth(now: number): ReplicaHealth {
  return { state: 'serving', checkedAt: now, detail: 'answering this request', lastAnsweredAt: now };
}
