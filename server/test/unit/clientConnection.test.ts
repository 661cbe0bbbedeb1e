/**
 * ClientConnection over an in-memory socket: the handshake, topic routing, roles, share scopes,
 * parameters, caps and coalescing, with stand-in producers instead of ZooKeeper (the integration
 * tests cover the real producers against real members).
 */
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { CLOSE_PROTOCOL_MISMATCH, PROTOCOL_VERSION, serverMessageSchema, type ServerMessage, type TopicEvent, type TopicName } from '@keeper/shared';
import { ClientConnection, type HubContext } from '../../src/hub/clientConnection.js';
import type { SocketLike } from '../../src/hub/socketLike.js';
import { Ensembles } from '../../src/ensemble/ensembles.js';
import type { Ensemble } from '../../src/ensemble/ensemble.js';
import type { Identity } from '../../src/auth/identity.js';
import type { Subscriber, TopicProducer, TopicProducers } from '../../src/topics/topicProducer.js';

/** The server's end of an in-memory socket; what it sends is parsed with the shared schema, as a browser would. */
class MemorySocket implements SocketLike {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly received: ServerMessage[] = [];
  closed: { code?: number; reason?: string } | null = null;
  private readonly listeners = {
    message: [] as ((data: Buffer, isBinary: boolean) => void)[],
    close: [] as (() => void)[],
    error: [] as ((e: Error) => void)[],
  };

  send(text: string): void {
    this.received.push(serverMessageSchema.parse(JSON.parse(text)));
  }
  close(code?: number, reason?: string): void {
    if (this.closed) return;
    this.closed = { ...(code !== undefined ? { code } : {}), ...(reason !== undefined ? { reason } : {}) };
    this.readyState = 3;
    for (const l of this.listeners.close) l();
  }
  terminate(): void {
    this.close();
  }
  on(event: 'message' | 'close' | 'error', listener: never): unknown {
    (this.listeners[event] as unknown[]).push(listener);
    return this;
  }
  /** What the browser sends. */
  deliver(message: unknown): void {
    for (const l of this.listeners.message) l(Buffer.from(JSON.stringify(message)), false);
  }
  errors(): Extract<ServerMessage, { type: 'error' }>[] {
    return this.received.filter((m): m is Extract<ServerMessage, { type: 'error' }> => m.type === 'error');
  }
  events() {
    return this.received.flatMap((m) => (m.type === 'batch' ? m.events : []));
  }
}

/** A producer that records who it feeds, so a test can emit to them and see them stop. */
function standIn<T extends TopicName>(topic: T, first?: TopicEvent<T>) {
  const open = new Set<Subscriber<T>>();
  let opened = 0;
  const producer: TopicProducer<T> = {
    topic,
    open(subscriber) {
      opened++;
      open.add(subscriber);
      if (first) subscriber.emit(first);
      return () => open.delete(subscriber);
    },
  };
  return {
    producer,
    emit: (event: TopicEvent<T>) => open.forEach((s) => s.emit(event)),
    get live() {
      return open.size;
    },
    get opened() {
      return opened;
    },
  };
}

const session = {
  state: 'connected' as const,
  sessionId: '0x1',
  member: 'm1:2181',
  since: 1,
  timeoutMs: 30_000,
  sessionsOpened: 1,
  confirmedAt: 1,
  establishedAt: 1,
  timeline: [],
};
const stat = {
  czxid: '0x1',
  mzxid: '0x1',
  pzxid: '0x1',
  ctime: 1,
  mtime: 1,
  version: 0,
  cversion: 0,
  aversion: 0,
  ephemeralOwner: '0x0',
  dataLength: 1,
  numChildren: 0,
};

function fakeEnsemble(name: string): Ensemble {
  return { name, summary: () => ({ name, connectionString: 'h:2181', session }) } as unknown as Ensemble;
}

const admin: Identity = { name: 'root', role: 'admin', via: 'bearer' };
const viewer: Identity = { name: 'eve', role: 'viewer', via: 'bearer' };
const holder: Identity = { name: 'share:x', role: 'viewer', via: 'share', shareScope: { ensemble: 'prod', root: '/app', ensembleViews: false } } as Identity;

const open: ClientConnection[] = [];

function connect(identity: Identity, overrides: Partial<HubContext['limits']> = {}) {
  const znode = standIn('znode', { kind: 'state', node: { exists: true, stat, data: { encoding: 'utf8', value: 'v', size: 1, truncated: false } }, at: 1 });
  const consoleSession = standIn('consoleSession', { session });
  const ensembleHealth = standIn('ensembleHealth');
  const jobs = standIn('jobs');
  const producers: TopicProducers = {
    znode: znode.producer,
    consoleSession: consoleSession.producer,
    ensembleHealth: ensembleHealth.producer,
    jobs: jobs.producer,
    locks: standIn('locks').producer,
    lock: standIn('lock').producer,
    upgrade: standIn('upgrade').producer,
    ensembleEvents: standIn('ensembleEvents').producer,
  };
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
