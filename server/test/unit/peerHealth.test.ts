import { afterEach, describe, expect, it, vi } from 'vitest';
import { PeerHealth, PROBE_DEADLINE_MS } from '../../src/replicas/peerHealth.js';

const health = (status: 'ok' | 'degraded', ensembles: { name: string; state: string }[] = []) =>
  new Response(JSON.stringify({ status, version: '0.1.0', uptimeSeconds: 12, ensembles }), { status: 200 });

describe('PeerHealth: how a replica says another one is', () => {
  it('says serving, or degraded naming the ensembles it is not connected to', async () => {
    const ok = new PeerHealth(async () => health('ok', [{ name: 'home', state: 'connected' }]));
    expect(await ok.of('http://a:1')).toMatchObject({ state: 'serving', detail: 'up 12 s' });
    const degraded = new PeerHealth(async () =>
      health('degraded', [
        { name: 'home', state: 'connected' },
        { name: 'prod', state: 'disconnected' },
      ]),
    );
    expect(await degraded.of('http://a:1')).toMatchObject({ state: 'degraded', detail: 'not connected to prod (disconnected)' });
  });

  it('says unreachable with the reason: refused, a wrong answer, or no answer within the deadline', async () => {
    const refused = new PeerHealth(async () => {
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    });
    expect(await refused.of('http://127.0.0.1:1')).toMatchObject({ state: 'unreachable', detail: expect.stringContaining('ECONNREFUSED') });
    const wrong = new PeerHealth(async () => new Response('nope', { status: 502 }));
    expect(await wrong.of('http://a:1')).toMatchObject({ state: 'unreachable', detail: 'answered 502 at http://a:1' });
    const silent = new PeerHealth((_url, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))));
    const started = Date.now();
    expect(await silent.of('http://a:1')).toMatchObject({ state: 'unreachable', detail: `no answer from http://a:1 within ${PROBE_DEADLINE_MS / 1000} s` });
    expect(Date.now() - started).toBeLessThan(PROBE_DEADLINE_MS + 1_000);
  });

  it('asks each peer once however many ask at once, and forgets peers no longer registered', async () => {
    const asked: string[] = [];
    const peers = new PeerHealth(async (url) => {
      asked.push(url);
      return health('ok');
    });
    await Promise.all([peers.of('http://a:1'), peers.of('http://a:1'), peers.of('http://b:1')]);
    await peers.of('http://a:1');
    expect(asked).toEqual(['http://a:1/api/health', 'http://b:1/api/health']);
    peers.keepOnly(['http://b:1']);
    await peers.of('http://a:1');
    expect(asked).toHaveLength(3);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('says when a peer that stopped answering last answered (the last moment it was known to run)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(100_000);
    let up = true;
    const peers = new PeerHealth(async () => {
      if (up) return health('ok');
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    });
    expect(await peers.of('http://a:1')).toMatchObject({ state: 'serving', lastAnsweredAt: 100_000 });
    up = false;
    vi.setSystemTime(103_000);
    expect(await peers.of('http://a:1')).toMatchObject({ state: 'unreachable', checkedAt: 103_000, lastAnsweredAt: 100_000 });
    // One that never answered this replica says so: null, not a time it never had.
    expect(await peers.of('http://b:1')).toMatchObject({ state: 'unreachable', lastAnsweredAt: null });
  });
});
