/**
 * What the first page costs a browser: builds the web app with its manifest (Vite's own record of
 * every chunk, what it imports statically and what it loads on demand) and adds up the JavaScript
 * the tree route loads before it can show anything: the entry with everything it imports, and the
 * tree view's chunk with everything it imports. Sizes are gzip at level 9 (what a gzip-only
 * browser gets of the precompressed files) and brotli at quality 11 (what the server sends a
 * browser that accepts it); the goal is set in gzip. Then it serves the build with the server's own
 * static router (server/src/http/staticWeb.ts) on loopback and asks for every file of it as a
 * browser does (`Accept-Encoding: gzip, deflate, br`): each text file must come back brotli, and
 * the first route's bytes on the wire are what the report gives as "over the wire".
 *
 *   npx tsx bench/bundle.ts
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { decode } from '@jridgewell/sourcemap-codec';
import express from 'express';
import { staticWeb } from '../server/src/http/staticWeb.js';
import { buildWithManifest, FIRST_ROUTE_GOAL_BYTES, firstRouteFiles } from '../scripts/lib/bundle/firstRoute.js';
import { runBench } from './support/lifecycle.js';

const GOAL_BYTES = FIRST_ROUTE_GOAL_BYTES;

/** Files a browser may fetch from the build: everything but the manifest, the maps and the precompressed copies. */
function servedFiles(dir: string, root = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === '.vite' ? [] : servedFiles(path, root);
    return /\.(map|br|gz)$/.test(name) ? [] : [`/${relative(root, path)}`];
  });
}

/** Text a browser fetches: what must come compressed. */
const TEXT = /\.(js|css|html|svg|json|txt|webmanifest)$/;

/** Asks the server for each file as a browser does; the encoding and the bytes on the wire of each. */
async function overTheWire(distDir: string, files: readonly string[]): Promise<Map<string, { encoding: string | null; bytes: number }>> {
  const app = express().use(staticWeb(distDir));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const got = new Map<string, { encoding: string | null; bytes: number }>();
    for (const file of files) {
      // node:http, not fetch: fetch would decode the body, and the wire's bytes are what count.
      const res = await new Promise<IncomingMessage>((done, fail) =>
        get({ host: '127.0.0.1', port, path: file, headers: { 'Accept-Encoding': 'gzip, deflate, br' } }, done).on('error', fail),
      );
      let bytes = 0;
      for await (const part of res) bytes += (part as Buffer).length;
      if (res.statusCode !== 200) throw new Error(`${file} answered ${res.statusCode}`);
      const encoding = res.headers['content-encoding'] ?? null;
      got.set(file, { encoding, bytes });
    }
    return got;
  } finally {
    server.close();
  }
}

/** The part of the app a source file is: a library by its package name, or Keeper's own code by workspace. */
function partOf(source: string): string {
  const library = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
  if (library) return library[1]!;
  if (source.includes('shared/src/')) return 'Keeper: shared/ (schemas, routes, topics, domain)';
  if (source.includes('web/src/')) return 'Keeper: web/';
  return 'the bundler’s own';
}

/**
 * The characters of a built chunk per part, from its source map (the build writes hidden maps):
 * each mapped segment's characters go to its source's part. A chunk's gzip bytes are then shared
 * out in the same proportions: approximate (gzip does not compress every part alike) but enough
 * to say where the first route's weight is.
 */
function charsByPart(dir: string, file: string): Map<string, number> {
  const code = readFileSync(join(dir, file), 'utf8');
  // The bundler's runtime chunk has no map: all of it is the bundler's.
  if (!existsSync(join(dir, `${file}.map`))) return new Map([['the bundler’s own', code.length]]);
  const lines = code.split('\n');
  const map = JSON.parse(readFileSync(join(dir, `${file}.map`), 'utf8')) as { sources: string[]; mappings: string };
  const parts = new Map<string, number>();
  decode(map.mappings).forEach((segments, i) => {
    const length = lines[i]?.length ?? 0;
    segments.forEach((segment, j) => {
      const end = segments[j + 1]?.[0] ?? length;
      const source = segment.length >= 4 ? map.sources[segment[1]!] : undefined;
      const part = source === undefined ? 'the bundler’s own' : partOf(source);
      parts.set(part, (parts.get(part) ?? 0) + end - segment[0]);
    });
  });
  return parts;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

await runBench('bundle', { timeoutMs: 180_000 }, async ({ defer, log }) => {
  const out = mkdtempSync(join(tmpdir(), 'keeper-bundle-'));
  defer('remove the build', () => rmSync(out, { recursive: true, force: true }));
  log('vite build --manifest ...');
  const { manifest } = buildWithManifest(out);
  const firstFiles = firstRouteFiles(manifest);

  const sized = (file: string) => {
    const code = readFileSync(join(out, file));
    return {
      file,
      raw: code.length,
      gzip: gzipSync(code, { level: 9 }).length,
      brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  };
  const first = firstFiles.map(sized).sort((a, b) => b.gzip - a.gzip);
  const all = [...new Set(Object.values(manifest).map((c) => c.file))].filter((f) => f.endsWith('.js')).map(sized);
  const sum = (list: readonly { raw: number; gzip: number; brotli: number }[], key: 'raw' | 'gzip' | 'brotli') => list.reduce((s, x) => s + x[key], 0);
  const gzip = sum(first, 'gzip');
  const later = all.filter((c) => !first.some((f) => f.file === c.file));

  // Each first-route chunk's gzip bytes shared out over its parts.
  const byPart = new Map<string, number>();
  for (const chunk of first) {
    const chars = charsByPart(out, chunk.file);
    const total = [...chars.values()].reduce((a, b) => a + b, 0);
    for (const [part, n] of chars) byPart.set(part, (byPart.get(part) ?? 0) + (total === 0 ? 0 : (chunk.gzip * n) / total));
  }
  const parts = [...byPart].sort((a, b) => b[1] - a[1]);
  const small = parts.filter(([, bytes]) => bytes < 512);

  log("serving the build with the server's static router, every file asked for as a browser does ...");
  const files = servedFiles(out);
  const wire = await overTheWire(out, files);
  const texts = files.filter((f) => TEXT.test(f));
  const notBrotli = texts.filter((f) => wire.get(f)?.encoding !== 'br');
  const firstWire = first.reduce((s, c) => s + (wire.get(`/${c.file}`)?.bytes ?? Number.NaN), 0);

  return {
    bench: 'bundle',
    title: 'Bundle: the JavaScript of the first route (the tree)',
    lines: [
      `first route: ${first.length} chunks, ${kb(sum(first, 'raw'))} raw, ${kb(gzip)} gzip, ${kb(sum(first, 'brotli'))} brotli (goal ${kb(GOAL_BYTES)} gzip: ${(gzip / GOAL_BYTES).toFixed(2)}x)`,
      ...first.map((c) => `  ${c.file.padEnd(44)} ${kb(c.raw).padStart(9)} raw ${kb(c.gzip).padStart(9)} gzip ${kb(c.brotli).padStart(9)} br`),
      `where the first route's gzip goes (each chunk's share by its source map's characters):`,
      ...parts.filter(([, bytes]) => bytes >= 512).map(([part, bytes]) => `  ${part.padEnd(52)} ${kb(bytes).padStart(9)} gzip`),
      ...(small.length === 0 ? [] : [`  (${small.length} parts under 0.5 KB each: ${kb(small.reduce((sum, [, bytes]) => sum + bytes, 0))})`]),
      `loaded later, on demand: ${later.length} chunks, ${kb(sum(later, 'gzip'))} gzip`,
      `served: ${files.length} files asked for with Accept-Encoding: gzip, deflate, br; ${texts.length - notBrotli.length} text files came back brotli` +
        (notBrotli.length === 0 ? ', none without' : `, NOT: ${notBrotli.join(', ')}`) +
        `; the first route's JavaScript over the wire: ${kb(firstWire)}`,
    ],
    rows: [
      {
        measure: 'JavaScript the tree route loads first, gzip -9 (brotli q11 is what browsers get)',
        keeper: `${kb(gzip)} (${kb(sum(first, 'brotli'))} br)`,
        baseline: `${kb(GOAL_BYTES)} (goal)`,
        ratio: gzip / GOAL_BYTES,
        target: '≤ 1',
        withinTarget: gzip <= GOAL_BYTES,
      },
      {
        measure: 'text files of the build the server sends brotli to a browser that accepts it (a real request each)',
        keeper: `${texts.length - notBrotli.length}`,
        baseline: `${texts.length}`,
        ratio: (texts.length - notBrotli.length) / texts.length,
        target: '= 1',
        withinTarget: notBrotli.length === 0,
      },
    ],
    notes: [],
    zookeeperVersion: 'n/a',
  };
});
