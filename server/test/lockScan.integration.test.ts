/**
 * The lock scan against a real 3-member ensemble, through the real gateway: a tree built by
 * kazoo (a third-party client) with kazoo and Curator lock directories among ordinary nodes,
 * a big directory and ZooKeeper's own /zookeeper. Every lock is found and nothing else, each
 * node costs one request, and a cancel stops the scan mid-way.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recognizeLock } from '@keeper/shared';
import { scanForLocks, type ScanOptions } from '../src/locks/scan.js';
import { ZkGateway } from '../src/zk/gateway.js';
import { kazoo, type KazooOp } from '../../scripts/lib/kazoo/index.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { testLogger } from './support/logger.js';
import { waitFor } from './support/waitFor.js';

let ensemble: SharedEnsemble;
let gateway: ZkGateway;

const SHARDS = 6;
const PER_SHARD = 30;
const BIG = 60;
const uuidHex = () => randomUUID().replace(/-/g, '');

/** Lock directories and how their contenders are named (ZooKeeper appends the sequence). */
const LOCKS: Record<string, (i: number) => string> = {
  '/scan/locks/kazoo-job': () => `${uuidHex()}__lock__`,
  '/scan/locks/curator-mutex': () => `_c_${randomUUID()}-lock-`,
  '/scan/deep/a/b/rw': (i) => `${uuidHex()}${i < 2 ? '__rlock__' : '__lock__'}`,
  '/scan/data/shard-03/leader': () => `_c_${randomUUID()}-latch-`,
};
const CONTENDERS = 3;

const isLockDirectory: ScanOptions['isLockDirectory'] = (path, children, siblings) => recognizeLock({ path, children, siblings }) !== null;

function scan(over: Partial<ScanOptions> = {}) {
  const found: string[] = [];
  const result = scanForLocks({
    root: '/',
    reader: gateway,
    isLockDirectory,
    budget: { maxChildrenDescended: 50 },
    cancelled: () => false,
    onProgress: () => undefined,
    onFound: (path) => found.push(path),
    // What this file checks is what the scan finds and asks, not its pacing (scanPacer's own
    // tests): at the default floor of 2% a scan beside other test files' load crawled (65 s for
    // 200 nodes), since their load raises the latency it backs off from.
    pacing: { minDutyCycle: 0.5, calibrationDutyCycle: 0.5, maxDutyCycle: 0.5 },
    ...over,
  });
  return { result, found };
}

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  gateway = new ZkGateway({ name: 'it', connectionString: ensemble.connectionString, requestDeadlineMs: 5_000, logger: testLogger });
  gateway.start();
  const ops: KazooOp[] = [
    // /scan/data/shard-NN/item-NNNN: ordinary nodes, 1 + 6 x (1 + 30).
    { op: 'grow', path: '/scan/data', shards: SHARDS, perShard: PER_SHARD },
    { op: 'ensure', path: '/scan/locks/empty' },
    ...Array.from({ length: BIG }, (_, i) => ({ op: 'create' as const, path: `/scan/big/task-${String(i).padStart(4, '0')}`, makepath: true })),
    ...Object.entries(LOCKS).flatMap(([dir, name]) =>
      Array.from({ length: CONTENDERS }, (_, i) => ({ op: 'create' as const, path: `${dir}/${name(i)}`, sequence: true, makepath: true, data: 'worker' })),
    ),
  ];
  await kazoo(ensemble.connectionString, ops);
  await waitFor(() => gateway.session.state === 'connected', { what: 'console session connected' });
}, 90_000);

afterAll(async () => {
  gateway?.close();
  await ensemble?.dispose();
}, 60_000);

describe('lock scan on a real ensemble', () => {
  it('finds every lock directory and nothing else, with one request per node it visits', async () => {
    const callsBefore = gateway.callsSent;
    const { result, found } = scan();
    const r = await result;
    expect(r.state).toBe('done');
    expect([...r.found].sort()).toEqual(Object.keys(LOCKS).sort());
    expect([...found].sort()).toEqual(Object.keys(LOCKS).sort());
    expect(r.skipped).toEqual([{ path: '/scan/big', reason: `${BIG} children, not descended: scan it directly` }]);

    // Visited: / /scan /scan/data, shards and items (the latch lives in shard-03 beside its items),
    // /scan/locks /scan/locks/empty, /scan/big, /scan/deep /a /b, and the four lock directories.
    const data = 1 + SHARDS * (1 + PER_SHARD);
    const expected = 2 + data + 2 + 1 + 3 + Object.keys(LOCKS).length;
    expect(r.visited).toBe(expected);
    expect(r.requests).toBe(r.visited);
    // Nothing else went to ZooKeeper for the scan (the gateway's own retries would show here).
    expect(gateway.callsSent - callsBefore).toBe(r.requests);
    expect(r.pacing.baselineMs).not.toBeNull();
  });

  it('scans a subtree, and descends a big directory when it is the root', async () => {
    const r = await scan({ root: '/scan/big' }).result;
    expect(r.state).toBe('done');
    expect(r.visited).toBe(BIG + 1);
    expect(r.found).toEqual([]);
    const locks = await scan({ root: '/scan/locks' }).result;
    expect([...locks.found].sort()).toEqual(['/scan/locks/curator-mutex', '/scan/locks/kazoo-job']);
  });

  it('stops soon after a cancel, mid-scan', async () => {
    let cancel = false;
    const progress: number[] = [];
    const { result } = scan({
      cancelled: () => cancel,
      progressIntervalMs: 0,
      onProgress: (p) => {
        progress.push(p.visited);
        if (p.visited >= 40) cancel = true;
      },
    });
    const callsBefore = gateway.callsSent;
    const r = await result;
    expect(r.state).toBe('cancelled');
    expect(r.visited).toBeGreaterThanOrEqual(40);
    expect(r.visited).toBeLessThan(45);
    expect(r.skippedTotal).toBeGreaterThan(0);
    expect(r.skipped.filter((s) => s.reason === 'not visited: the scan was cancelled').length).toBeGreaterThan(0);
    // Nothing more is sent after it returns.
    const sent = gateway.callsSent;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gateway.callsSent).toBe(sent);
    expect(sent - callsBefore).toBeLessThanOrEqual(r.requests);
  });

  it('reads a vanished node as normal and a missing root as said', async () => {
    const r = await scan({ root: '/scan/nothing-here' }).result;
    expect(r).toMatchObject({ state: 'done', visited: 0, skipped: [{ path: '/scan/nothing-here', reason: 'it does not exist' }] });
  });
});
