/**
 * The one way the web app talks HTTP to the Keeper API: JSON in and out, every answer parsed with
 * its route's schema from the shared contract (shared/src/protocol/http), `{error:{code,message}}`
 * turned into an ApiError that keeps the whole body (a 409 carries the current value), the
 * session's CSRF token on every POST/PUT/DELETE (docs/access-and-admin-api.md), and a 401
 * anywhere reported once so the app can send the operator to the sign-in page instead of
 * showing a dead screen.
 */
import { z } from 'zod/mini';
import { CSRF_HEADER, ROUTES, urlOf, type HttpRoute, type RouteAnswerOf, type RouteBody, type RouteParams, type RouteQuery } from '@keeper/shared';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The parsed JSON body, when there was one: a 409 BAD_VERSION carries `current`. */
    readonly body: unknown = null,
    /** Seconds until a 429 may be retried (Retry-After), when the server said. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | null = null;

/** Set from GET /api/me (cookie and share sessions have one; bearer and open mode do not). */
export function setCsrfToken(token: string | null | undefined): void {
  csrfToken = token ?? null;
}

const unauthenticatedListeners = new Set<() => void>();

/** Called on any 401 from the API (but sign-in itself): the session ended or never was. */
export function onUnauthenticated(listener: () => void): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

export function reportUnauthenticated(): void {
  for (const l of unauthenticatedListeners) l();
}

/** Retry-After in seconds (RFC 9110: seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Read loosely on purpose: a code this page does not know yet (a newer server's) still shows its message. */
const errorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** The `{error:{code,message}}` of an error body, whatever else it holds. */
export function readErrorBody(body: unknown): { code: string | null; message: string | null } {
  const parsed = errorBodySchema.safeParse(body);
  return parsed.success ? parsed.data.error : { code: null, message: null };
}

/** The answer to a route that answers nothing (204). */
export const noContent = z.undefined();

const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** Sends one request with the session's CSRF token on writes; not reaching the server at all is ApiError NETWORK. */
async function send(url: string, method: string, init: { body?: unknown; signal?: AbortSignal | undefined; accept: string }): Promise<Response> {
  const headers: Record<string, string> = { Accept: init.accept };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (WRITE_METHODS.has(method) && csrfToken !== null) headers[CSRF_HEADER] = csrfToken;
  try {
    return await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  } catch (err) {
    if (init.signal?.aborted) throw err;
    throw new ApiError(0, 'NETWORK', 'cannot reach the Keeper server; check that it is running and try again');
  }
}

/** The JSON of a body; an empty or non-JSON body reads as null. */
async function jsonOf(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return null;
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return null;
  }
}

async function failure(res: Response, method: string, url: string): Promise<ApiError> {
  const body = await jsonOf(res);
  const { code, message } = readErrorBody(body);
  if (res.status === 401 && url !== urlOf(ROUTES.login, {})) reportUnauthenticated();
  return new ApiError(
    res.status,
    code ?? `HTTP_${res.status}`,
    message ?? `${method} ${url.split('?')[0]} answered ${res.status}`,
    body,
    parseRetryAfter(res.headers.get('Retry-After'), Date.now()),
  );
}

/**
 * A few of zod's issues, for a person: where in the answer, and what was wrong. zod/mini carries
 * no messages' locale (the first page would load it for answers that are never wrong), so a wrong
 * type is told by what was expected.
 */
function issuesText(error: z.core.$ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(answer)'}: ${i.code === 'invalid_type' ? `expected ${i.expected}` : i.message}`);
  return shown.join('; ') + (error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '');
}

/** A part of a request: required when the route takes it with required fields, absent when it takes none. */
type Part<K extends string, T> = [T] extends [undefined] ? { [P in K]?: undefined } : Record<never, never> extends T ? { [P in K]?: T } : { [P in K]: T };

/** What `call` sends: the route's path parameters, query and body, typed by its table entry. */
export type CallRequest<R extends HttpRoute> = Part<'params', RouteParams<R, 'in'>> &
  Part<'query', RouteQuery<R, 'in'>> &
  Part<'body', RouteBody<R, 'in'>> & { signal?: AbortSignal | undefined };

function urlFor<R extends HttpRoute>(route: R, request: CallRequest<R>): string {
  return urlOf(route, (request.params ?? {}) as Record<string, string>, request.query as Record<string, unknown> | undefined);
}

/**
 * Calls a route of the table (shared/src/protocol/http/routeTable.ts): the URL is built from its
 * entry, the body checked with its schema before it is sent (a mistake here is not the server's
 * 400), and the answer parsed with the schema of the status it came with. Resolves with the
 * parsed answer (undefined for 204), rejects with ApiError.
 */
export async function call<R extends HttpRoute>(route: R, request: CallRequest<R>): Promise<RouteAnswerOf<R>> {
  const method = route.method.toUpperCase();
  const url = urlFor(route, request);
  if (route.body) {
    const checked = route.body.safeParse(request.body ?? {});
    if (!checked.success) throw new ApiError(0, 'INVALID_BODY', `not sent: ${issuesText(checked.error)}`);
  }
  const body = route.body ? (request.body ?? {}) : undefined;
  const res = await send(url, method, { body, signal: request.signal, accept: 'application/json' });
  if (!res.ok) throw await failure(res, method, url);
  const answer = route.answers[res.status];
  const json = res.status === 204 ? undefined : await jsonOf(res);
  const schema = answer && 'json' in answer ? answer.json : answer && 'empty' in answer ? noContent : null;
  const parsed = schema ? schema.safeParse(json) : null;
  if (!parsed?.success) {
    if (parsed) console.warn('keeper: unexpected answer', url, parsed.error.issues);
    const why = parsed ? issuesText(parsed.error) : `status ${res.status} is not one this route answers with`;
    throw new ApiError(
      res.status,
      'BAD_RESPONSE',
      `unexpected answer from Keeper to ${method} ${url.split('?')[0]}: ${why}. If Keeper was just updated, reload the page`,
      json,
    );
  }
  return parsed.data as RouteAnswerOf<R>;
}

/** Calls a route that answers bytes (ROUTES.znodeData): the bytes exactly and the headers that describe them. */
export async function callBytes<R extends HttpRoute>(route: R, request: CallRequest<R>): Promise<{ bytes: Uint8Array; headers: Headers; url: string }> {
  const url = urlFor(route, request);
  const res = await send(url, 'GET', { signal: request.signal, accept: 'application/octet-stream' });
  if (!res.ok) throw await failure(res, 'GET', url);
  return { bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers, url };
}

/** An error's message for a person: the server's own words when it gave some. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** True when the error is the HTTP status given (ApiError or any error with a numeric `status`). */
export function hasStatus(error: unknown, status: number): boolean {
  return typeof error === 'object' && error !== null && (error as { status?: unknown }).status === status;
}
