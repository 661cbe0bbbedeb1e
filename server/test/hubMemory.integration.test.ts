/**
 * Socket memory on a real ensemble (issue 25, item 3): 300 sockets subscribed to a znode of
 * 100,000 children (a 5.5 MB list), none of them reading. Before, each socket's first frame was
 * its own copy of the list, built and sent unconditionally: Keeper grew from 109 MB to 4.7 GB
 * in 18 s with 450 of them. Now the list goes in pages serialized once, every socket is handed
 * the same bytes, each takes at most its budget, and a socket that reads nothing is closed as
 * too slow; a browser that reads gets the whole list, and an admin is served throughout.
 * HUB_MEMORY_DEBUG=1 prints what was measured.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import zookeeper from 'node-zookeeper-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { PORT_OFFSETS, ensembleConfigOf, startTestEnsemble } from './support/testEnsemble.js';
import { connectRaw, createMany, type RawClient } from './support/rawClient.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

const ADMIN = 'admin-token-for-hub-memory-0123456789';
const VIEWER = 'viewer-token-for-hub-memory-0123456789';
const BIG = '/big';
const CHILDREN = 100_000;
const SILENT_SOCKETS = 300;
const STALL_SECONDS = 3;

/** 52 characters: the list is about 5.5 MB as JSON. */
const childName = (i: number) => `worker-${String(i).padStart(8, '0')}-${'n'.repeat(36)}`;

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let keeper: RunningKeeper;
let raw: RawClient;
let stateDir: string;
const silent: WebSocket[] = [];

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

async function createChildren(): Promise<void> {
  await raw.create(BIG, 'a directory of 100,000 workers');
  const nodes = Array.from({ length: CHILDREN }, (_, i) => ({ path: `${BIG}/${childName(i)}` }));
  await createMany(raw.client, nodes, zookeeper.CreateMode.PERSISTENT, { perTransaction: 2_500, inFlight: 4 });
}

/** A viewer's socket that says hello, subscribes to the big list and then never reads again. */
async function openSilent(): Promise<WebSocket> {
  const socket = new WebSocket(`${keeper.url.replace(/^http/, 'ws')}/ws`, { headers: { authorization: `Bearer ${VIEWER}` } });
  silent.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('message', () => resolve());
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'hello', protocolVersion: PROTOCOL_VERSION })));
  });
  (socket as unknown as { _socket: { pause(): void } })._socket.pause();
  socket.send(JSON.stringify({ type: 'subscribe', topic: 'znode', ensemble: 'it', params: { path: BIG } }));
  return socket;
}

beforeAll(async () => {
  // One member, no fsync per write: 100,000 creates in seconds (what is measured is Keeper, not the disk).
  ensemble = await startTestEnsemble(PORT_OFFSETS.hubMemoryTest, { size: 1, extraConfig: { forceSync: 'no' } });
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-hub-memory-'));
  raw = await connectRaw(ensemble.connectionString);
  const started = Date.now();
  await createChildren();
  if (process.env.HUB_MEMORY_DEBUG) console.log(`created ${CHILDREN} children in ${Date.now() - started} ms`);
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      ensembles: [ensembleConfigOf(ensemble)],
      auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
      // The silent sockets are bearer sockets from one address (one person): let them all in.
      limits: { socketsPerPerson: 1_000, socketStallSeconds: STALL_SECONDS },
    },
    { logger: testLogger, rateLimits: { api: 100_000, loginFailures: 1_000 } },
  );
}, 180_000);

afterAll(async () => {
  for (const s of silent) s.terminate();
  raw?.close();
  await keeper?.close();
  await ensemble?.dispose();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('300 sockets that never read, on a znode of 100,000 children', () => {
  it('keep Keeper within its budgets, get the list in shared pages, and are closed as too slow; a reader gets it all and an admin is served', async () => {
    const t0 = Date.now();
    const lap = (what: string) => process.env.HUB_MEMORY_DEBUG && console.log(`${what}: ${Date.now() - t0} ms`);
    const reader = await TestBrowser.open(keeper.url, { headers: { authorization: `Bearer ${ADMIN}` } });
    await reader.subscribed('znode', 'it', { path: BIG });
    await waitFor(() => reader.childrenOf('it', BIG).length === CHILDREN, { what: 'the whole list, in pages', timeoutMs: 60_000 });
    const pages = reader.znodeEvents('it', BIG).filter((e) => e.kind === 'children' && e.mode === 'page');
    expect(pages.length).toBeGreaterThan(10);
    expect(reader.childrenOf('it', BIG)).toEqual(Array.from({ length: CHILDREN }, (_, i) => childName(i)).sort());

    lap('reader has the list');
    collectGarbage();
    const rssBefore = process.memoryUsage().rss;
    const heapBefore = process.memoryUsage().heapUsed;
    let peakRss = rssBefore;
    let peakHeap = heapBefore;
    let peakDistinct = 0;
    let peakPerSocket = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
      const stats = keeper.hub.stats;
      peakDistinct = Math.max(peakDistinct, stats.distinctBufferedBytes);
      peakPerSocket = Math.max(peakPerSocket, stats.largestBufferedBytes);
    }, 20);
    try {
      for (let i = 0; i < SILENT_SOCKETS; i += 50) await Promise.all(Array.from({ length: 50 }, () => openSilent()));
      lap('silent sockets opened');
      // Meanwhile an admin's new view is served at once.
      await reader.subscribed('znode', 'it', { path: '/zookeeper' });
      await waitFor(() => reader.lastZnode('it', '/zookeeper'), { what: 'an admin served during the flood', timeoutMs: 5_000 });
      await waitFor(() => keeper.hub.stats.droppedTooSlow >= SILENT_SOCKETS, {
        what: 'every silent socket closed as too slow',
        timeoutMs: 30_000 + STALL_SECONDS * 1000,
      });
    } finally {
      clearInterval(sampler);
    }
    lap('silent sockets closed');
    const mib = (n: number) => `${(n / 1048576).toFixed(0)} MiB`;
    if (process.env.HUB_MEMORY_DEBUG)
      console.log(
        `RSS +${mib(peakRss - rssBefore)}, heap +${mib(peakHeap - heapBefore)}, unsent bytes (shared once) ${mib(peakDistinct)}, per socket ${mib(peakPerSocket)}`,
      );
    // Before: several GB.
    expect(peakRss - rssBefore).toBeLessThan(300 * 1024 * 1024);
    expect(peakHeap - heapBefore).toBeLessThan(200 * 1024 * 1024);
    expect(peakDistinct).toBeLessThanOrEqual(keeper.hub.limits.maxBufferedBytesTotal);
    expect(peakPerSocket).toBeLessThanOrEqual(keeper.hub.limits.maxBufferedBytes);
    await waitFor(() => keeper.hub.stats.distinctBufferedBytes === 0 && keeper.hub.stats.sockets === 1, { what: 'their bytes released' });
    // The reader was never dropped, and still follows the list live.
    expect(reader.closeCode).toBeNull();
    // The flood can stall this process past the raw session's pings (beside other files, at a
    // load of 17, its connection was lost here): a lost connection is read back, not a failure.
    await createMany(raw.client, [{ path: `${BIG}/after-the-flood` }]);
    await waitFor(() => reader.childrenOf('it', BIG).includes('after-the-flood'), { what: 'a change after the flood' });
    reader.close();
  }, 180_000);
});
