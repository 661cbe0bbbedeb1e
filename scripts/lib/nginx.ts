/**
 * A real nginx (Debian's nginx-light) on loopback in front of Keeper, run with the shipped
 * site file, docs/nginx/keeper.conf. Only what differs on this machine is rewritten: the listen
 * address, the upstream servers (one Keeper, or several replicas: round robin, nothing sticky)
 * and the certificate files. Each rewrite must hit, so the shipped file cannot drift from what the
 * tests run. TLS ends at nginx with a self-signed certificate the test trusts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';

// Used by vitest integration tests, Playwright specs and bench scripts alike: plain errors, no test runner's expect.
const SITE_FILE = join(import.meta.dirname, '../../docs/nginx/keeper.conf');

export interface ProxyAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the JSON of any route, read field by field by the tests
  body: any;
}

export type ViaProxy = (method: string, path: string, headers?: Record<string, string>, body?: unknown) => Promise<ProxyAnswer>;

export interface RunningNginx {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The certificate nginx presents, to trust in requests and sockets. */
  ca: Buffer;
  /** A request through nginx (JSON in and, when it parses, out). */
  viaProxy: ViaProxy;
  /** The last lines of nginx's error log (warn and up): why it answered 502, which upstream it gave up on. */
  errorLogTail(lines?: number): string;
  stop(): void;
}

/** Starts nginx in `dir` (a fresh temp dir the caller removes) and waits until GET /api/health answers 200 through it. */
export async function startNginx(dir: string, port: number, upstreams: readonly string[]): Promise<RunningNginx> {
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
  if (made.status !== 0) throw new Error(`openssl could not make nginx's certificate: ${made.stderr}`);
  const ca = readFileSync(join(dir, 'keeper.pem'));
  const url = `https://127.0.0.1:${port}`;

  let site = readFileSync(SITE_FILE, 'utf8');
  const rewrite = (from: string, to: string) => {
    if (!site.includes(from)) throw new Error(`docs/nginx/keeper.conf no longer says ${from}`);
    site = site.replace(from, to);
  };
  rewrite('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`);
  rewrite('server 127.0.0.1:8080;', upstreams.map((host) => `server ${host};`).join('\n    '));
  rewrite('/etc/ssl/certs/keeper.example.com.pem', join(dir, 'keeper.pem'));
  rewrite('/etc/ssl/private/keeper.example.com.key', join(dir, 'keeper.key'));
  const temp = (name: string) => join(dir, name);
  writeFileSync(
    temp('nginx.conf'),
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
  const nginx: ChildProcess = spawn('/usr/sbin/nginx', ['-p', dir, '-c', temp('nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  nginx.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const viaProxy = proxyClient(url, ca);
  const stop = () => void nginx.kill('SIGTERM');
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (nginx.exitCode !== null) throw new Error(`nginx exited ${nginx.exitCode}: ${stderr}${readFileSync(temp('error.log'), 'utf8')}`);
      if ((await viaProxy('GET', '/api/health').catch(() => null))?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`Keeper did not answer through nginx within 20 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (error) {
    stop();
    throw error;
  }
  const errorLogTail = (lines = 40) =>
    existsSync(temp('error.log')) ? readFileSync(temp('error.log'), 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '';
  return { url, ca, viaProxy, errorLogTail, stop };
}

function proxyClient(url: string, ca: Buffer): ViaProxy {
  return (method, path, headers = {}, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(`${url}${path}`, { method, ca, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
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
