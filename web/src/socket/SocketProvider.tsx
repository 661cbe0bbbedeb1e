/**
 * Owns the one SocketClient of the page and feeds what it hears into the TanStack Query cache.
 * Components never touch the socket: they hold subscriptions (useSubscription) and read the cache.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { notifyManager, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { EnsembleSummary } from '@keeper/shared';
import { createStore, type Store } from '../lib/store';
import { SocketContext, type SocketContextValue } from './socketContext';
import { applyRefusal, applyServerEvents, markReleased } from './applyServerEvents';
import type { ConnectionStatus } from './connectionStatus';
import { queryKeys } from './queryKeys';
import { SocketClient, type SocketEnv, type SocketLike } from './SocketClient';

function socketUrl(): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}/ws`;
}

const browserEnv: SocketEnv = {
  // WebSocket's handler types name DOM event classes; SocketLike keeps only the fields used, so tests need no DOM.
  createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
  now: () => Date.now(),
  random: () => Math.random(),
  isVisible: () => document.visibilityState === 'visible',
  onWakeUp(callback) {
    const onVisibility = () => {
      if (document.visibilityState === 'visible') callback();
    };
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('online', callback);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('online', callback);
    };
  },
  setTimeout: (fn, ms) => window.setTimeout(fn, ms),
  clearTimeout: (handle) => window.clearTimeout(handle as number),
};

function createSocketContext(queryClient: QueryClient): SocketContextValue {
  let status: Store<ConnectionStatus> | null = null;
  const client = new SocketClient(socketUrl(), browserEnv, {
    onStatus: (s) => status?.set(s),
    onWelcome(message, epoch) {
      notifyManager.batch(() => {
        queryClient.setQueryData<EnsembleSummary[]>(queryKeys.ensembles(), message.ensembles);
        // The welcome carries each console session: fed as the topic's first event, so the
        // first paint needs no round trip.
        const now = Date.now();
        const sessions = message.ensembles.map((e) => ({ topic: 'consoleSession' as const, ensemble: e.name, params: {}, event: { session: e.session } }));
        applyServerEvents(queryClient, sessions, { epoch, now });
      });
    },
    onBatch(events, epoch) {
      notifyManager.batch(() => applyServerEvents(queryClient, events, { epoch, now: Date.now() }));
    },
    onError(message, target) {
      if (target && applyRefusal(queryClient, target, message.message, { epoch: client.getStatus().epoch, now: Date.now() })) return;
      console.warn(`keeper: server error ${message.code}: ${message.message}`);
    },
    onReleased: (target) => markReleased(queryClient, target),
  });
  status = createStore(client.getStatus());
  return { client, status };
}

export function SocketProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [value] = useState(() => createSocketContext(queryClient));
  useEffect(() => {
    value.client.start();
    return () => value.client.stop();
  }, [value]);
  return <SocketContext.Provider value={value}>{children}</SocketContext.Provider>;
}
