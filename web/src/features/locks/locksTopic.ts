/**
 * The `locks` and `lock` topics in the web: the server recomputes a lock's report after every
 * change its watches see and sends a whole snapshot, so an entry is simply the latest one, with
 * the socket epoch it came on (freshness) or the server's refusal in words.
 */
import { LOCK_LIST_PAGE, type LockAnswer, type LocksAnswer, type TopicParams } from '@keeper/shared';
import { useMemo } from 'react';
import { useTopic } from '../../socket/hooks';
import { RELEASED_EPOCH } from '../../socket/topicRegistry';
import { defineBinding } from '../../socket/defineBinding';

export type LocksEntry = { kind: 'locks'; locks: LocksAnswer; epoch: number } | { kind: 'refused'; message: string; epoch: number };

export type LockEntry =
  | { kind: 'lock'; lock: LockAnswer; epoch: number }
  /** The directory is absent or not a recognized lock (any more): said in words, with when. */
  | { kind: 'notLock'; path: string; message: string; at: number; epoch: number }
  | { kind: 'refused'; message: string; epoch: number };

/** One page of the list: the filter the server applies over all locks, and how many it sends. */
export type LocksPage = Required<TopicParams<'locks'>>;
export const FIRST_PAGE: LocksPage = { q: '', limit: LOCK_LIST_PAGE };

export const locksQueryKey = (ensemble: string, page: TopicParams<'locks'> = FIRST_PAGE) =>
  ['ensembles', ensemble, 'locks', 'page', page.q ?? '', page.limit ?? LOCK_LIST_PAGE] as const;
export const lockQueryKey = (ensemble: string, path: string) => ['ensembles', ensemble, 'locks', 'lock', path] as const;

export const locksBinding = defineBinding<LocksEntry>()({
  topic: 'locks',
  queryKey: (ensemble, params) => locksQueryKey(ensemble, params),
  reduce: (_prev, event, { epoch }) => ({ kind: 'locks', locks: event.locks, epoch }),
  refused: (_prev, message, { epoch }) => ({ kind: 'refused', message, epoch }),
  released: (prev) => ({ ...prev, epoch: RELEASED_EPOCH }),
});

export const lockBinding = defineBinding<LockEntry>()({
  topic: 'lock',
  queryKey: (ensemble, params) => lockQueryKey(ensemble, params.path),
  reduce: (_prev, event, { epoch }) =>
    event.kind === 'lock' ? { kind: 'lock', lock: event.lock, epoch } : { kind: 'notLock', path: event.path, message: event.message, at: event.at, epoch },
  refused: (_prev, message, { epoch }) => ({ kind: 'refused', message, epoch }),
  released: (prev) => ({ ...prev, epoch: RELEASED_EPOCH }),
});

/** Holds the `locks` subscription for one page while mounted and reads its latest snapshot. */
export function useLocksEntry(ensemble: string, page: LocksPage = FIRST_PAGE): LocksEntry | undefined {
  // The server's defaults are not sent: the first page's subscription is the same for every tab.
  const params = useMemo(() => ({ ...(page.q ? { q: page.q } : {}), ...(page.limit !== LOCK_LIST_PAGE ? { limit: page.limit } : {}) }), [page.q, page.limit]);
  useTopic('locks', ensemble, params);
  return locksBinding.useEntry(ensemble, params);
}

/** Holds one lock directory's subscription while mounted (the server watches it for us) and reads it. */
export function useLockEntry(ensemble: string, path: string): LockEntry | undefined {
  useTopic('lock', ensemble, { path });
  return lockBinding.useEntry(ensemble, { path });
}
