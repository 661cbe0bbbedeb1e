/**
 * The installable build, as a team would install it: `npm pack` (which builds dist/), then the
 * Dockerfile's own install line into a temporary prefix (production dependencies only), then the
 * installed `keeper` command started with a PATH that holds Node.js and the system's basic tools
 * only, against a real ensemble: /api/health, the first page and its script, a live update over
 * the socket when another client writes, and `keeper --help`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { connectRaw } from './support/rawClient.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const ADMIN_TOKEN = 'package-admin-token-0123456789';

/**
 * The Dockerfile's install line, run as written, but served from the npm cache that `npm ci` has
 * just filled (the same packages: the lockfile's versions satisfy the package's ranges), going to
 * the registry only for what the cache lacks. It then takes ~15 s with or without a network; with
 * neither the cache nor a registry it fails in ~30 s with npm's own error (EAI_AGAIN ...), where
 * npm's defaults (5 min per request, retried) ran into this file's timeout after 300 s.
 */
const FROM_THE_CACHE = {
  npm_config_prefer_offline: 'true',
  npm_config_fetch_timeout: '15000',
  npm_config_fetch_retries: '1',
  npm_config_fetch_retry_mintimeout: '1000',
  npm_config_fetch_retry_maxtimeout: '2000',
};

/** The Dockerfile's `RUN npm install ... /tmp/keeper.tgz` line, as argv, with the tarball and a prefix put in. */
function dockerfileInstall(tarball: string, prefix: string): string[] {
  const line = readFileSync(path.join(REPO, 'Dockerfile'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('RUN npm install'));
  if (!line) throw new Error('the Dockerfile has no "RUN npm install" line');
  const argv = line.slice('RUN '.length).split('&&')[0]!.trim().split(/\s+/);
  return [...argv.map((arg) => (arg === '/tmp/keeper.tgz' ? tarball : arg)), '--prefix', prefix];
}

describe('the packed tarball, installed with production dependencies only', () => {
  let work: string;
  let prefix: string;
  let keeper: ChildProcess | null = null;
  let url = '';
  let ensemble: SharedEnsemble;
  const output: string[] = [];
  /** Node.js and the basic system tools, nothing from the repository or its node_modules. */
  const onlyNode = () => ({ PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: work });

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'keeper-package-'));
    prefix = path.join(work, 'prefix');
    const [started] = await Promise.all([
      leaseSharedEnsemble(),
      run('npm', ['pack', '--pack-destination', work], { cwd: REPO, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 }),
    ]);
    ensemble = started;
    const tarball = readdirSync(work).find((f) => /^keeper-.*\.tgz$/.test(f));
    if (!tarball) throw new Error(`npm pack wrote no keeper-*.tgz into ${work}`);
    const [npm, ...args] = dockerfileInstall(path.join(work, tarball), prefix);
    await run(npm!, args, { cwd: work, env: { ...process.env, ...FROM_THE_CACHE }, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  }, 420_000);

  afterAll(async () => {
    keeper?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    keeper?.kill('SIGKILL');
    await ensemble?.dispose();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('holds the built server and web app, and no development dependency', () => {
    const installed = path.join(prefix, 'lib', 'node_modules', 'keeper');
    expect(existsSync(path.join(installed, 'dist', 'keeper.js'))).toBe(true);
    expect(existsSync(path.join(installed, 'dist', 'web', 'index.html'))).toBe(true);
    const modules = readdirSync(path.join(installed, 'node_modules'));
    expect(modules).toEqual(expect.arrayContaining(['express', 'ws', 'node-zookeeper-client', 'prom-client', 'zod']));
    for (const dev of ['tsx', 'typescript', 'vite', 'vitest', 'esbuild', 'react', '@playwright', 'eslint']) expect(modules).not.toContain(dev);
    // No TypeScript sources: nothing needs a compiler at run time.
    expect(readdirSync(installed)).not.toContain('server');
  });

  it('prints every flag, environment variable and config key with --help', async () => {
    const { stdout } = await run('keeper', ['--help'], { env: onlyNode(), cwd: work });
    expect(stdout).toMatch(/^Usage: keeper \[options\]/);
    expect(stdout).toMatch(/--zk <host:port/);
    expect(stdout).toMatch(/KEEPER_METRICS_TOKEN/);
  });

  it('serves an ensemble: health, the first page and its script, and a live update when another client writes', async () => {
    keeper = spawn('keeper', ['--zk', ensemble.connectionString, '--port', '0', '--data-dir', path.join(work, 'data')], {
      env: { ...onlyNode(), KEEPER_ADMIN_TOKEN: ADMIN_TOKEN },
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    keeper.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    keeper.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    url = await waitFor(() => /Keeper is serving (http:\/\/\S+)/.exec(output.join(''))?.[1], {
      what: `the installed keeper to serve (output: ${output.join('')})`,
      timeoutMs: 30_000,
    });
    const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

    const health = await waitFor(
      async () => {
        const body = (await (await fetch(`${url}/api/health`, { headers: auth })).json()) as { status: string; ensembles: { state: string }[] };
        return body.ensembles[0]?.state === 'connected' ? body : null;
      },
      { what: 'the installed keeper connected', timeoutMs: 30_000 },
    );
    expect(health.status).toBe('ok');

    const page = await fetch(`${url}/`, { headers: auth });
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
    expect(script, 'the page loads its script').toBeDefined();
    const js = await fetch(new URL(script!, url), { headers: auth });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);

    const raw = await connectRaw(ensemble.connectionString);
    try {
      await raw.mkdirp('/pkg');
      await raw.create('/pkg/live', 'before');
      const browser = await TestBrowser.open(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      try {
        await browser.subscribed('znode', 'default', { path: '/pkg/live' });
        const valueNow = () => {
          const z = browser.lastZnode('default', '/pkg/live');
          return z?.node.exists ? z.node.data.value : null;
        };
        await waitFor(() => valueNow() === 'before', { what: 'the first state' });
        await raw.set('/pkg/live', 'after');
        await waitFor(() => valueNow() === 'after', { what: 'the live update', timeoutMs: 5_000 });
      } finally {
        browser.close();
      }
    } finally {
      raw.close();
    }
  });
});
