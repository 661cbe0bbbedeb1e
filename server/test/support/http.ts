/** A small HTTP client for API tests: bearer or cookie identity, CSRF header, raw or JSON bodies. */
export interface Who {
  token?: string;
  cookie?: string;
  csrf?: string;
  origin?: string;
}

export interface ApiResponse {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(
  base: string,
  method: string,
  path: string,
  who: Who = {},
  body?: unknown,
  { raw = false, contentType = 'application/json' } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (who.token) headers.authorization = `Bearer ${who.token}`;
  if (who.cookie) headers.cookie = who.cookie;
  if (who.csrf) headers['x-csrf-token'] = who.csrf;
  if (who.origin) headers.origin = who.origin;
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    redirect: 'manual',
    ...(body !== undefined ? { body: raw ? (body as string) : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (an HTML page): keep the text.
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** The session cookie from a response's Set-Cookie, as a Cookie header value. */
export function cookieFrom(res: ApiResponse): string {
  const set = res.headers.get('set-cookie') ?? '';
  const match = /keeper_session=[^;]*/.exec(set);
  if (!match) throw new Error(`no session cookie in ${JSON.stringify(set)}`);
  return match[0];
}
