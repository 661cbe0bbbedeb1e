/**
 * Errors the gateway reports, by ZooKeeper's own names where there is one, so callers
 * (HTTP routes, the socket hub) can map them to clear answers without knowing the client library.
 */

/** ZooKeeper's KeeperException codes, including the 3.5+ ones node-zookeeper-client does not know. */
export const ZK_ERROR_NAMES: Record<number, string> = {
  [-1]: 'SYSTEM_ERROR',
  [-2]: 'RUNTIME_INCONSISTENCY',
  [-3]: 'DATA_INCONSISTENCY',
  [-4]: 'CONNECTION_LOSS',
  [-5]: 'MARSHALLING_ERROR',
  [-6]: 'UNIMPLEMENTED',
  [-7]: 'OPERATION_TIMEOUT',
  [-8]: 'BAD_ARGUMENTS',
  [-13]: 'NEW_CONFIG_NO_QUORUM',
  [-14]: 'RECONFIG_IN_PROGRESS',
  [-15]: 'UNKNOWN_SESSION',
  [-100]: 'API_ERROR',
  [-101]: 'NO_NODE',
  [-102]: 'NO_AUTH',
  [-103]: 'BAD_VERSION',
  [-108]: 'NO_CHILDREN_FOR_EPHEMERALS',
  [-110]: 'NODE_EXISTS',
  [-111]: 'NOT_EMPTY',
  [-112]: 'SESSION_EXPIRED',
  [-113]: 'INVALID_CALLBACK',
  [-114]: 'INVALID_ACL',
  [-115]: 'AUTH_FAILED',
  [-118]: 'SESSION_MOVED',
  [-119]: 'NOT_READ_ONLY',
  [-120]: 'EPHEMERAL_ON_LOCAL_SESSION',
  [-121]: 'NO_WATCHER',
  [-122]: 'REQUEST_TIMEOUT',
  [-123]: 'RECONFIG_DISABLED',
  [-124]: 'SESSION_CLOSED_REQUIRE_SASL_AUTH',
  [-125]: 'QUOTA_EXCEEDED',
  [-127]: 'THROTTLED_OP',
};

/** Codes invented by the gateway for failures that never reached ZooKeeper or never came back. */
export type GatewayFailure = 'DEADLINE_EXCEEDED' | 'OVERLOADED' | 'CLOSED' | 'INVALID_PATH' | 'NOT_CONNECTED';

export class ZkError extends Error {
  override readonly name = 'ZkError';
  constructor(
    /** ZooKeeper code name (NO_NODE...) or a gateway failure (DEADLINE_EXCEEDED...). */
    readonly code: string,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }

  /** Whether retrying the same idempotent read later could succeed. */
  get transient(): boolean {
    return TRANSIENT_CODES.has(this.code);
  }
}

const TRANSIENT_CODES = new Set([
  'CONNECTION_LOSS',
  'OPERATION_TIMEOUT',
  'SESSION_EXPIRED',
  'SESSION_MOVED',
  'REQUEST_TIMEOUT',
  'THROTTLED_OP',
  'NOT_CONNECTED',
]);

/** Turns whatever the client library handed back into a ZkError. */
export function toZkError(error: unknown, path?: string): ZkError {
  if (error instanceof ZkError) return error;
  const maybe = error as { code?: unknown; getCode?: () => number; message?: unknown } | null;
  const code = typeof maybe?.code === 'number' ? maybe.code : typeof maybe?.getCode === 'function' ? maybe.getCode() : undefined;
  if (typeof code === 'number') {
    const name = ZK_ERROR_NAMES[code] ?? `ZK_ERROR_${code}`;
    return new ZkError(name, `${name} (${code})${path ? ` at ${path}` : ''}`, path);
  }
  const message = typeof maybe?.message === 'string' ? maybe.message : String(error);
  return new ZkError('SYSTEM_ERROR', message, path);
}
