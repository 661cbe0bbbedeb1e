/**
 * The one way the web app talks HTTP to the Keeper API for anything it writes (and the reads that
 * go with writes): JSON in and out, `{error:{code,message}}` turned into an ApiError that keeps the
 * whole body (a 409 carries the current value), the session's CSRF token on every POST/PUT/DELETE
 * (docs/access-and-admin-api.md), and a 401 anywhere reported once so the app can send the
 * operator to the sign-in page instead of showing a dead screen.
 */
import { CSRF_HEADER } from '@keeper/shared';

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

/** What a response check needs of a zod schema; structural, so the web needs no direct zod import. */
export interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: unknown } };
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

/** The `{error:{code,message}}` of an error body, whatever else it holds. */
export function readErrorBody(body: unknown): { code: string | null; message: string | null } {
  if (typeof body !== 'object' || body === null) return { code: null, message: null };
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return { code: null, message: null };
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { code: typeof code === 'string' ? code : null, message: typeof message === 'string' ? message : null };
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

export interface ApiRequest<T> {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** Checks the answer's shape; without it the JSON is trusted as T. */
  schema?: Schema<T>;
}

/** Calls the API; resolves with the JSON answer (undefined for 204), rejects with ApiError. */
export async function api<T>(url: string, request: ApiRequest<T> = {}): Promise<T> {
  const method = request.method ?? 'GET';
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  if (WRITE_METHODS.has(method) && csrfToken !== null) headers[CSRF_HEADER] = csrfToken;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
  } catch (err) {
    if (request.signal?.aborted) throw err;
    throw new ApiError(0, 'NETWORK', 'cannot reach the Keeper server; check that it is running and try again');
  }
  // 204 (sign-out) answers undefined; an empty or non-JSON body reads as null.
  let body: unknown = res.status === 204 ? undefined : null;
  if (res.status !== 204) {
    const text = await res.text();
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
    }
  }
  if (!res.ok) {
    const { code, message } = readErrorBody(body);
    const what = `${method} ${url.split('?')[0]}`;
    if (res.status === 401 && !url.startsWith('/api/login')) reportUnauthenticated();
    throw new ApiError(res.status, code ?? `HTTP_${res.status}`, message ?? `${what} answered ${res.status}`, body, parseRetryAfter(res.headers.get('Retry-After'), Date.now()));
  }
  if (request.schema) {
    const parsed = request.schema.safeParse(body);
    if (!parsed.success) {
      console.warn('keeper: unexpected response shape', url, parsed.error.issues);
      throw new ApiError(res.status, 'BAD_RESPONSE', `the server's answer to ${url.split('?')[0]} does not match this page's version; reload the page`, body);
    }
    return parsed.data;
  }
  return body as T;
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

/** A schema for `{[key]: T}` answers (`{links: [...]}`, `{job}`), built from T's schema without importing zod here. */
export function fieldSchema<K extends string, T>(key: K, schema: Schema<T>): Schema<Record<K, T>> {
  return {
    safeParse(value) {
      if (typeof value !== 'object' || value === null) return { success: false, error: { issues: [`expected an object with "${key}"`] } };
      const inner = schema.safeParse((value as Record<string, unknown>)[key]);
      return inner.success ? { success: true, data: { [key]: inner.data } as Record<K, T> } : inner;
    },
  };
}
