/**
 * What every long workflow (a rolling upgrade, a resize) shares about who runs it and what it
 * watches: how long a new Keeper process waits for a dead one's lock, and the health feed a
 * runner's gates read. Upgrades and resizes import these; neither imports the other.
 */
import type { EnsembleHealth } from '@keeper/shared';

/** What a runner reads of the member poller. */
export interface HealthSource {
  current(): EnsembleHealth | null;
  subscribe(listener: (health: EnsembleHealth) => void): () => void;
  /** Polls at this cadence while a workflow is under way (null: the configured one again). */
  setBrisk?(intervalMs: number | null): void;
}

/** A session that outlived its Keeper ends within its timeout; twice that allows for the members' own expiry tick. */
export function lockTakeoverWaitMs(configured: number | undefined, sessionTimeoutMs: number): number {
  return configured ?? Math.min(2 * sessionTimeoutMs + 5_000, 5 * 60_000);
}
