/**
 * What components use: hold a subscription while mounted, read what the socket put in the cache.
 * Socket-fed queries never fetch (skipToken): the socket is their only writer.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { skipToken, useQueries, useQuery } from '@tanstack/react-query';
import type { ChildrenEntry, HealthEntry, MemberHistoryEntry, SubscriptionErrorEntry, ZnodeEntry } from './cacheEntries';
import type { ConnectionStatus } from './connectionStatus';
import { queryKeys } from './queryKeys';
import type { SessionEntry } from './sessionEntry';
import { useSocket } from './socketContext';

export function useConnectionStatus(): ConnectionStatus {
  const { status } = useSocket();
  return useSyncExternalStore(status.subscribe, status.get);
}

/** Subscribes to a znode (its state and its children) while the calling component is mounted. */
export function useSubscription(ensemble: string | undefined, path: string | null | undefined): void {
  const { client } = useSocket();
  useEffect(() => {
    if (!ensemble || !path) return;
    return client.subscribe(ensemble, path);
  }, [client, ensemble, path]);
}

/** Watches an ensemble's member health while mounted; read it with useHealthEntry. */
export function useEnsembleWatch(ensemble: string | undefined): void {
  const { client } = useSocket();
  useEffect(() => {
    if (!ensemble) return;
    return client.watchEnsemble(ensemble);
  }, [client, ensemble]);
}

/**
 * Subscribes to a set of paths, e.g. every expanded tree node. Re-running with a slightly
 * different set is cheap: the client's release grace period keeps unchanged paths subscribed.
 */
export function useSubscriptions(ensemble: string | undefined, paths: readonly string[]): void {
  const { client } = useSocket();
  // A NUL-joined key keeps the effect from re-running when the caller builds a new but equal array.
  const key = paths.join('\u0000');
  useEffect(() => {
    if (!ensemble || key === '') return;
    const releases = key.split('\u0000').map((p) => client.subscribe(ensemble, p));
    return () => releases.forEach((release) => release());
  }, [client, ensemble, key]);
}

const socketFed = { queryFn: skipToken, staleTime: Infinity } as const;

export function useZnodeEntry(ensemble: string, path: string): ZnodeEntry | undefined {
  return useQuery<ZnodeEntry>({ queryKey: queryKeys.znode(ensemble, path), ...socketFed }).data;
}

export function useChildrenEntry(ensemble: string, path: string): ChildrenEntry | undefined {
  return useQuery<ChildrenEntry>({ queryKey: queryKeys.children(ensemble, path), ...socketFed }).data;
}

export function useSessionEntry(ensemble: string | undefined): SessionEntry | undefined {
  return useQuery<SessionEntry>({ queryKey: queryKeys.session(ensemble ?? ''), ...socketFed, enabled: !!ensemble }).data;
}

export function useHealthEntry(ensemble: string): HealthEntry | undefined {
  return useQuery<HealthEntry>({ queryKey: queryKeys.health(ensemble), ...socketFed }).data;
}

export function useMemberHistoryEntry(ensemble: string): MemberHistoryEntry | undefined {
  return useQuery<MemberHistoryEntry>({ queryKey: queryKeys.memberHistory(ensemble), ...socketFed }).data;
}

export function useSubscriptionError(ensemble: string, path: string): SubscriptionErrorEntry | null {
  return useQuery<SubscriptionErrorEntry | null>({ queryKey: queryKeys.subscriptionError(ensemble, path), ...socketFed }).data ?? null;
}

/** Children and znode entries of many paths at once (the tree), in the order given. */
export function useTreeEntries(
  ensemble: string,
  paths: readonly string[],
): { children: Map<string, ChildrenEntry>; znodes: Map<string, ZnodeEntry> } {
  return useQueries({
    queries: paths.flatMap((p) => [
      { queryKey: queryKeys.children(ensemble, p), ...socketFed },
      { queryKey: queryKeys.znode(ensemble, p), ...socketFed },
    ]),
    combine: (results) => {
      const children = new Map<string, ChildrenEntry>();
      const znodes = new Map<string, ZnodeEntry>();
      paths.forEach((p, i) => {
        const c = results[i * 2]?.data as ChildrenEntry | undefined;
        const z = results[i * 2 + 1]?.data as ZnodeEntry | undefined;
        if (c) children.set(p, c);
        if (z) znodes.set(p, z);
      });
      return { children, znodes };
    },
  });
}
