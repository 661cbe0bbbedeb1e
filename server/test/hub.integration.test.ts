/**
 * The socket protocol end to end: a real Keeper on a real ensemble, browsers as raw
 * WebSockets. Bad input must earn a clear error and change nothing; N browsers must
 * cost ZooKeeper what one costs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_PROTOCOL_MISMATCH, PROTOCOL_VERSION } from '@keeper/shared';
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

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.hubTest);
  keeper = await startKeeper({ host: '127.0.0.1', port: 0, ensembles: [{ name: 'it', connectionString: ensemble.connectionString }] }, { logger: testLogger });
  other = await connectRaw(ensemble.connectionString);
  await other.mkdirp('/hub');
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
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

  it('tells a page still open from before the update (protocol 2) to reload, and closes with 4001', async () => {
    const b = await TestBrowser.open(keeper.url, { hello: false });
    browsers.push(b);
    b.send({ type: 'hello', protocolVersion: 2 });
    await waitFor(() => b.closeCode === CLOSE_PROTOCOL_MISMATCH, { what: 'mismatch close code' });
    expect(b.messages).toHaveLength(1);
    const [error] = b.errors();
    expect(error?.code).toBe('protocolMismatch');
    expect(error?.message).toMatch(/^Keeper was updated: reload/);
    expect(error?.message).toContain(`protocol ${PROTOCOL_VERSION}`);
  });

  it('refuses anything before hello', async () => {
    const b = await TestBrowser.open(keeper.url, { hello: false });
    browsers.push(b);
    b.subscribe('znode', 'it', { path: '/' }, 'early');
    await b.next((m) => m.type === 'error' && m.code === 'notHello' && m.id === 'early');
    expect(b.events).toEqual([]);
  });
});

describe('bad input gets a clear error and the server stays up', () => {
  it.each([
    ['not JSON', '{{{', 'malformed'],
    ['an unknown type', { type: 'explode', id: 'x1' }, 'unknownType'],
    ['a missing field', { type: 'subscribe', topic: 'znode', ensemble: 'it', id: 'x2' }, 'malformed'],
    ['an unknown topic', { type: 'subscribe', topic: 'everything', ensemble: 'it', params: {}, id: 'x6' }, 'malformed'],
    ['an invalid path', { type: 'subscribe', topic: 'znode', ensemble: 'it', params: { path: 'no-slash' }, id: 'x3' }, 'invalidParams'],
    ['a relative segment', { type: 'subscribe', topic: 'znode', ensemble: 'it', params: { path: '/a/../b' }, id: 'x4' }, 'invalidParams'],
    ['parameters a topic does not take', { type: 'subscribe', topic: 'consoleSession', ensemble: 'it', params: { path: '/' }, id: 'x7' }, 'invalidParams'],
    ['an unknown ensemble', { type: 'subscribe', topic: 'znode', ensemble: 'nope', params: { path: '/' }, id: 'x5' }, 'unknownEnsemble'],
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

  it('says in a sentence which parameter is wrong, and subscribes to nothing', async () => {
    const b = await browser();
    b.subscribe('znode', 'it', { path: '/hub/../etc' }, 'bad');
    const error = await b.next((m) => m.type === 'error' && m.id === 'bad');
    expect(error).toMatchObject({ code: 'invalidParams' });
    expect(error.type === 'error' && error.message).toMatch(/^invalid parameters for znode: path: invalid path "\/hub\/\.\.\/etc": .+/);
    b.send({ type: 'ping', id: 'after' });
    await b.next((m) => m.type === 'pong' && m.id === 'after');
    expect(b.events).toEqual([]);
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
    b.subscribe('znode', 'it', { path: '/hub/live' }, 's1');
    await b.next((m) => m.type === 'ack' && m.id === 's1');
    await waitFor(
      () => {
        const z = b.lastZnode('it', '/hub/live');
        return z?.node.exists && z.node.data.value === 'one';
      },
      { what: 'initial znode' },
    );
    // The data and the child list are two reads: their first events may come in separate batches.
    await waitFor(() => b.childrenOf('it', '/hub/live').join() === 'a', { what: 'initial children', timeoutMs: 1_000 });
    // Every event is tagged with the subscription it belongs to.
    expect(b.events.every((e) => e.topic === 'znode' && e.ensemble === 'it' && e.params.path === '/hub/live')).toBe(true);

    await other.set('/hub/live', '{"n": 2}');
    await waitFor(
      () => {
        const z = b.lastZnode('it', '/hub/live');
        return z?.node.exists && z.node.data.encoding === 'json' && z.node.data.value === '{"n": 2}';
      },
      { what: 'JSON update', timeoutMs: 1_000 },
    );

    await other.create('/hub/live/b');
    await waitFor(() => b.childrenOf('it', '/hub/live').join() === 'a,b', { what: 'child added', timeoutMs: 1_000 });
    const lists = b.znodeEvents('it', '/hub/live').filter((e) => e.kind === 'children');
    expect(lists[0]).toMatchObject({ mode: 'full', names: ['a'] });
    expect(lists.at(-1)).toMatchObject({ mode: 'diff', added: ['b'], removed: [], total: 2 });
    expect(b.znodeEvents('it', '/hub/live').some((e) => e.kind === 'watchEvent' && e.event === 'childrenChanged')).toBe(true);

    await other.remove('/hub/live/a');
    await other.remove('/hub/live/b');
    await other.remove('/hub/live');
    await waitFor(() => b.lastZnode('it', '/hub/live')?.node.exists === false, { what: 'deletion', timeoutMs: 1_000 });
  });

  it('serves many browsers from one ZooKeeper watch', async () => {
    await other.create('/hub/shared', 'x');
    const first = await browser();
    first.subscribe('znode', 'it', { path: '/hub/shared' });
    await waitFor(() => first.lastZnode('it', '/hub/shared'), { what: 'first browser state' });
    const gateway = keeper.ensembles.get('it').gateway;
    const readsAfterFirst = gateway.watches.reads;
    const others = await Promise.all(Array.from({ length: 20 }, () => browser()));
    for (const b of others) b.subscribe('znode', 'it', { path: '/hub/shared' });
    await waitFor(() => others.every((b) => b.lastZnode('it', '/hub/shared')), { what: 'every browser has the state' });
    expect(gateway.watches.reads).toBe(readsAfterFirst);

    await other.set('/hub/shared', 'y');
    await waitFor(
      () =>
        [first, ...others].every((b) => {
          const z = b.lastZnode('it', '/hub/shared');
          return z?.node.exists && z.node.data.value === 'y';
        }),
      { what: 'every browser sees the change', timeoutMs: 2_000 },
    );
    // One data re-read for the change, however many browsers.
    expect(gateway.watches.reads - readsAfterFirst).toBe(1);
  });

  it('tells a browser subscribed to the console session about its changes, and not one that unsubscribed or never subscribed', async () => {
    const b = await browser();
    await b.subscribed('consoleSession', 'it', {});
    // The state now, at once.
    await waitFor(() => b.topicEvents('consoleSession', 'it').at(-1)?.event.session.state === 'connected', { what: 'current session' });
    const left = await browser();
    await left.subscribed('consoleSession', 'it', {});
    await waitFor(() => left.topicEvents('consoleSession').length > 0, { what: 'current session (the one that leaves)' });
    left.unsubscribe('consoleSession', 'it', {}, 'bye');
    await left.next((m) => m.type === 'ack' && m.id === 'bye');
    const leftHad = left.topicEvents('consoleSession').length;
    const never = await browser();

    const gateway = keeper.ensembles.get('it').gateway;
    const member = Number(gateway.session.member?.split(':')[1]);
    const id = ensemble.members.find((m) => m.clientPort === member)!.id;
    await ensemble.killMember(id);
    try {
      const session = () => b.topicEvents('consoleSession', 'it').map((e) => e.event.session);
      await waitFor(() => session().some((s) => s.state === 'disconnected'), { what: 'disconnected', timeoutMs: 10_000 });
      await waitFor(() => session().some((s) => s.state === 'connected' && s.member !== `127.0.0.1:${member}`), {
        what: 'reconnected to another member',
        timeoutMs: 15_000,
      });
      // Proof both others were still served meanwhile, then that no session change reached them.
      for (const [who, tag] of [
        [left, 'l'],
        [never, 'n'],
      ] as const) {
        who.send({ type: 'ping', id: tag });
        await who.next((m) => m.type === 'pong' && m.id === tag);
      }
      expect(left.topicEvents('consoleSession')).toHaveLength(leftHad);
      expect(never.events).toEqual([]);
    } finally {
      await ensemble.startMember(id);
    }
  }, 60_000);
});
