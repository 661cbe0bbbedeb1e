/**
 * The socket protocol end to end: a real Keeper on a real ensemble, browsers as raw
 * WebSockets. Bad input must earn a clear error and change nothing; N browsers must
 * cost ZooKeeper what one costs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_PROTOCOL_MISMATCH, PROTOCOL_VERSION, applyChildrenDiff, type ServerEvent } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let keeper: RunningKeeper;
let other: RawClient;
const browsers: TestBrowser[] = [];

async function browser(): Promise<TestBrowser> {
  const b = await TestBrowser.open(keeper.url);
  browsers.push(b);
  return b;
}

function childrenOf(b: TestBrowser, path: string): string[] {
  let names: string[] = [];
  for (const e of b.events) {
    if (e.type !== 'children' || e.path !== path) continue;
    names = e.mode === 'full' ? [...(e.names ?? [])] : applyChildrenDiff(names, { added: e.added ?? [], removed: e.removed ?? [] });
  }
  return names.sort();
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.hubTest);
  keeper = await startKeeper(
    { host: '127.0.0.1', port: 0, ensembles: [{ name: 'it', connectionString: ensemble.connectionString }] },
    { logger: testLogger },
  );
  other = await connectRaw(ensemble.connectionString);
  await other.mkdirp('/hub');
  await waitFor(() => keeper.gateways.get('it')?.session.state === 'connected', { what: 'console connected' });
}, 90_000);

afterAll(async () => {
  for (const b of browsers) b.close();
  other?.close();
  await keeper?.close();
  await ensemble?.dispose();
}, 60_000);

describe('handshake', () => {
  it('welcomes a browser with the ensembles and their session state', async () => {
    const b = await browser();
    const welcome = b.messages.find((m) => m.type === 'welcome');
    expect(welcome).toMatchObject({ type: 'welcome', protocolVersion: PROTOCOL_VERSION, ensembles: [{ name: 'it', session: { state: 'connected' } }] });
  });

  it('closes with its own code on a protocol version mismatch', async () => {
    const b = await TestBrowser.open(keeper.url, { hello: false });
    browsers.push(b);
    b.send({ type: 'hello', protocolVersion: 999 });
    await waitFor(() => b.closeCode === CLOSE_PROTOCOL_MISMATCH, { what: 'mismatch close code' });
    expect(b.messages[0]).toMatchObject({ type: 'error', code: 'protocolMismatch' });
  });

  it('refuses anything before hello', async () => {
    const b = await TestBrowser.open(keeper.url, { hello: false });
    browsers.push(b);
    b.send({ type: 'subscribe', ensemble: 'it', path: '/', id: 'early' });
    await b.next((m) => m.type === 'error' && m.code === 'notHello' && m.id === 'early');
  });
});

describe('bad input gets a clear error and the server stays up', () => {
  it.each([
    ['not JSON', '{{{', 'malformed'],
    ['an unknown type', { type: 'explode', id: 'x1' }, 'unknownType'],
    ['a missing field', { type: 'subscribe', ensemble: 'it', id: 'x2' }, 'malformed'],
    ['an invalid path', { type: 'subscribe', ensemble: 'it', path: 'no-slash', id: 'x3' }, 'invalidPath'],
    ['a relative segment', { type: 'subscribe', ensemble: 'it', path: '/a/../b', id: 'x4' }, 'invalidPath'],
    ['an unknown ensemble', { type: 'subscribe', ensemble: 'nope', path: '/', id: 'x5' }, 'unknownEnsemble'],
    ['a JSON array', '[1,2,3]', 'unknownType'],
    ['null', 'null', 'unknownType'],
  ])('%s', async (_label, frame, code) => {
    const b = await browser();
    b.send(frame);
    const error = await b.next((m) => m.type === 'error');
    expect(error).toMatchObject({ type: 'error', code });
    // Still served afterwards.
    b.send({ type: 'ping', id: 'after' });
    await b.next((m) => m.type === 'pong' && m.id === 'after');
  });

  it('survives a binary frame and an oversized frame', async () => {
    const b = await browser();
    b.socket.send(Buffer.from([0, 1, 2, 3]));
    await b.next((m) => m.type === 'error' && m.code === 'malformed');
    const big = await browser();
    big.send('x'.repeat(200_000));
    await waitFor(() => big.closeCode !== null, { what: 'oversized frame closes that socket' });
    const fine = await browser();
    fine.send({ type: 'ping', id: 'alive' });
    await fine.next((m) => m.type === 'pong');
  });
});

describe('subscriptions', () => {
  it('streams a znode and its children live, with diffs after the first full list', async () => {
    await other.create('/hub/live', 'one');
    await other.create('/hub/live/a');
    const b = await browser();
    b.send({ type: 'subscribe', ensemble: 'it', path: '/hub/live', id: 's1' });
    await b.next((m) => m.type === 'ack' && m.id === 's1');
    await waitFor(() => {
      const z = b.lastZnode('it', '/hub/live');
      return z?.type === 'znode' && z.node.exists && z.node.data.value === 'one';
    }, { what: 'initial znode' });
    // The data and the child list are two reads: their first events may come in separate batches.
    await waitFor(() => childrenOf(b, '/hub/live').join() === 'a', { what: 'initial children', timeoutMs: 1_000 });

    await other.set('/hub/live', '{"n": 2}');
    await waitFor(() => {
      const z = b.lastZnode('it', '/hub/live');
      return z?.type === 'znode' && z.node.exists && z.node.data.encoding === 'json' && z.node.data.value === '{"n": 2}';
    }, { what: 'JSON update', timeoutMs: 1_000 });

    await other.create('/hub/live/b');
    await waitFor(() => childrenOf(b, '/hub/live').join() === 'a,b', { what: 'child added', timeoutMs: 1_000 });
    const diffs = b.events.filter((e): e is Extract<ServerEvent, { type: 'children' }> => e.type === 'children' && e.mode === 'diff');
    expect(diffs.at(-1)).toMatchObject({ added: ['b'], removed: [], total: 2 });
    expect(b.events.some((e) => e.type === 'watchEvent' && e.event === 'childrenChanged')).toBe(true);

    await other.remove('/hub/live/a');
    await other.remove('/hub/live/b');
    await other.remove('/hub/live');
    await waitFor(() => {
      const z = b.lastZnode('it', '/hub/live');
      return z?.type === 'znode' && !z.node.exists;
    }, { what: 'deletion', timeoutMs: 1_000 });
  });

  it('serves many browsers from one ZooKeeper watch', async () => {
    await other.create('/hub/shared', 'x');
    const first = await browser();
    first.send({ type: 'subscribe', ensemble: 'it', path: '/hub/shared' });
    await waitFor(() => first.lastZnode('it', '/hub/shared'), { what: 'first browser state' });
    const gateway = keeper.gateways.get('it')!;
    const readsAfterFirst = gateway.watches.reads;
    const others = await Promise.all(Array.from({ length: 20 }, () => browser()));
    for (const b of others) b.send({ type: 'subscribe', ensemble: 'it', path: '/hub/shared' });
    await waitFor(() => others.every((b) => b.lastZnode('it', '/hub/shared')), { what: 'every browser has the state' });
    expect(gateway.watches.reads).toBe(readsAfterFirst);

    await other.set('/hub/shared', 'y');
    await waitFor(
      () => [first, ...others].every((b) => {
        const z = b.lastZnode('it', '/hub/shared');
        return z?.type === 'znode' && z.node.exists && z.node.data.value === 'y';
      }),
      { what: 'every browser sees the change', timeoutMs: 2_000 },
    );
    // One data re-read for the change, however many browsers.
    expect(gateway.watches.reads - readsAfterFirst).toBe(1);
  });

  it('tells every browser about session changes', async () => {
    const b = await browser();
    const gateway = keeper.gateways.get('it')!;
    const member = Number(gateway.session.member?.split(':')[1]);
    const id = ensemble.members.find((m) => m.clientPort === member)!.id;
    await ensemble.killMember(id);
    await b.next((m) => m.type === 'batch' && m.events.some((e) => e.type === 'session' && e.session.state === 'disconnected'), 10_000);
    await b.next((m) => m.type === 'batch' && m.events.some((e) => e.type === 'session' && e.session.state === 'connected' && e.session.member !== `127.0.0.1:${member}`), 15_000);
    await ensemble.startMember(id);
  }, 60_000);
});
