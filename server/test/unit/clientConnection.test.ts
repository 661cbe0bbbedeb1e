/**
 * ClientConnection over an in-memory socket: the handshake, topic routing, roles, share scopes,
 * parameters, caps and coalescing, with stand-in producers instead of ZooKeeper (the integration
 * tests cover the real producers against real members).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { CLOSE_PROTOCOL_MISMATCH, PROTOCOL_VERSION } from '@keeper/shared';
import { ClientConnection, type HubContext } from '../../src/hub/clientConnection.js';
import { Ensembles } from '../../src/ensemble/ensembles.js';
import type { Identity } from '../../src/auth/identity.js';
import { MemorySocket, fakeEnsemble, standIns } from './support/hubHarness.js';

const admin: Identity = { name: 'root', role: 'admin', via: 'bearer' };
const viewer: Identity = { name: 'eve', role: 'viewer', via: 'bearer' };
const holder: Identity = { name: 'share:x', role: 'viewer', via: 'share', shareScope: { ensemble: 'prod', root: '/app', ensembleViews: false } } as Identity;

const open: ClientConnection[] = [];

function connect(identity: Identity, overrides: Partial<HubContext['limits']> = {}) {
  const { znode, consoleSession, ensembleHealth, jobs, producers } = standIns();
  const ctx: HubContext = {
    ensembles: new Ensembles([fakeEnsemble('prod'), fakeEnsemble('test')]),
    producers,
    serverVersion: 'test',
    log: pino({ level: 'silent' }),
    limits: { maxSubscriptions: 3, helloTimeoutMs: 60_000, maxBufferedBytes: 1 << 20, batchIntervalMs: 5, ...overrides },
  };
  const socket = new MemorySocket();
  const connection = new ClientConnection(socket, ctx, identity);
  open.push(connection);
  return { socket, connection, znode, consoleSession, ensembleHealth, jobs };
}

function hello(socket: MemorySocket): void {
  socket.deliver({ type: 'hello', protocolVersion: PROTOCOL_VERSION });
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 20));

afterEach(() => {
  for (const c of open.splice(0)) c.dispose();
});

describe('ClientConnection', () => {
  it('welcomes a page of this protocol with the ensembles, and tells an older page that Keeper was updated', () => {
    const current = connect(admin);
    hello(current.socket);
    const welcome = current.socket.received[0];
    expect(welcome?.type === 'welcome' && welcome.ensembles.map((e) => e.name)).toEqual(['prod', 'test']);

    const old = connect(admin);
    old.socket.deliver({ type: 'hello', protocolVersion: PROTOCOL_VERSION - 1 });
    expect(old.socket.errors()[0]?.code).toBe('protocolMismatch');
    expect(old.socket.errors()[0]?.message).toMatch(/^Keeper was updated: reload/);
    expect(old.socket.closed?.code).toBe(CLOSE_PROTOCOL_MISMATCH);
  });

  it('routes a subscription to its producer and tags every event with topic, ensemble and parameters', async () => {
    const { socket, znode } = connect(viewer);
    hello(socket);
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/a' }, id: 's1' });
    expect(socket.received).toContainEqual({ type: 'ack', id: 's1' });
    await flush();
    expect(socket.events()).toEqual([
      expect.objectContaining({ topic: 'znode', ensemble: 'prod', params: { path: '/a' }, event: expect.objectContaining({ kind: 'state' }) }),
    ]);
    socket.deliver({ type: 'unsubscribe', topic: 'znode', ensemble: 'prod', params: { path: '/a' } });
    expect(znode.live).toBe(0);
  });

  it('refuses an admin topic to a viewer before reading its parameters', () => {
    const { socket, jobs } = connect(viewer);
    hello(socket);
    socket.deliver({ type: 'subscribe', topic: 'jobs', ensemble: 'prod', params: { nonsense: 'x'.repeat(1000) }, id: 'j' });
    expect(socket.errors()).toEqual([expect.objectContaining({ code: 'forbidden', id: 'j' })]);
    expect(jobs.opened).toBe(0);
  });

  it('answers invalid parameters and an unknown ensemble with their own codes and a sentence', () => {
    const { socket, znode } = connect(admin);
    hello(socket);
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: 'no-slash' }, id: 'p' });
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'nope', params: { path: '/a' }, id: 'e' });
    socket.deliver({ type: 'subscribe', topic: 'nosuch', ensemble: 'prod', params: {}, id: 't' });
    const [params, ensemble, topic] = socket.errors();
    expect(params).toMatchObject({ code: 'invalidParams', id: 'p' });
    expect(params?.message).toContain('invalid path');
    expect(ensemble).toMatchObject({ code: 'unknownEnsemble', id: 'e', message: 'no ensemble named "nope"' });
    expect(topic).toMatchObject({ code: 'malformed', id: 't' });
    expect(znode.opened).toBe(0);
  });

  it('keeps a share-link holder inside its scope: its subtree, no ensemble views, no other ensemble', () => {
    const { socket, znode, ensembleHealth } = connect(holder);
    hello(socket);
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/app/x' }, id: 'in' });
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/apple' }, id: 'sibling' });
    socket.deliver({ type: 'subscribe', topic: 'ensembleHealth', ensemble: 'prod', params: {}, id: 'views' });
    socket.deliver({ type: 'subscribe', topic: 'consoleSession', ensemble: 'test', params: {}, id: 'other' });
    socket.deliver({ type: 'subscribe', topic: 'consoleSession', ensemble: 'unknown', params: {}, id: 'unknown' });
    expect(socket.received).toContainEqual({ type: 'ack', id: 'in' });
    expect(socket.errors().map((e) => [e.id, e.code])).toEqual([
      ['sibling', 'outOfScope'],
      ['views', 'outOfScope'],
      ['other', 'outOfScope'],
      // Whether another ensemble exists is itself outside the link's scope.
      ['unknown', 'outOfScope'],
    ]);
    expect(znode.opened).toBe(1);
    expect(ensembleHealth.opened).toBe(0);
  });

  it('caps subscriptions per tab with a sentence, and a repeated subscription replays without counting twice', () => {
    const { socket, consoleSession } = connect(admin, { maxSubscriptions: 2 });
    hello(socket);
    socket.deliver({ type: 'subscribe', topic: 'consoleSession', ensemble: 'prod', params: {}, id: '1' });
    socket.deliver({ type: 'subscribe', topic: 'consoleSession', ensemble: 'prod', params: {}, id: '2' });
    socket.deliver({ type: 'subscribe', topic: 'consoleSession', ensemble: 'test', params: {}, id: '3' });
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/a' }, id: '4' });
    expect(socket.errors()).toEqual([expect.objectContaining({ id: '4', code: 'tooManySubscriptions', message: expect.stringContaining('at most 2') })]);
    expect(consoleSession.opened).toBe(3);
    expect(consoleSession.live).toBe(2);
  });

  it("coalesces a topic's states per subscription but keeps every diff", async () => {
    const { socket, znode } = connect(admin);
    hello(socket);
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/a' } });
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/b' } });
    await flush();
    const before = socket.events().length;
    for (let i = 0; i < 5; i++) {
      znode.emit({ kind: 'state', node: { exists: false }, at: 10 + i });
      znode.emit({ kind: 'children', mode: 'diff', added: [`c${i}`], removed: [], total: i + 1 });
    }
    await flush();
    const sent = socket.events().slice(before);
    const states = sent.flatMap((e) => (e.topic === 'znode' && e.event.kind === 'state' ? [[e.params, e.event.at]] : []));
    // One state per path, the latest; five diffs per path, in order.
    expect(states).toEqual([
      [{ path: '/a' }, 14],
      [{ path: '/b' }, 14],
    ]);
    expect(sent.filter((e) => e.topic === 'znode' && e.event.kind === 'children')).toHaveLength(10);
  });

  it('answers a bare heartbeat only when no frame went out lately (any frame is an answer); a ping with an id always', async () => {
    const { socket } = connect(viewer);
    hello(socket);
    const pongs = () => socket.received.filter((m) => m.type === 'pong');
    socket.deliver({ type: 'ping' });
    expect(pongs()).toHaveLength(0);
    socket.deliver({ type: 'ping', id: 'x' });
    expect(pongs()).toEqual([expect.objectContaining({ id: 'x' })]);
    // The clock moves on, not the test's time: 600 ms without a frame.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 600);
      socket.deliver({ type: 'ping' });
    } finally {
      vi.useRealTimers();
    }
    expect(pongs()).toHaveLength(2);
  });

  it('stops every producer it opened when the socket closes', () => {
    const { socket, znode, consoleSession } = connect(admin);
    hello(socket);
    socket.deliver({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/a' } });
    socket.deliver({ type: 'subscribe', topic: 'consoleSession', ensemble: 'prod', params: {} });
    expect(znode.live + consoleSession.live).toBe(2);
    socket.close(1000);
    expect(znode.live + consoleSession.live).toBe(0);
  });
});
