/**
 * Writes one server batch into the query cache. Called inside notifyManager.batch by the provider,
 * so a batch of 300 children diffs and znode updates costs one render, not 300.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { ServerEvent } from '@keeper/shared';
import {
  reduceChildren,
  reduceMemberHistory,
  reduceZnode,
  type ChildrenEntry,
  type HealthEntry,
  type MemberHistoryEntry,
  type SubscriptionErrorEntry,
  type ZnodeEntry,
} from './cacheEntries';
import { queryKeys } from './queryKeys';
import type { SessionEntry } from './sessionEntry';
import type { SubscriptionTarget } from './subscriptionRegistry';
import type { WatchEventRecord } from '../features/watchEvents/watchEventLog';

/** Returns the watch events of the batch (oldest first) for the event log. */
export function applyServerEvents(
  client: QueryClient,
  events: readonly ServerEvent[],
  epoch: number,
  now: number,
): Omit<WatchEventRecord, 'seq'>[] {
  const watchEvents: Omit<WatchEventRecord, 'seq'>[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'session':
        client.setQueryData<SessionEntry>(queryKeys.session(event.ensemble), { snapshot: event.session, epoch });
        break;
      case 'znode':
        client.setQueryData<ZnodeEntry>(queryKeys.znode(event.ensemble, event.path), (prev) => reduceZnode(prev, event, epoch));
        // Fresh data answers any earlier "cannot read this path".
        clearSubscriptionError(client, event.ensemble, event.path);
        break;
      case 'children':
        client.setQueryData<ChildrenEntry>(queryKeys.children(event.ensemble, event.path), (prev) =>
          reduceChildren(prev, event, epoch, now),
        );
        break;
      case 'watchEvent':
        watchEvents.push({ ensemble: event.ensemble, path: event.path, event: event.event, at: event.at });
        break;
      case 'ensembleHealth':
        client.setQueryData<HealthEntry>(queryKeys.health(event.ensemble), { health: event.health, epoch });
        break;
      case 'memberHistory':
        client.setQueryData<MemberHistoryEntry>(queryKeys.memberHistory(event.ensemble), (prev) => reduceMemberHistory(prev, event, epoch));
        break;
      case 'subscriptionError':
        client.setQueryData<SubscriptionErrorEntry>(queryKeys.subscriptionError(event.ensemble, event.path), {
          message: event.message,
          retrying: event.retrying,
          at: now,
          epoch,
        });
        break;
      case 'job':
        // Progress of recursive deletes and imports, for admins (docs/access-and-admin-api.md):
        // kept under its own key so a progress view can read it.
        client.setQueryData(['jobs', event.job.id], event.job);
        break;
      default: {
        const never: never = event;
        console.warn('keeper: unhandled server event', never);
      }
    }
  }
  return watchEvents;
}

function clearSubscriptionError(client: QueryClient, ensemble: string, path: string): void {
  const key = queryKeys.subscriptionError(ensemble, path);
  if (client.getQueryData(key) !== undefined) client.setQueryData(key, null);
}

/** Epoch given to entries nobody subscribes to any more: never equal to a live connection's epoch. */
export const RELEASED_EPOCH = -1;

/** Marks the cached state of a target as no longer followed, so nothing shows it as live. */
export function markReleased(client: QueryClient, target: SubscriptionTarget): void {
  const keys =
    target.kind === 'znode'
      ? [queryKeys.znode(target.ensemble, target.path), queryKeys.children(target.ensemble, target.path)]
      : [queryKeys.health(target.ensemble), queryKeys.memberHistory(target.ensemble)];
  for (const key of keys) {
    client.setQueryData<{ epoch: number }>(key, (prev) => (prev === undefined ? prev : { ...prev, epoch: RELEASED_EPOCH }));
  }
}
