/**
 * How the built web app is served: compressed, hashed assets immutable for a year, index.html
 * revalidated, source maps never served, deep links answered with index.html. Real HTTP over
 * a web dir laid out as `vite build` lays it out (hashed names under assets/, hidden maps).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMMUTABLE, staticWeb } from '../../src/http/staticWeb.js';

const SCRIPT = `export const rows = [${Array.from({ length: 400 }, (_, i) => `{id:${i},name:"node-${i}"}`).join(',')}];\n`;
/** What the build wrote beside a chunk (web/vite.config.ts), at qualities the middleware would not spend per request. */
const PRECOMPRESSED = `export const big = ${JSON.stringify('precompressed '.repeat(200))};\n`;
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>';

let dist: string;
let server: Server;
let base: string;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function get(path: string, acceptEncoding?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
}

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'keeper-static-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), INDEX);
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dist, 'assets', 'index-AbC123.js'), SCRIPT);
  writeFileSync(join(dist, 'assets', 'chunk-Pre123.js'), PRECOMPRESSED);
  writeFileSync(join(dist, 'assets', 'chunk-Pre123.js.br'), brotliCompressSync(PRECOMPRESSED));
  writeFileSync(join(dist, 'assets', 'chunk-Pre123.js.gz'), gzipSync(PRECOMPRESSED, { level: 9 }));
  writeFileSync(join(dist, 'index.html.br'), brotliCompressSync(INDEX));
  writeFileSync(join(dist, 'assets', 'index-AbC123.js.map'), '{"version":3,"sources":["/home/dev/keeper/web/src/main.tsx"]}');
  const app = express();
  app.get('/api/ping', (_req, res) => {
    res.json({ pong: 'x'.repeat(4000) });
  });
  app.use(staticWeb(dist));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dist, { recursive: true, force: true });
});

describe('staticWeb', () => {
  it('compresses the script with br or gzip, as the browser asks, and caches it immutably', async () => {
    const br = await get('/assets/index-AbC123.js', 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers['cache-control']).toBe(IMMUTABLE);
    expect(br.body.length).toBeLessThan(SCRIPT.length / 3);
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);

    const gzip = await get('/assets/index-AbC123.js', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(SCRIPT);

    const plain = await get('/assets/index-AbC123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('serves the build’s precompressed files as they are, typed as their originals, and the original to a browser that accepts neither', async () => {
    // A distinct body proves the file on disk was sent, not a fresh compression of the original.
    writeFileSync(join(dist, 'assets', 'chunk-Pre123.js.br'), brotliCompressSync('/* from the .br file */'));
    const br = await get('/assets/chunk-Pre123.js', 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers['cache-control']).toBe(IMMUTABLE);
    expect(brotliDecompressSync(br.body).toString()).toBe('/* from the .br file */');
    writeFileSync(join(dist, 'assets', 'chunk-Pre123.js.br'), brotliCompressSync(PRECOMPRESSED));

    const gzip = await get('/assets/chunk-Pre123.js', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(PRECOMPRESSED);
    const plain = await get('/assets/chunk-Pre123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(PRECOMPRESSED);

    // index.html too, by name and for a deep link, revalidated.
    for (const path of ['/index.html', '/ensembles/prod/znodes/app']) {
      const page = await get(path, 'br');
      expect(page.headers['content-encoding'], path).toBe('br');
      expect(page.headers['content-type'], path).toMatch(/^text\/html/);
      expect(page.headers['cache-control'], path).toBe('no-cache');
      expect(brotliDecompressSync(page.body).toString(), path).toBe(INDEX);
    }
    // A path out of the directory is no file of it.
    expect((await get('/assets/..%2f..%2fetc%2fpasswd', 'br')).status).toBe(404);
  });

  it('revalidates index.html on every load, whether asked for by name or by a deep link', async () => {
    for (const path of ['/', '/index.html', '/ensembles/prod/znodes/app/config.map', '/login?next=%2Faudit']) {
      const page = await get(path, 'gzip');
      expect(page.status, path).toBe(200);
      expect(page.headers['cache-control'], path).toBe('no-cache');
      expect(page.headers['content-type'], path).toMatch(/^text\/html/);
    }
    expect((await get('/favicon.svg')).headers['cache-control']).toBe('no-cache');
  });

  it('never serves a source map, and answers a missing asset with 404 rather than index.html', async () => {
    const map = await get('/assets/index-AbC123.js.map');
    expect(map.status).toBe(404);
    expect(map.body.toString()).not.toContain('/home/dev');
    expect((await get('/assets/index-AbC123.js.map?x=1')).status).toBe(404);
    const gone = await get('/assets/index-OldHash.js');
    expect(gone.status).toBe(404);
    expect(gone.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('leaves API answers uncompressed (they carry the CSRF token: BREACH)', async () => {
    const api = await get('/api/ping', 'gzip, br');
    expect(api.status).toBe(200);
    expect(api.headers['content-encoding']).toBeUndefined();
  });
});
