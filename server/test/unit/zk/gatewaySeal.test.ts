/**
 * The home ensemble's console session never reaches the replicas' root (docs/operating/replicas.md): with
 * `replicas.identities` it may carry the very identity the root's ACL names, so the gateway itself
 * refuses every call there with NO_AUTH before anything is sent. No ensemble here: a refused call
 * must not even wait for a connection.
 */
import zookeeper from 'node-zookeeper-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ZkGateway } from '../../../src/zk/gateway.js';
import { ZkMutations } from '../../../src/zk/mutations.js';
import { testLogger } from '../../support/logger.js';

const gateways: ZkGateway[] = [];
function sealedGateway(): ZkGateway {
  // Never started: a call that is not refused waits for a session until its (short) deadline.
  const gateway = new ZkGateway({ name: 'home', connectionString: '127.0.0.1:1', requestDeadlineMs: 200, logger: testLogger });
  gateway.seal('/keeper/replicas');
  gateways.push(gateway);
  return gateway;
}

afterEach(() => {
  for (const g of gateways.splice(0)) g.close();
});

describe('a sealed subtree', () => {
  it('refuses reads, watches and every mutation at or under the root with NO_AUTH, unsent', async () => {
    const gateway = sealedGateway();
    const mutations = new ZkMutations(gateway, { chroot: null });
    const calls = [
      gateway.getData('/keeper/replicas'),
      gateway.getChildren('/keeper/replicas/sessions', { watch: true }),
      gateway.exists('/keeper/replicas/replicas/abc', { watch: true }),
      mutations.create('/keeper/replicas/sessions/00/forged', Buffer.from('{}'), zookeeper.CreateMode.PERSISTENT),
      mutations.setData('/keeper/replicas/share-links/x', Buffer.from('{}'), -1),
      mutations.remove('/keeper/replicas/audit/b1', -1),
      mutations.getACL('/keeper/replicas'),
      mutations.setACL('/keeper/replicas', [{ scheme: 'world', id: 'anyone', permissions: 31 }], -1),
    ];
    for (const call of calls) await expect(call).rejects.toMatchObject({ code: 'NO_AUTH', message: expect.stringMatching(/Keeper replicas' shared state/) });
    expect(gateway.callsSent).toBe(0);
  });

  it('leaves its parent, its siblings and names that only start alike to ZooKeeper', async () => {
    const gateway = sealedGateway();
    // Not refused by the seal: they wait for a session, which this gateway never has.
    for (const path of ['/keeper', '/keeper/ensemble-id', '/keeper/upgrade-lock', '/keeper/replicas2', '/keeper/replicas-old/x'])
      await expect(gateway.getData(path), path).rejects.toMatchObject({ code: expect.not.stringMatching(/^NO_AUTH$/) });
  });
});
