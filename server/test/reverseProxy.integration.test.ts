/**
 * Keeper behind a real nginx (Debian's nginx-light, started here on loopback) terminating TLS,
 * with the README's own site file, docs/nginx/keeper.conf: only its listen address, certificate
 * and upstream are rewritten for this machine. Through it:
 *  - a sign-in gets a Secure cookie, and a share link an https URL (trustProxy reads
 *    X-Forwarded-Proto), where the same Keeper reached directly gives neither;
 *  - the live socket (wss) is upgraded through the proxy and carries a write made by another client;
 *  - a write from another site's page is still refused (the Host nginx passes keeps its port).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
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

const ADMIN_TOKEN = 'proxy-admin-token-0123456789abc';
const SITE_FILE = join(import.meta.dirname, '../../docs/nginx/keeper.conf');
const PORT = KEEPER_PORTS.nginxTest;
const PROXY = `https://127.0.0.1:${PORT}`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

describe('Keeper behind nginx terminating TLS (docs/nginx/keeper.conf)', () => {
  let ensemble: SharedEnsemble;
  let keeper: RunningKeeper;
  let nginx: ChildProcess;
  let dir: string;
  let ca: Buffer;

  /** A request through the proxy, trusting the test's own certificate. */
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

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keeper-nginx-'));
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

    // The shipped site file, with only what differs on this machine rewritten; each rewrite must hit.
    let site = readFileSync(SITE_FILE, 'utf8');
    const rewrite = (from: string, to: string) => {
      expect(site, `docs/nginx/keeper.conf still says ${from}`).toContain(from);
      site = site.replace(from, to);
    };
    rewrite('listen 443 ssl;', `listen 127.0.0.1:${PORT} ssl;`);
    rewrite('server 127.0.0.1:8080;', `server ${new URL(keeper.url).host};`);
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
      { what: 'Keeper answering through nginx', timeoutMs: 20_000 },
    );
  }, 60_000);

  afterAll(async () => {
    nginx?.kill('SIGTERM');
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
    try {
      await writer.create('/through-nginx', 'before');
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
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
