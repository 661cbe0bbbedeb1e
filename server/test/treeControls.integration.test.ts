/**
 * What the tree needs from the server for a node the console may not read (issue 9, B8), and
 * the order of sequential children (B9), against a real ensemble: the bare stat route answers
 * with `exists` where getData is refused, the subscription's error names NO_AUTH (not retried),
 * and the first page of children ranks lock contenders by their sequence suffix.
 */
import { createHash } from 'node:crypto';
import zookeeper from 'node-zookeeper-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

let ensemble: SharedEnsemble;
let keeper: RunningKeeper;
let owner: RawClient;

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${keeper.url}${path}`);
  return { status: res.status, body: await res.json() };
}

function create(client: RawClient, path: string, acl: zookeeper.ACL[], mode = zookeeper.CreateMode.PERSISTENT): Promise<string> {
  return new Promise((resolve, reject) =>
    client.client.create(path, Buffer.from('secret'), acl, mode, (error, made) => (error ? reject(error) : resolve(made))),
  );
}

const digestId = (user: string, password: string) => `${user}:${createHash('sha1').update(`${user}:${password}`).digest('base64')}`;
const aliceOnly = [new zookeeper.ACL(zookeeper.Permission.ALL, new zookeeper.Id('digest', digestId('alice', 'pw')))];
const open = [new zookeeper.ACL(zookeeper.Permission.ALL, new zookeeper.Id('world', 'anyone'))];

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  keeper = await startKeeper({ host: '127.0.0.1', port: 0, ensembles: [{ name: 'it', connectionString: ensemble.connectionString }] }, { logger: testLogger });
  owner = await connectRaw(ensemble.connectionString);
  owner.client.addAuthInfo('digest', Buffer.from('alice:pw'));
  await owner.mkdirp('/tc/locks');
  await create(owner, '/tc/vault', aliceOnly);
  await create(owner, '/tc/vault/inner', aliceOnly);
  // Curator-style protected names: the uuid would sort them in the opposite order of creation.
  for (const uuid of ['ffff', 'aaaa', '0000']) await create(owner, `/tc/locks/_c_${uuid}-lock-`, open, zookeeper.CreateMode.PERSISTENT_SEQUENTIAL);
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
}, 120_000);

afterAll(async () => {
  owner?.close();
  await keeper?.close();
  await ensemble?.dispose();
}, 60_000);

describe('a node the console may not read', () => {
  it('has no data for the console (403 NO_AUTH) but its stat, from exists', async () => {
    const full = await get('/api/ensembles/it/znodes/tc/vault');
    expect(full.status).toBe(403);
    expect(full.body.error.code).toBe('NO_AUTH');
    const bare = await get('/api/ensembles/it/stat/tc/vault');
    expect(bare.status).toBe(200);
    expect(bare.body.path).toBe('/tc/vault');
    expect(bare.body.stat).toMatchObject({ version: 0, numChildren: 1, dataLength: 6 });
    expect(bare.body.stat.ctime).toBeGreaterThan(0);
  });

  it('answers null for a missing node, 400 for a bad path, 404 for an unknown ensemble', async () => {
    expect(await get('/api/ensembles/it/stat/tc/nothing-here')).toEqual({ status: 200, body: { path: '/tc/nothing-here', stat: null } });
    expect((await get('/api/ensembles/it/stat/tc/a%00b')).body.error.code).toBe('INVALID_PATH');
    expect((await get('/api/ensembles/nope/stat/tc')).status).toBe(404);
    expect((await get('/api/ensembles/it/stat')).body.path).toBe('/');
  });

  it('the socket subscription reports NO_AUTH once, not retried, and no znode state', async () => {
    const browser = await TestBrowser.open(keeper.url);
    try {
      browser.subscribe('znode', 'it', { path: '/tc/vault' }, 's1');
      const errors = () => browser.znodeEvents('it', '/tc/vault').filter((e) => e.kind === 'error');
      const [error] = await waitFor(() => (errors().length > 0 ? errors() : null), { what: 'a subscription error for /tc/vault' });
      expect(error?.message).toMatch(/^NO_AUTH\b/);
      expect(error?.retrying).toBe(false);
      expect(browser.lastZnode('it', '/tc/vault')).toBeUndefined();
    } finally {
      browser.close();
    }
  });
});

describe('sequential children', () => {
  it('the first page ranks lock contenders by suffix: the holder first', async () => {
    const page = await get('/api/ensembles/it/znodes/tc/locks?limit=2');
    expect(page.status).toBe(200);
    expect(page.body.children.total).toBe(3);
    expect(page.body.children.names).toEqual(['_c_ffff-lock-0000000000', '_c_aaaa-lock-0000000001']);
  });
});
