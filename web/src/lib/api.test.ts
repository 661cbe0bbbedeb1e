import { afterEach, describe, expect, it, vi } from 'vitest';
import { ROUTES } from '@keeper/shared';
import { call, callBytes, ApiError, hasStatus, onUnauthenticated, parseRetryAfter, readErrorBody, setCsrfToken } from './api';

function answer(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrfToken(null);
});

const job = { id: 'j1', ensemble: 'e', kind: 'deleteRecursive' };

describe('call', () => {
  it('builds the URL from the route table and sends the CSRF token on writes only', async () => {
    const fetchMock = vi.fn(async () => answer(200, { stat: null, path: '/a b' }));
    vi.stubGlobal('fetch', fetchMock);
    setCsrfToken('tok');
    await call(ROUTES.lockScan, { params: { name: 'e' }, body: { path: '/a' } }).catch(() => {});
    await call(ROUTES.znodeStat, { params: { name: 'e', path: '/a b' } });
    const calls = fetchMock.mock.calls as unknown as [string, RequestInit][];
    expect(calls[0]![0]).toBe('/api/ensembles/e/locks/scan');
    expect(calls[0]![1].method).toBe('POST');
    expect((calls[0]![1].headers as Record<string, string>)['X-CSRF-Token']).toBe('tok');
    expect(calls[0]![1].body).toBe('{"path":"/a"}');
    expect(calls[1]![0]).toBe('/api/ensembles/e/stat/a%20b');
    expect((calls[1]![1].headers as Record<string, string>)['X-CSRF-Token']).toBeUndefined();
  });

  it("checks the body with the route's schema before sending it (a lock scan's path)", async () => {
    const fetchMock = vi.fn(async () => answer(202, { job }));
    vi.stubGlobal('fetch', fetchMock);
    const error = await call(ROUTES.lockScan, { params: { name: 'e' }, body: { path: 'no-slash' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_BODY', status: 0 });
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('keeps the body of an error (a 409 carries the current value)', async () => {
    vi.stubGlobal('fetch', async () => answer(409, { error: { code: 'BAD_VERSION', message: 'stale' }, current: { v: 1 } }));
    const error = await call(ROUTES.znodeSet, { params: { name: 'e', path: '/a' }, body: { data: 'x', version: 0 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'BAD_VERSION', message: 'stale', body: { current: { v: 1 } } });
  });

  it('reports a 401 (but not from sign-in itself)', async () => {
    vi.stubGlobal('fetch', async () => answer(401, { error: { code: 'UNAUTHENTICATED', message: 'sign in' } }));
    const seen = vi.fn();
    const stop = onUnauthenticated(seen);
    await call(ROUTES.audit, { query: {} }).catch(() => {});
    await call(ROUTES.login, { body: { token: 'x' } }).catch(() => {});
    stop();
    expect(seen).toHaveBeenCalledTimes(1);
  });

  it('reads Retry-After on a 429, and says when the server is unreachable', async () => {
    vi.stubGlobal('fetch', async () => answer(429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'Retry-After': '30' }));
    await expect(call(ROUTES.login, { body: { token: 'x' } })).rejects.toMatchObject({ status: 429, retryAfterSeconds: 30 });
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(call(ROUTES.me, {})).rejects.toMatchObject({ code: 'NETWORK' });
  });

  it('answers 204 with undefined, and refuses an answer its route schema does not describe', async () => {
    vi.stubGlobal('fetch', async () => new Response(null, { status: 204 }));
    await expect(call(ROUTES.logout, {})).resolves.toBeUndefined();
    vi.stubGlobal('fetch', async () => answer(200, { job: 5 }));
    const error = await call(ROUTES.job, { params: { id: '1' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BAD_RESPONSE', status: 200 });
    expect((error as Error).message).toMatch(/^unexpected answer from Keeper to GET \/api\/jobs\/1: job: expected object\. /);
    // A body that is not JSON at all is refused the same way, never trusted as the answer.
    vi.stubGlobal('fetch', async () => new Response('<html>', { status: 200 }));
    await expect(call(ROUTES.me, {})).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
    // A status the route does not answer with is not trusted either.
    vi.stubGlobal('fetch', async () => answer(201, { job }));
    await expect(call(ROUTES.job, { params: { id: '1' } })).rejects.toMatchObject({ code: 'BAD_RESPONSE', status: 201 });
  });

  it('reads bytes exactly, and an error of a bytes route as JSON', async () => {
    const bytes = new Uint8Array([0, 255, 10, 13, 128]);
    vi.stubGlobal('fetch', async () => new Response(bytes, { status: 200, headers: { 'X-Keeper-Version': '7' } }));
    const read = await callBytes(ROUTES.znodeData, { params: { name: 'e', path: '/a' } });
    expect([...read.bytes]).toEqual([...bytes]);
    expect(read.headers.get('X-Keeper-Version')).toBe('7');
    vi.stubGlobal('fetch', async () => answer(404, { error: { code: 'NO_NODE', message: '/a does not exist' } }));
    await expect(callBytes(ROUTES.znodeData, { params: { name: 'e', path: '/a' } })).rejects.toMatchObject({
      status: 404,
      code: 'NO_NODE',
      message: '/a does not exist',
    });
  });
});

describe('helpers', () => {
  it('parses Retry-After and error bodies', () => {
    expect(parseRetryAfter('12', 0)).toBe(12);
    expect(parseRetryAfter(null, 0)).toBeNull();
    expect(parseRetryAfter(new Date(5_000).toUTCString(), 0)).toBe(5);
    expect(readErrorBody({ error: { code: 'X', message: 'y' } })).toEqual({ code: 'X', message: 'y' });
    expect(readErrorBody('<html>')).toEqual({ code: null, message: null });
    expect(hasStatus(new ApiError(401, 'U', 'u'), 401)).toBe(true);
    expect(hasStatus(new Error('x'), 401)).toBe(false);
  });
});
