/**
 * JSON bodies with clear 400s: express.json's own failures (malformed JSON, too large, wrong
 * charset) become `{error:{code,message}}` like every other API error, never an HTML page.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { z } from 'zod';
import { pathFromSegments, type ApiErrorCode } from '@keeper/shared';
import { sendError } from './apiErrors.js';
import { depthPast, MAX_JSON_DEPTH } from './jsonDepth.js';

/** Thrown by the depth check; body-parser passes it on with this type (jsonErrors answers 400). */
class TooDeep extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';
}

export function jsonBody(limit: string): RequestHandler[] {
  // The size is bounded while the body streams in (limit); its depth before it is parsed (verify runs first).
  const verify = (_req: unknown, _res: unknown, buf: Buffer) => {
    if (depthPast(buf, MAX_JSON_DEPTH) !== null)
      throw new TooDeep(`the body nests deeper than ${MAX_JSON_DEPTH} levels, more than any request Keeper takes: refused before it was parsed`);
  };
  return [express.json({ limit, strict: false, verify }) as RequestHandler, sentAsJson];
}

/**
 * express.json skips a body of another type and the route would read `{}`: a text/plain
 * `{"mode":"full"}` planned a default rolling restart. A body sent, but not as JSON, is refused;
 * no body at all (Content-Length 0) still reads as `{}`. Routes check identity and role first.
 */
const sentAsJson: RequestHandler = (req, res, next) => {
  const sent = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!sent || req.is('application/json')) return next();
  const type = String(req.headers['content-type'] ?? 'none').slice(0, 100);
  sendError(res, 'INVALID_BODY', `send the body as application/json (its Content-Type is ${JSON.stringify(type)})`);
};

/** Maps body-parser errors; anything else goes on to the next error handler. */
export const jsonErrors: ErrorRequestHandler = (error, _req, res, next) => {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.too.deep') return sendError(res, 'INVALID_BODY', (error as Error).message);
  if (type === 'entity.parse.failed') return sendError(res, 'MALFORMED_JSON', `the body is not valid JSON: ${(error as Error).message}`);
  if (type === 'entity.too.large')
    return sendError(
      res,
      'BODY_TOO_LARGE',
      `the body is larger than this endpoint accepts (${String((error as { limit?: unknown }).limit)} bytes); znode data is limited to 1,048,576 bytes`,
    );
  if ((typeof type === 'string' && type.startsWith('charset')) || type === 'encoding.unsupported')
    return sendError(res, 'INVALID_BODY', `unsupported body encoding: ${(error as Error).message}`);
  if (typeof type === 'string') return sendError(res, 'INVALID_BODY', (error as Error).message);
  next(error);
};

/** A zod-checked body or query, or null after answering 400 with every problem listed. */
export function parseOr400<T extends z.core.$ZodType>(
  schema: T,
  value: unknown,
  res: Parameters<typeof sendError>[0],
  code: ApiErrorCode = 'INVALID_BODY',
): z.infer<T> | null {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return parsed.data;
  const whole = code === 'INVALID_QUERY' ? '(query)' : '(body)';
  const detail = parsed.error.issues.map((i) => `${i.path.join('.') || whole}: ${i.message}`).join('; ');
  sendError(res, code, detail);
  return null;
}

/** Express 5 gives a wildcard as its segments; rebuild the znode path from them. */
export function wildcardPath(params: unknown): string {
  const segments = (params as { path?: string[] | string }).path;
  return pathFromSegments(segments === undefined ? [] : [segments].flat());
}
