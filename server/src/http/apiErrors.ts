/** One place that turns failures into clear JSON errors with the right status. */
import type { Response } from 'express';
import { ZkError } from '../zk/errors.js';

export function sendError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

const ZK_STATUS: Record<string, number> = {
  NO_NODE: 404,
  INVALID_PATH: 400,
  NO_AUTH: 403,
  BAD_VERSION: 409,
  NODE_EXISTS: 409,
  NOT_EMPTY: 409,
  DEADLINE_EXCEEDED: 504,
  NOT_CONNECTED: 503,
  CONNECTION_LOSS: 503,
  SESSION_EXPIRED: 503,
  OVERLOADED: 503,
  THROTTLED_OP: 503,
  CLOSED: 503,
};

export function sendZkError(res: Response, error: unknown): void {
  if (error instanceof ZkError) {
    sendError(res, ZK_STATUS[error.code] ?? 502, error.code, error.message);
    return;
  }
  sendError(res, 500, 'INTERNAL', error instanceof Error ? error.message : 'internal error');
}
