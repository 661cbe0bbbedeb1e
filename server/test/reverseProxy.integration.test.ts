/**
 * Keeper behind a real nginx (Debian's nginx-light, started here on loopback) terminating TLS,
 * with the shipped site file, docs/nginx/keeper.conf (docs/operating/nginx.md): only its listen address, certificate
 * and upstream are rewritten for this machine. Through it:
 *  - a sign-in gets a Secure cookie, and a share link an https URL (trustProxy reads
 *    X-Forwarded-Proto), where the same Keeper reached directly gives neither;
 *  - the live socket (wss) is upgraded through the proxy and carries a write made by another client;
 *  - a write from another site's page is still refused (the Host nginx passes keeps its port).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { KEEPER_PORTS } from '../../scripts/sandbox/portOffsets.js';
import { ensembleConfigOf } from './support/testEnsemble.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { connectRaw } from './support/rawClient.js';
import { call } from './support/http.js';
import { testLogger } from './support/logger.js';
import { waitFor } from './support/waitFor.js';
import { startNginx, type RunningNginx, type ViaProxy } from '../../scripts/lib/nginx.js';

const ADMIN_TOKEN = 'proxy-admin-token-0123456789abc';
const PORT = KEEPER_PORTS.nginxTest;
const PROXY = `https://127.0.0.1:${PORT}`;

describe('Keeper behind nginx terminating TLS (docs/nginx/keeper.conf)', () => {
  let ensemble: SharedEnsemble;
  let keeper: RunningKeeper;
  let nginx: RunningNginx;
  let viaProxy: ViaProxy;
  let dir: string;
  let ca: Buffer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keeper-nginx-'));
    ensemble = await leaseSharedEnsemble();
    keeper = await startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [ensembleConfigOf(ensemble, { name: 'prod' })],
        auth: { stateDir: join(dir, 'state'), adminToken: ADMIN_TOKEN },
        trustProxy: ['loopback'],
      },
      { logger: testLogger },
    );

    nginx = await startNginx(dir, PORT, [new URL(keeper.url).host]);
    ({ ca, viaProxy } = nginx);
  }, 60_000);

  afterAll(async () => {
    nginx?.stop();
    await keeper?.close();
    await ensemble?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('signs in with a Secure cookie and hands out https share links, where the direct Keeper does neither', async () => {
    const login = await viaProxy('POST', '/api/login', { origin: PROXY }, { token: ADMIN_TOKEN });
    expect(login.status).toBe(200);
    const cookies = ([] as string[]).concat(login.headers['set-cookie'] ?? []);
    const session = cookies.find((c) => c.startsWith('keeper_session='));
    expect(session).toMatch(/;\s*Secure/i);

    const direct = await call(keeper.url, 'POST', '/api/login', {}, { token: ADMIN_TOKEN });
    expect(direct.status).toBe(200);
    expect(direct.headers.get('set-cookie')).not.toMatch(/;\s*Secure/i);

    const link = await viaProxy(
      'POST',
      '/api/share-links',
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      { path: '/ensembles/prod/znodes/', expiresInMinutes: 5 },
    );
    expect(link.status).toBe(201);
    expect(link.body.url).toMatch(new RegExp(`^${PROXY.replace(/\./g, '\\.')}/`));
    const directLink = await call(keeper.url, 'POST', '/api/share-links', { token: ADMIN_TOKEN }, { path: '/ensembles/prod/znodes/', expiresInMinutes: 5 });
    expect(directLink.body.url).toMatch(/^http:\/\//);
  });

  it('carries the live socket (wss) through the proxy: a write by another client arrives', async () => {
    const writer = await connectRaw(ensemble.connectionString);
    const socket = new WebSocket(`wss://127.0.0.1:${PORT}/ws`, { ca, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const messages: any[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
    // Listened for before anything is awaited: the socket may open while the create is on its way.
    const opened = new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    try {
      await writer.create('/through-nginx', 'before');
      await opened;
      socket.send(JSON.stringify({ type: 'hello', protocolVersion: PROTOCOL_VERSION }));
      await waitFor(() => messages.some((m) => m.type === 'welcome'), { what: 'welcome through nginx' });
      socket.send(JSON.stringify({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/through-nginx' }, id: 's' }));
      const dataOf = () =>
        messages
          .filter((m) => m.type === 'batch')
          .flatMap((m) => m.events)
          .filter((e: any) => e.topic === 'znode' && e.event.kind === 'state' && e.event.node.exists)
          .map((e: any) => e.event.node.data.value as string);
      await waitFor(() => dataOf().length > 0, { what: 'the first state through nginx' });
      await writer.set('/through-nginx', 'after');
      await waitFor(() => dataOf().includes('after'), { what: 'the write pushed through nginx', timeoutMs: 10_000 });
    } finally {
      socket.close();
      await writer.remove('/through-nginx').catch(() => undefined);
      writer.close();
    }
  });

  it("refuses a write from another site's page through the proxy, and serves the console's own", async () => {
    const body = { token: ADMIN_TOKEN };
    expect((await viaProxy('POST', '/api/login', { origin: 'https://evil.example' }, body)).status).toBe(403);
    expect((await viaProxy('POST', '/api/login', { origin: PROXY }, body)).status).toBe(200);
  });
});
