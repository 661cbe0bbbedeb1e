/**
 * Query keys for everything the socket feeds. Nested like the URLs and the HTTP API
 * (['ensembles', name, 'znodes', path]) so a whole ensemble can be addressed by prefix.
 */
export const queryKeys = {
  ensembles: () => ['ensembles'] as const,
  ensemble: (name: string) => ['ensembles', name] as const,
  session: (name: string) => ['ensembles', name, 'session'] as const,
  znode: (name: string, path: string) => ['ensembles', name, 'znodes', path] as const,
  children: (name: string, path: string) => ['ensembles', name, 'children', path] as const,
  subscriptionError: (name: string, path: string) => ['ensembles', name, 'subscriptionError', path] as const,
  /** Fed while something holds an ensemble watch (SocketClient.watchEnsemble). */
  health: (name: string) => ['ensembles', name, 'health'] as const,
  memberHistory: (name: string) => ['ensembles', name, 'memberHistory'] as const,
};
