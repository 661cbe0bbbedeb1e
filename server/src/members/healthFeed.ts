/**
 * What the socket hub needs from an ensemble's member poller: the latest result, the kept
 * history, and a way to hear about each new poll. One poller per ensemble feeds every browser.
 */
import type { EnsembleHealth, MemberHistory } from '@keeper/shared';

export interface HealthFeed {
  current(): EnsembleHealth | null;
  /** Everything kept (~15 minutes), per member address, oldest first. */
  history(): MemberHistory;
  /** Called after every poll with the new result and the points it added; returns unsubscribe. */
  subscribe(listener: (health: EnsembleHealth, appended: MemberHistory) => void): () => void;
}
