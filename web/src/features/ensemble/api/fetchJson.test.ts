import { afterEach, describe, expect, it, vi } from 'vitest';
import { sessionsResponseSchema } from '@keeper/shared';
import { ApiError, getJson, parseRetryAfter, toApiError } from './fetchJson';
import { sessions } from '../fixtures';

afterEach(() => vi.unstubAllGlobals());

describe('parseRetryAfter', () => {
  it('reads seconds or an HTTP date', () => {
    expect(parseRetryAfter('12', 0)).toBe(12);
    expect(parseRetryAfter(new Date(30_000).toUTCString(), 0)).toBe(30);
    expect(parseRetryAfter(null, 0)).toBeNull();
    expect(parseRetryAfter('soon', 0)).toBeNull();
  });
});

describe('toApiError', () => {
  it('keeps the server’s code and message, and the rate limit', async () => {
    const res = new Response(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'gathered 3 s ago' } }), { status: 429, headers: { 'Retry-After': '7' } });
    const err = await toApiError(res, 'GET /x');
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', message: 'gathered 3 s ago', retryAfterSeconds: 7 });
    expect(err.rateLimited).toBe(true);
  });
  it('says something useful for a proxy’s HTML page', async () => {
    const err = await toApiError(new Response('<html>', { status: 404 }), 'GET /api/ensembles/x/sessions');
    expect(err.message).toBe('GET /api/ensembles/x/sessions is not available from this server');
  });
});

describe('getJson', () => {
  it('validates the answer with the shared schema', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify(sessions(2))));
    await expect(getJson('/api/ensembles/default/sessions', sessionsResponseSchema)).resolves.toMatchObject({ ensemble: 'default' });
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ ensemble: 'default' })));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await expect(getJson('/api/ensembles/default/sessions', sessionsResponseSchema)).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
  });
  it('turns a network failure into a plain message', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed');
    });
    await expect(getJson('/x', sessionsResponseSchema)).rejects.toEqual(new ApiError(0, 'NETWORK', 'cannot reach the Keeper server'));
  });
});
