/**
 * ZooKeeper's sync through node-zookeeper-client's queue (server/src/zk/sync.ts), on a real
 * ensemble: the member answers it, the library reads the reply without losing the session or its
 * order, and a read after it on one member sees what another member acknowledged just before.
 * (The resize executor relies on it: docs/design/reconfig.md, a lost reply.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkGateway } from '../src/zk/gateway.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

let ensemble: SharedEnsemble;
let gateway: ZkGateway;
let writer: RawClient;
const ROOT = '/sync-check';

const syncOn = (g: ZkGateway) => g.sync({ deadlineMs: 5_000 });

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  const [first, second] = ensemble.members;
  // Keeper's session on one member, the writer on another: a plain read on the first may lag the second's acknowledgements.
  gateway = new ZkGateway({ name: 'it', connectionString: `${first!.host}:${first!.clientPort}`, requestDeadlineMs: 5_000, logger: testLogger });
  gateway.start();
  writer = await connectRaw(`${second!.host}:${second!.clientPort}`);
  await writer.create(ROOT, '0');
  await waitFor(() => gateway.session.state === 'connected', { what: 'console session connected' });
}, 90_000);

afterAll(async () => {
  gateway?.close();
  writer?.close();
  await ensemble?.dispose();
}, 60_000);

describe('sync', () => {
  it('is answered by the member, and the session goes on in order: each read after a sync sees the write another member acknowledged before it', async () => {
    const sessionId = gateway.session.sessionId;
    const states: string[] = [];
    gateway.on('session', (s: { state: string }) => states.push(s.state));
    for (let i = 1; i <= 200; i++) {
      await writer.set(ROOT, String(i));
      await syncOn(gateway);
      const { data } = await gateway.getData(ROOT);
      expect(data.toString('utf8'), `read ${i} after a sync`).toBe(String(i));
    }
    // A sync and a read sent together come back in the session's order, each with its own reply.
    const [synced, read] = await Promise.all([syncOn(gateway), gateway.getData(ROOT)]);
    expect(synced).toBeNull();
    expect(read.data.toString('utf8')).toBe('200');
    // Never a reconnect: a reply the library misread would have cost the connection.
    expect(gateway.session.sessionId).toBe(sessionId);
    expect(states.filter((s) => s !== 'connected')).toEqual([]);
  });
});
