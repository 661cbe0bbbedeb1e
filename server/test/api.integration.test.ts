/** The JSON API against a real ensemble: shapes, paging, and clear errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthSchema, znodeAnswerSchema } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

let ensemble: SharedEnsemble;
let keeper: RunningKeeper;
let other: RawClient;

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${keeper.url}${path}`);
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  keeper = await startKeeper({ host: '127.0.0.1', port: 0, ensembles: [{ name: 'it', connectionString: ensemble.connectionString }] }, { logger: testLogger });
  other = await connectRaw(ensemble.connectionString);
  await other.mkdirp('/api/kids');
  for (const name of ['n10', 'n2', 'n1', 'b', 'a']) await other.create(`/api/kids/${name}`);
  await other.create('/api/json', '{"a":1}');
  await other.client.create('/api/bin', Buffer.from([0, 1, 2, 255]), 0 as never, () => undefined);
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
}, 90_000);

afterAll(async () => {
  other?.close();
  await keeper?.close();
  await ensemble?.dispose();
}, 60_000);

describe('GET /api', () => {
  it('reports health and ensembles', async () => {
    const health = await get('/api/health');
    expect(health.status).toBe(200);
    expect(healthSchema.parse(health.body)).toMatchObject({ status: 'ok', ensembles: [{ name: 'it', state: 'connected' }] });
    const list = await get('/api/ensembles');
    expect(list.body.ensembles[0]).toMatchObject({ name: 'it', connectionString: ensemble.connectionString, session: { state: 'connected' } });
    expect(list.body.ensembles[0].session.sessionId).toMatch(/^0x[0-9a-f]+$/);
  });

  it('gives a znode with stat, decoded data and a sorted page of children', async () => {
    const res = await get('/api/ensembles/it/znodes/api/kids?offset=1&limit=3');
    expect(res.status).toBe(200);
    const body = znodeAnswerSchema.parse(res.body);
    expect(body.path).toBe('/api/kids');
    expect(body.stat.numChildren).toBe(5);
    expect(body.children).toEqual({ total: 5, offset: 1, limit: 3, names: ['b', 'n1', 'n2'] });
    const json = await get('/api/ensembles/it/znodes/api/json');
    expect(json.body.data).toEqual({ encoding: 'json', value: '{"a":1}', size: 7, truncated: false });
    await waitFor(async () => (await get('/api/ensembles/it/znodes/api/bin')).status === 200, { what: 'binary node' });
    const bin = await get('/api/ensembles/it/znodes/api/bin');
    expect(bin.body.data).toEqual({ encoding: 'base64', value: Buffer.from([0, 1, 2, 255]).toString('base64'), size: 4, truncated: false });
  });

  it('serves the root', async () => {
    const res = await get('/api/ensembles/it/znodes');
    expect(res.status).toBe(200);
    expect(res.body.path).toBe('/');
    expect(res.body.children.names).toContain('zookeeper');
  });

  it('truncates large data and gives its real size', async () => {
    await other.create('/api/large', 'x'.repeat(200_000));
    const res = await get('/api/ensembles/it/znodes/api/large');
    expect(res.body.data).toMatchObject({ encoding: 'utf8', size: 200_000, truncated: true });
    expect(res.body.data.value.length).toBe(64 * 1024);
  });

  it.each([
    ['/api/ensembles/nope/znodes/x', 404, 'UNKNOWN_ENSEMBLE'],
    ['/api/ensembles/it/znodes/api/missing', 404, 'NO_NODE'],
    ['/api/ensembles/it/znodes/api//x', 400, 'INVALID_PATH'],
    ['/api/ensembles/it/znodes/api/bad%01name', 400, 'INVALID_PATH'],
    ['/api/ensembles/it/znodes/api/kids?limit=-1', 400, 'INVALID_QUERY'],
    ['/api/ensembles/it/znodes/api/kids?offset=abc', 400, 'INVALID_QUERY'],
    ['/api/nothing-here', 404, 'NOT_FOUND'],
  ])('%s -> %i %s', async (path, status, code) => {
    const res = await get(path);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message).toEqual(expect.any(String));
  });
});
