/**
 * A refused or failed operation, by code, with what the caller needs to act on it. The HTTP
 * routes turn the code into a status; the socket puts it in a `result` with ok: false.
 */
import type { EncodedData, ZnodeStat } from '@keeper/shared';
import { ZkError, toZkError } from '../zk/errors.js';

export class OpError extends Error {
  override readonly name = 'OpError';
  constructor(
    readonly code: string,
    message: string,
    /** On a stale version: the value as it is now, so the UI can show the conflict. */
    readonly current?: { stat: ZnodeStat; data: EncodedData },
  ) {
    super(message);
  }
}

/** Anything thrown below an operation, as an OpError (ZooKeeper's codes kept as they are). */
export function toOpError(error: unknown, path?: string): OpError {
  if (error instanceof OpError) return error;
  if (error instanceof ZkError || (typeof error === 'object' && error !== null && ('code' in error || 'getCode' in error))) {
    const zk = toZkError(error, path);
    return new OpError(zk.code, zk.message);
  }
  return new OpError('INTERNAL', error instanceof Error ? error.message : 'internal error');
}

/** HTTP status for each code; codes not listed are 502 (ZooKeeper said something unexpected). */
export const OP_STATUS: Record<string, number> = {
  INVALID_BODY: 400,
  INVALID_PATH: 400,
  INVALID_QUERY: 400,
  INVALID_DATA: 400,
  INVALID_ACL: 400,
  DATA_TOO_LARGE: 400,
  PROTECTED_PATH: 400,
  /** An import the dry run finds problems in (sizes, duplicate paths, ACLs): nothing written. */
  IMPORT_REFUSED: 400,
  NO_CHILDREN_FOR_EPHEMERALS: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NO_AUTH: 403,
  NO_NODE: 404,
  UNKNOWN_ENSEMBLE: 404,
  UNKNOWN_JOB: 404,
  BAD_VERSION: 409,
  NODE_EXISTS: 409,
  NOT_EMPTY: 409,
  JOB_FINISHED: 409,
  /** The new ACL would take read or admin from the console: send `confirm` equal to the path. */
  ACL_LOCKS_OUT: 409,
  TOO_MANY_NODES: 413,
  OUTCOME_UNKNOWN: 502,
  DEADLINE_EXCEEDED: 504,
  NOT_CONNECTED: 503,
  CONNECTION_LOSS: 503,
  SESSION_EXPIRED: 503,
  OVERLOADED: 503,
  THROTTLED_OP: 503,
  CLOSED: 503,
  INTERNAL: 500,
};

export function statusOf(code: string): number {
  return OP_STATUS[code] ?? 502;
}
