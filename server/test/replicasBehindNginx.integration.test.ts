/**
 * Two Keeper replicas behind a real nginx (Debian's nginx-light on loopback) with the README's own
 * site file, docs/nginx/keeper.conf, its upstream rewritten to list both replicas: round robin, no
 * sticky sessions (docs/replicas.md). A client that signs in once through nginx is served by
 * whichever replica answers, and when the replica holding its live socket goes away, it opens the
 * socket again through nginx with the same cookie and the updates keep coming.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
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

const ADMIN_TOKEN = 'nginx-replicas-admin-token-0123456789';
const SECRET = 'nginx-replicas-cluster-secret-0123456789-abcdef';
const SITE_FILE = join(import.meta.dirname, '../../docs/nginx/keeper.conf');
const PORT = KEEPER_PORTS.replicasNginxTest;
const PROXY = `https://127.0.0.1:${PORT}`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let replicas: RunningKeeper[] = [];
let nginx: ChildProcess;
let dir: string;
let ca: Buffer;
let raw: RawClient;

function viaProxy(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(`${PROXY}${path}`, { method, ca, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          // A page, not JSON.
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: no answer through nginx in 10 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

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
  const made = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'].concat([
      '-keyout',
      join(dir, 'keeper.key'),
      '-out',
      join(dir, 'keeper.pem'),
    ]),
    { encoding: 'utf8', timeout: 30_000 },
  );
  expect(made.status, made.stderr).toBe(0);
  ca = readFileSync(join(dir, 'keeper.pem'));

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

  // The shipped site file; its one upstream server becomes the two replicas (round robin, nothing sticky).
  let site = readFileSync(SITE_FILE, 'utf8');
  const rewrite = (from: string, to: string) => {
    expect(site, `docs/nginx/keeper.conf still says ${from}`).toContain(from);
    site = site.replace(from, to);
  };
  rewrite('listen 443 ssl;', `listen 127.0.0.1:${PORT} ssl;`);
  rewrite('server 127.0.0.1:8080;', replicas.map((r) => `server ${new URL(r.url).host};`).join('\n    '));
  rewrite('/etc/ssl/certs/keeper.example.com.pem', join(dir, 'keeper.pem'));
  rewrite('/etc/ssl/private/keeper.example.com.key', join(dir, 'keeper.key'));
  const temp = (name: string) => join(dir, name);
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      `pid ${temp('nginx.pid')};`,
      `error_log ${temp('error.log')} warn;`,
      'worker_processes 1;',
      'events { worker_connections 256; }',
      'http {',
      `  access_log ${temp('access.log')};`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${temp(t)};`),
      site,
      '}',
    ].join('\n'),
  );
  nginx = spawn('/usr/sbin/nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  nginx.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await waitFor(
    async () => {
      if (nginx.exitCode !== null) throw new Error(`nginx exited ${nginx.exitCode}: ${stderr}${readFileSync(temp('error.log'), 'utf8')}`);
      return (await viaProxy('GET', '/api/health').catch(() => null))?.status === 200;
    },
    { what: 'the replicas answering through nginx', timeoutMs: 20_000 },
  );
}, 180_000);

afterAll(async () => {
  nginx?.kill('SIGTERM');
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
