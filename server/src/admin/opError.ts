/**
 * A refused or failed operation, by code, with what the caller needs to act on it. The HTTP
 * routes send it with the status the shared table gives the code; the socket puts it in a
 * `result` with ok: false.
 */
import { isApiErrorCode, type ApiErrorCode, type EncodedData, type ZnodeStat } from '@keeper/shared';
import { ZkError, toZkError } from '../zk/errors.js';

export class OpError extends Error {
  override readonly name = 'OpError';
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    /** On a stale version: the value as it is now, so the UI can show the conflict. */
    readonly current?: { stat: ZnodeStat; data: EncodedData },
  ) {
    super(message);
  }
}

/**
 * Anything thrown below an operation, as an OpError. ZooKeeper's codes are kept as they are; one
 * the contract does not list (a newer server's) becomes ZOOKEEPER_ERROR, its name in the message.
 */
export function toOpError(error: unknown, path?: string): OpError {
  if (error instanceof OpError) return error;
  if (error instanceof ZkError || (typeof error === 'object' && error !== null && ('code' in error || 'getCode' in error))) {
    const zk = toZkError(error, path);
    return isApiErrorCode(zk.code) ? new OpError(zk.code, zk.message) : new OpError('ZOOKEEPER_ERROR', `${zk.code}: ${zk.message}`);
  }
  return new OpError('INTERNAL', error instanceof Error ? error.message : 'internal error');
}
