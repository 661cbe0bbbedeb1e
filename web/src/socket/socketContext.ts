/** The socket the provider owns, for hooks; kept apart from the component so Fast Refresh can reload the provider alone. */
import { createContext, useContext } from 'react';
import type { Store } from '../lib/store';
import type { ConnectionStatus } from './connectionStatus';
import type { SocketClient } from './SocketClient';

export interface SocketContextValue {
  client: SocketClient;
  status: Store<ConnectionStatus>;
}

export const SocketContext = createContext<SocketContextValue | null>(null);

export function useSocket(): SocketContextValue {
  const value = useContext(SocketContext);
  if (value === null) throw new Error('useSocket must be used inside <SocketProvider>');
  return value;
}
