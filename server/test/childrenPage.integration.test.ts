/**
 * The API's znode page against a real ensemble: a znode some browser watches is answered from
 * the watch registry with no ZooKeeper call (counted by the gateway), and still follows changes
 * made by another client; a znode nobody watches is read from ZooKeeper.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sortChildNames } from '@keeper/shared';
import { ZkGateway } from '../src/zk/gateway.js';
import { ChildrenPageCache } from '../src/http/childrenPageCache.js';
import { readZnodePage } from '../src/http/znodePage.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { RecordingListener } from './support/recordingListener.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

let ensemble: SharedEnsemble;
let gateway: ZkGateway;
let other: RawClient;
const pages = new ChildrenPageCache();
const CHILDREN = ['n10', 'n2', 'n1', 'b', 'a', 'lock-0000000002', 'lock-0000000001'];

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  gateway = new ZkGateway({ name: 'it', connectionString: ensemble.connectionString, requestDeadlineMs: 5_000, logger: testLogger });
  gateway.start();
  other = await connectRaw(ensemble.connectionString);
  for (const dir of ['/watched', '/unwatched']) {
    await other.create(dir, `value of ${dir}`);
    for (const name of CHILDREN) await other.create(`${dir}/${name}`);
  }
  await waitFor(() => gateway.session.state === 'connected', { what: 'console session connected' });
}, 90_000);

afterAll(async () => {
  gateway?.close();
  other?.close();
  await ensemble?.dispose();
}, 60_000);

describe('a znode page', () => {
  it('reads a znode nobody watches from ZooKeeper: a getData and a getChildren', async () => {
    const before = gateway.callsSent;
    const page = await readZnodePage(gateway, pages, '/unwatched', 1, 3);
    expect(gateway.callsSent - before).toBe(2);
    expect(page).toMatchObject({ ensemble: 'it', path: '/unwatched', data: { value: 'value of /unwatched' }, stat: { numChildren: CHILDREN.length } });
    expect(page.children).toEqual({ total: CHILDREN.length, offset: 1, limit: 3, names: sortChildNames(CHILDREN).slice(1, 4) });
  });

  it('answers a watched znode from the watch registry, with no ZooKeeper call, the same as a read would', async () => {
    const listener = new RecordingListener();
    const off = gateway.watches.watch('/watched', listener);
    try {
      await waitFor(() => gateway.heldZnode('/watched'), { what: 'the registry to hold /watched' });
      const fromZooKeeper = await readZnodePage({ ...gatewayReads(), heldZnode: () => null }, new ChildrenPageCache(), '/watched', 0, 100);
      const calls = gateway.callsSent;
      const registryReads = gateway.watches.reads;
      for (let i = 0; i < 20; i++) expect(await readZnodePage(gateway, pages, '/watched', 0, 100)).toEqual(fromZooKeeper);
      expect(await readZnodePage(gateway, pages, '/watched', 2, 2)).toMatchObject({ children: { names: sortChildNames(CHILDREN).slice(2, 4) } });
      expect(gateway.callsSent).toBe(calls);
      expect(gateway.watches.reads).toBe(registryReads);
    } finally {
      off();
    }
  });

  it('follows another client’s changes to a watched znode, and reads ZooKeeper again once nobody watches it', async () => {
    const off = gateway.watches.watch('/watched', new RecordingListener());
    await waitFor(() => gateway.heldZnode('/watched'), { what: 'the registry to hold /watched' });
    await other.create('/watched/0-first');
    await other.remove('/watched/n2');
    await other.set('/watched', 'changed');
    const expected = sortChildNames([...CHILDREN.filter((n) => n !== 'n2'), '0-first']);
    // The registry re-reads on the watch events; the page follows without a read of its own. Until
    // every re-read has settled, the registry holds nothing and a page is read from ZooKeeper:
    // wait for the registry itself to hold the new state before counting calls.
    const page = await waitFor(
      async () => {
        const held = gateway.heldZnode('/watched');
        if (!held || held.children.length !== expected.length || held.stat.version === 0) return null;
        const p = await readZnodePage(gateway, pages, '/watched', 0, 100);
        return p.data.value === 'changed' && p.children.names.join() === expected.join() && gateway.heldZnode('/watched') !== null ? p : null;
      },
      { what: 'the page to show the changes' },
    );
    expect(page.stat.numChildren).toBe(expected.length);
    expect(page.children.total).toBe(expected.length);
    const calls = gateway.callsSent;
    await readZnodePage(gateway, pages, '/watched', 0, 100);
    expect(gateway.callsSent).toBe(calls);

    off();
    expect(gateway.heldZnode('/watched')).toBeNull();
    // The watch's removal (removeWatches) is a call of its own: let it settle before counting.
    await waitFor(() => gateway.watches.removalStats.removed > 0 && gateway.watches.removalStats.inFlight === 0, { what: 'the watch removed' });
    const beforeRead = gateway.callsSent;
    const read = await readZnodePage(gateway, pages, '/watched', 0, 100);
    expect(gateway.callsSent - beforeRead).toBe(2);
    expect(read.children.names).toEqual(expected);
  });
});

/** The gateway's reads without its registry: what the page is without a watch. */
function gatewayReads() {
  return { name: gateway.name, getData: gateway.getData.bind(gateway), getChildren: gateway.getChildren.bind(gateway) };
}
