/**
 * Two Keeper replicas behind a real nginx (Debian's nginx-light on loopback) with the shipped
 * site file, docs/nginx/keeper.conf, its upstream rewritten to list both replicas: round robin, no
 * sticky sessions (docs/operating/replicas.md). A client that signs in once through nginx is served by
 * whichever replica answers, and when the replica holding its live socket goes away, it opens the
 * socket again through nginx with the same cookie and the updates keep coming.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, replicasAnswerSchema } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { KEEPER_PORTS } from '../../scripts/sandbox/portOffsets.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { testLogger } from './support/logger.js';
import { waitFor } from './support/waitFor.js';
import { startNginx, type RunningNginx, type ViaProxy } from '../../scripts/lib/nginx.js';

const ADMIN_TOKEN = 'nginx-replicas-admin-token-0123456789';
const SECRET = 'nginx-replicas-cluster-secret-0123456789-abcdef';
const PORT = KEEPER_PORTS.replicasNginxTest;
const PROXY = `https://127.0.0.1:${PORT}`;

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let replicas: RunningKeeper[] = [];
let nginx: RunningNginx;
let viaProxy: ViaProxy;
let dir: string;
let ca: Buffer;
let raw: RawClient;

/** Which replica answered a request through nginx: the one GET /api/replicas marks `self`. */
async function answeredBy(cookie: string): Promise<string> {
  const res = await viaProxy('GET', '/api/replicas', { cookie });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return replicasAnswerSchema.parse(res.body).replicas.find((r) => r.self)!.id;
}

/** A live socket through nginx, subscribed to one znode; the data values it was pushed. */
async function follow(cookie: string, path: string): Promise<{ socket: WebSocket; values: () => string[]; closed: () => boolean }> {
  const socket = new WebSocket(`wss://127.0.0.1:${PORT}/ws`, { ca, headers: { cookie } });
  const messages: any[] = [];
  let closed = false;
  socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
  socket.on('close', () => (closed = true));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'hello', protocolVersion: PROTOCOL_VERSION }));
  await waitFor(() => messages.some((m) => m.type === 'welcome'), { what: 'welcome through nginx' });
  socket.send(JSON.stringify({ type: 'subscribe', topic: 'znode', ensemble: 'home', params: { path }, id: 's' }));
  const values = () =>
    messages
      .filter((m) => m.type === 'batch')
      .flatMap((m) => m.events)
      .filter((e: any) => e.topic === 'znode' && e.event.kind === 'state' && e.event.node.exists)
      .map((e: any) => e.event.node.data.value as string);
  return { socket, values, closed: () => closed };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'keeper-nginx-replicas-'));
  ensemble = await startTestEnsemble(PORT_OFFSETS.replicaSharingTest);
  raw = await connectRaw(ensemble.connectionString);
  const start = (n: number) =>
    startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [ensembleConfigOf(ensemble, { name: 'home' })],
        auth: { stateDir: join(dir, `state-${n}`), adminToken: ADMIN_TOKEN },
        trustProxy: ['loopback'],
        replicas: { stateEnsemble: 'home', root: '/keeper/replicas', secret: SECRET, sharedPolling: false },
      },
      { logger: testLogger, gatewayDefaults: { sessionTimeoutMs: 4_000 } },
    );
  replicas = await Promise.all([start(1), start(2)]);

  // The shipped site file's one upstream server becomes the two replicas (round robin, nothing sticky).
  nginx = await startNginx(
    dir,
    PORT,
    replicas.map((r) => new URL(r.url).host),
  );
  ({ ca, viaProxy } = nginx);
}, 180_000);

afterAll(async () => {
  nginx?.stop();
  raw?.close();
  await Promise.all(replicas.map((r) => r.close()));
  await ensemble?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('two replicas behind nginx (docs/nginx/keeper.conf, round robin)', () => {
  it('serves a client signed in once through nginx whichever replica answers, and its live updates survive the loss of its replica', async () => {
    const login = await viaProxy('POST', '/api/login', { origin: PROXY }, { token: ADMIN_TOKEN });
    expect(login.status).toBe(200);
    const cookie = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('keeper_session='))!
      .split(';')[0]!;

    // Round robin with nothing sticky: both replicas answer the one sign-in.
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) seen.add(await answeredBy(cookie));
    expect([...seen].sort()).toEqual(replicas.map((r) => r.replicas!.id).sort());

    await raw.create('/behind-nginx', 'v0');
    const first = await follow(cookie, '/behind-nginx');
    await waitFor(() => first.values().includes('v0'), { what: 'the first state through nginx' });
    await raw.set('/behind-nginx', 'v1');
    await waitFor(() => first.values().includes('v1'), { what: 'a write pushed through nginx' });

    // The replica holding the socket goes away; the other stays.
    const holder = replicas.find((r) => r.hub.countWhere(() => true) > 0)!;
    const survivor = replicas.find((r) => r !== holder)!;
    await holder.close();
    await waitFor(() => first.closed(), { what: 'the socket closed with its replica', timeoutMs: 5_000 });

    // The client opens its socket again through nginx with the same cookie: no sign-in.
    const again = await follow(cookie, '/behind-nginx');
    try {
      expect(survivor.hub.countWhere(() => true)).toBe(1);
      await waitFor(() => again.values().includes('v1'), { what: 'the state again, from the other replica' });
      await raw.set('/behind-nginx', 'v2');
      await waitFor(() => again.values().includes('v2'), { what: 'a write pushed after the hand-over' });
      expect(await answeredBy(cookie)).toBe(survivor.replicas!.id);
    } finally {
      again.socket.close();
      first.socket.close();
    }
  });
});
