/**
 * What features build their hooks from: hold a topic subscription while mounted (the entry the
 * topic's binding keeps is read with its `useEntry`, defineBinding.ts). Socket-fed queries never fetch (skipToken): the socket
 * is their only writer.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { skipToken } from '@tanstack/react-query';
import { subscriptionKey, type TopicName, type TopicParams } from '@keeper/shared';
import type { ConnectionStatus } from './connectionStatus';
import { useSocket } from './socketContext';

export function useConnectionStatus(): ConnectionStatus {
  const { status } = useSocket();
  return useSyncExternalStore(status.subscribe, status.get);
}

/** Subscribes to a topic while the calling component is mounted (nothing while `ensemble` is unset). */
export function useTopic<T extends TopicName>(topic: T, ensemble: string | undefined, params: TopicParams<T> | null): void {
  useTopics(topic, ensemble, params === null ? [] : [params]);
}

/**
 * Subscribes to many parameter sets of one topic, e.g. every expanded tree node. Re-running with a
 * slightly different set is cheap: the client's release grace period keeps unchanged ones subscribed.
 */
export function useTopics<T extends TopicName>(topic: T, ensemble: string | undefined, paramsList: readonly TopicParams<T>[]): void {
  const { client } = useSocket();
  // One string for the whole set keeps the effect from re-running when the caller builds a new but equal array.
  const key = JSON.stringify(paramsList.map((p) => subscriptionKey(topic, ensemble ?? '', p)));
  useEffect(() => {
    if (!ensemble || paramsList.length === 0) return;
    const releases = paramsList.map((p) => client.subscribe(topic, ensemble, p));
    return () => releases.forEach((release) => release());
    // paramsList is captured through `key`: the same key means the same subscriptions.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, topic, ensemble, key]);
}

export const socketFed = { queryFn: skipToken, staleTime: Infinity } as const;
