/**
 * One place that turns failures into JSON errors: `{error:{code,message}}`, sent with the status
 * the shared table gives the code (shared/src/protocol/http/errors.ts), never one chosen here.
 */
import type { Response } from 'express';
import { statusOfCode, type ApiErrorCode } from '@keeper/shared';
import { toOpError } from '../admin/opError.js';
import { WalkRefused } from '../ops/walkBudget.js';

export function sendError(res: Response, code: ApiErrorCode, message: string): void {
  res.status(statusOfCode(code)).json({ error: { code, message } });
}

/**
 * Anything thrown by an operation or a ZooKeeper call: its code and status from the table, the
 * current value of a stale write (409 BAD_VERSION), and when to come back for a refused walk.
 */
export function sendFailure(res: Response, error: unknown, path?: string): void {
  const e = toOpError(error, path);
  if (e instanceof WalkRefused) res.setHeader('Retry-After', String(e.retryAfterSeconds));
  res.status(statusOfCode(e.code)).json({ error: { code: e.code, message: e.message }, ...(e.current ? { current: e.current } : {}) });
}
