/**
 * The `consoleSession` topic in the web: the console's own ZooKeeper session with an ensemble,
 * which every freshness judgement starts from. Reading it holds its subscription; the socket's
 * welcome seeds it so the first paint needs no round trip.
 */
import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { useTopic } from '../../socket/hooks';
import { defineBinding } from '../../socket/defineBinding';
import { seenAs } from './connectionWords';

/** The console's session for one ensemble, with the socket epoch it arrived on. */
export interface SessionEntry {
  snapshot: ConsoleSessionSnapshot;
  epoch: number;
}

export const consoleSessionQueryKey = (ensemble: string) => ['ensembles', ensemble, 'session'] as const;

export const consoleSessionBinding = defineBinding<SessionEntry>()({
  topic: 'consoleSession',
  queryKey: (ensemble) => consoleSessionQueryKey(ensemble),
  reduce: (_prev, event, { epoch }) => ({ snapshot: event.session, epoch }),
});

const NO_PARAMS = {};

export function useSessionEntry(ensemble: string | undefined): SessionEntry | undefined {
  useTopic('consoleSession', ensemble, NO_PARAMS);
  return consoleSessionBinding.useEntry(ensemble ?? '', NO_PARAMS, !!ensemble);
}

/** "ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1" on this ensemble (whoAmI), for NO_AUTH explanations; null when not known. */
export function useSeenAs(ensemble: string): string | null {
  const connection = useSessionEntry(ensemble)?.snapshot.connection;
  return connection?.identity ? seenAs(connection.identity) : null;
}
