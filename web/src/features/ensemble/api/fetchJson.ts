/**
 * GET a Keeper API resource and validate it with its shared zod schema, so a server that drifts
 * from the contract fails loudly here instead of rendering undefined. Errors keep what the
 * operator needs: the server's own message and, on 429, when asking again is allowed.
 */
/** What getJson needs of a zod schema; structural, so the web needs no direct zod dependency. */
export interface ResponseSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: unknown } };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** From a 429's Retry-After (or the body's retryAfterSeconds): seconds until the server accepts this again. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get rateLimited(): boolean {
    return this.status === 429;
  }
}

/** Retry-After in seconds (RFC 9110 allows seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function readErrorBody(body: unknown): { code: string | null; message: string | null; retryAfterSeconds: number | null } {
  const out = { code: null as string | null, message: null as string | null, retryAfterSeconds: null as number | null };
  if (typeof body !== 'object' || body === null) return out;
  const record = body as Record<string, unknown>;
  const error = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : record;
  if (typeof error.code === 'string') out.code = error.code;
  if (typeof error.message === 'string') out.message = error.message;
  const retry = error.retryAfterSeconds ?? record.retryAfterSeconds;
  if (typeof retry === 'number' && Number.isFinite(retry)) out.retryAfterSeconds = retry;
  return out;
}

export async function toApiError(res: Response, what: string): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // Not JSON (a proxy's HTML page): the status says enough.
  }
  const parsed = readErrorBody(body);
  const retryAfter = parsed.retryAfterSeconds ?? parseRetryAfter(res.headers.get('Retry-After'), Date.now());
  const message = parsed.message ?? (res.status === 404 ? `${what} is not available from this server` : `${what} answered ${res.status}`);
  return new ApiError(res.status, parsed.code ?? `HTTP_${res.status}`, message, retryAfter);
}

export async function getJson<T>(url: string, schema: ResponseSchema<T>, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { signal, headers: { Accept: 'application/json' } });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(0, 'NETWORK', 'cannot reach the Keeper server');
  }
  if (!res.ok) throw await toApiError(res, `GET ${url.split('?')[0]}`);
  const parsed = schema.safeParse(await res.json());
  if (!parsed.success) {
    console.warn('keeper: unexpected response shape', url, parsed.error.issues);
    throw new ApiError(res.status, 'BAD_RESPONSE', `the server's answer to ${url.split('?')[0]} does not match this page's version; reload the page`);
  }
  return parsed.data;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
