import type { ConsoleSessionSnapshot } from '@keeper/shared';

/** The console's session for one ensemble, with the socket epoch it arrived on. */
export interface SessionEntry {
  snapshot: ConsoleSessionSnapshot;
  epoch: number;
}
